import Foundation
import PatchFormat

/// The keys the release service holds online, for the two roles TUF keeps online: snapshot (which
/// versions of targets and channels belong together) and timestamp (freshness). The root the
/// publisher signed names them; every other key stays with the publisher.
public struct OnlineKeys: Sendable {
    public var keys: [SigningKey]
    /// How long a timestamp the service signs is valid: a device that cannot reach the service
    /// for longer stops taking updates, and a revocation reaches every device within it.
    public var timestampExpiry: TimeInterval
    public var snapshotExpiry: TimeInterval

    public init(keys: [SigningKey], timestampExpiry: TimeInterval = 86_400, snapshotExpiry: TimeInterval = 7 * 86_400) {
        self.keys = keys
        self.timestampExpiry = timestampExpiry
        self.snapshotExpiry = snapshotExpiry
    }

    /// Whether these keys reach the threshold of both online roles of `root`.
    public func canSign(for root: Root) -> Bool {
        ["snapshot", "timestamp"].allSatisfy { role in
            guard let delegated = root.roles[role] else { return false }
            return Int64(Set(keys.map(\.keyID)).intersection(delegated.keyids).count) >= delegated.threshold
        }
    }

    /// A new timestamp (and, when `newSnapshot` or there is none yet, a new snapshot naming the
    /// current version, length and SHA-256 of targets and every delegated role) for `state`;
    /// updates `state` and returns the files to store. The snapshot never drops a role it listed
    /// before (devices refuse a snapshot that does): a role no longer hosted keeps its last entry.
    public func sign(_ state: inout HostedRepository, newSnapshot: Bool, now: Date) throws -> [StoredMetadata] {
        let root = state.root.signed
        func signed<R: RoleMetadata>(_ role: R, _ name: String) throws -> HeldMetadata<R> {
            var metadata = try Metadata(signed: role)
            let delegated = root.roles[name]?.keyids ?? []
            for key in keys where delegated.contains(key.keyID) { try metadata.sign(with: key) }
            return try HeldMetadata(metadata)
        }
        guard canSign(for: root) else {
            throw UploadRefusal(.onlineKeysRemoved, "root \(state.root.version) does not let this service's keys sign snapshot and timestamp")
        }
        guard let targets = state.targets else { throw UploadRefusal(.missing, "no targets metadata to sign a snapshot for") }
        var out: [StoredMetadata] = []
        if newSnapshot || state.snapshot == nil {
            var meta = state.snapshot?.signed.meta ?? [:]
            meta["targets.json"] = MetaFile(pinning: targets)
            for (name, role) in state.delegated { meta["\(name).json"] = MetaFile(pinning: role) }
            let snapshot = try signed(Snapshot(common: CommonFields(version: (state.snapshot?.version ?? 0) + 1,
                                                                   expires: now.addingTimeInterval(snapshotExpiry)), meta: meta), "snapshot")
            state.snapshot = snapshot
            out.append(StoredMetadata(role: "snapshot", version: snapshot.version, data: snapshot.data))
        }
        let snapshot = state.snapshot!
        let info = MetaFile(pinning: snapshot)
        let timestamp = try signed(Timestamp(common: CommonFields(version: (state.timestamp?.version ?? 0) + 1,
                                                                  expires: now.addingTimeInterval(timestampExpiry)), snapshotMeta: info), "timestamp")
        state.timestamp = timestamp
        out.append(StoredMetadata(role: "timestamp", version: timestamp.version, data: timestamp.data))
        return out
    }

    /// Whether `state`'s timestamp (or snapshot) has run through half its validity: the service
    /// re-signs it then, so devices never see it expire while the service runs.
    public func needsRenewal(_ state: HostedRepository, now: Date) -> (timestamp: Bool, snapshot: Bool) {
        guard let timestamp = state.timestamp, let snapshot = state.snapshot else { return (false, false) }
        let snapshotDue = snapshot.signed.common.expires.timeIntervalSince(now) < snapshotExpiry / 2
        let timestampDue = timestamp.signed.common.expires.timeIntervalSince(now) < timestampExpiry / 2
        return (timestampDue || snapshotDue, snapshotDue)
    }
}

extension MetaFile {
    /// What a snapshot says of `role`: its version, and the length and SHA-256 of the exact bytes
    /// served, so a device refuses any other content under that version (spec §5.6.2).
    init<R: RoleMetadata>(pinning role: HeldMetadata<R>) {
        self.init(version: role.version, length: Int64(role.data.count), hashes: ["sha256": role.data.sha256HexDigest])
    }
}
