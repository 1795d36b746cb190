import Foundation

/// What a device remembers between launches, apart from the cached files: the highest version
/// applied per patch id (rollback/replay protection), the revoked patches (never loaded again,
/// even if the revocation list is lost), and per-file download bookkeeping (ETags).
/// Stored as JSON in two copies (`DeliveryStateStore`), each written atomically.
struct DeliveryState: Codable, Equatable {
    /// A version of a patch this device applied, and the key that signed it.
    struct Release: Codable, Equatable {
        var version: Int
        /// `SignedPatch.digest` of that version: the same signed patch may be applied again, no other.
        var digest: String
    }

    struct Applied: Codable, Equatable {
        /// The highest version ever applied on this device.
        var version: Int
        var digest: String
        /// The highest release applied per signing key; nil in state written before keys were
        /// recorded (then `version` is the floor whatever the key).
        var byKey: [String: Release]?

        /// The release a new version must not fall below: the highest one signed by a key the app
        /// still trusts. Once a compromised key is retired, a version it pushed far ahead
        /// (fast-forward) stops blocking real releases, while the releases of the keys still
        /// trusted keep rollback closed. Nil when no trusted key's release is on record.
        func floor(trusting isTrusted: (String) -> Bool) -> Release? {
            guard let byKey else { return Release(version: version, digest: digest) }
            return byKey.filter { isTrusted($0.key) }.values.max { $0.version < $1.version }
        }

        /// Records `release`, signed by `keyID`, as applied.
        mutating func record(_ release: Release, keyID: String) {
            if release.version >= version { version = release.version; digest = release.digest }
            var keys = byKey ?? [:]
            if release.version >= keys[keyID]?.version ?? .min { keys[keyID] = release }
            byKey = keys
        }
    }

    struct Revoked: Codable, Equatable {
        /// Revoked versions; nil for every version.
        var versions: [Int]?
    }

    struct File: Codable, Equatable {
        /// The patch id the cached copy of this file carries.
        var patchID: String?
        /// The ETag of the cached copy, sent as If-None-Match.
        var etag: String?
    }

    var applied: [String: Applied] = [:]
    var revoked: [String: Revoked] = [:]
    var files: [String: File] = [:]
    /// Sequence of the last revocation list taken in, and its ETag.
    var revocationSequence: Int?
    /// The highest sequence taken in per signing key (nil in state written before keys were
    /// recorded): as for patch versions, a sequence pushed ahead by a key since retired stops
    /// counting, the sequences of trusted keys keep holding.
    var revocationSequenceByKey: [String: Int]?
    var revocationETag: String?
    /// When the newest revocation list taken in was signed, and its signed expiry (whole seconds
    /// since 1970): how fresh the device's knowledge of revocations is.
    var revocationIssued: Int?
    var revocationExpires: Int?
    /// Bumped by each save: the newer of the two copies wins.
    var generation: Int?

    func isRevoked(_ patchID: String, version: Int) -> Bool {
        guard let entry = revoked[patchID] else { return false }
        return entry.versions?.contains(version) ?? true
    }

    /// Whether the newest revocation list taken in is fresh at `now`: issued within `maxAge` (nil:
    /// no limit) and not past its signed expiry. No list taken in is never fresh.
    func revocationListIsFresh(at now: Date, maxAge: TimeInterval?) -> Bool {
        guard revocationSequence != nil, let issued = revocationIssued else { return false }
        let t = now.timeIntervalSince1970
        if let maxAge, t > TimeInterval(issued) + maxAge { return false }
        if let revocationExpires, t >= TimeInterval(revocationExpires) { return false }
        return true
    }

    /// The sequence a new revocation list must not fall below.
    func revocationFloor(trusting isTrusted: (String) -> Bool) -> Int? {
        guard let byKey = revocationSequenceByKey else { return revocationSequence }
        return byKey.filter { isTrusted($0.key) }.values.max()
    }

    /// Takes in a verified revocation list (the caller has refused a lower sequence); entries
    /// only ever accumulate.
    mutating func merge(_ list: RevocationList) {
        for entry in list.entries {
            if let existing = revoked[entry.patchID] {
                if let old = existing.versions, let new = entry.versions {
                    revoked[entry.patchID] = Revoked(versions: Array(Set(old + new)).sorted())
                } else {
                    revoked[entry.patchID] = Revoked(versions: nil)  // every version
                }
            } else {
                revoked[entry.patchID] = Revoked(versions: entry.versions)
            }
        }
        revocationSequence = list.sequence
        revocationSequenceByKey = (revocationSequenceByKey ?? [:]).merging([list.keyID: list.sequence], uniquingKeysWith: max)
        // The list taken in last says how fresh the device is, not the highest date ever seen: a
        // list dated far ahead by a key since retired must not keep the device "fresh" for ever.
        revocationIssued = Int(list.issued.timeIntervalSince1970)
        revocationExpires = list.expires.map { Int($0.timeIntervalSince1970) }
    }
}
