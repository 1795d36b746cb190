import Foundation

/// What a device remembers between launches, apart from the cached files: the highest version
/// applied per patch id (rollback/replay protection), the revoked patches (never loaded again,
/// even if the revocation list is lost), and per-file download bookkeeping (ETags).
/// Stored as JSON in two copies (`DeliveryStateStore`), each written atomically.
struct DeliveryState: Codable, Equatable {
    struct Applied: Codable, Equatable {
        /// The highest version ever applied on this device.
        var version: Int
        /// `SignedPatch.digest` of that version: the same signed patch may be applied again, no other.
        var digest: String
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
        revocationSequence = max(revocationSequence ?? list.sequence, list.sequence)
        let issued = Int(list.issued.timeIntervalSince1970)
        if issued >= revocationIssued ?? .min {
            revocationIssued = issued
            revocationExpires = list.expires.map { Int($0.timeIntervalSince1970) }
        }
    }
}
