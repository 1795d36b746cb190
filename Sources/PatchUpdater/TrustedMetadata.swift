import Foundation
import PatchFormat

/// The metadata a client trusts, and every check the specification's client workflow (§5)
/// makes before trusting more. No input/output: `Updater` feeds it bytes in workflow order and
/// persists what it accepts.
///
/// Checks, in the order each update makes them:
/// - root (§5.3): signed by a threshold of the trusted root's root keys and of its own, version
///   exactly one more; only before timestamp is loaded.
/// - timestamp (§5.4): final root not expired; signed by root's timestamp keys; version not lower
///   than the trusted one (equal: kept, `equalVersion`), snapshot version not lower; then expiry.
/// - snapshot (§5.5): timestamp not expired; length and hashes from timestamp (except for the
///   copy on disk, already checked when it was stored); signed by root's snapshot keys; every
///   file the trusted snapshot lists still listed, none with a lower version; then expiry and the
///   version timestamp names.
/// - targets, top-level and delegated (§5.6): snapshot final (not expired, the version timestamp
///   names); the role listed in snapshot; length and hashes from snapshot; signed by the keys the
///   delegator gives the role; the version snapshot names; not expired.
///
/// Metadata that fails a check after it was read is still kept as the reference for rollback
/// checks where the specification says so (an expired timestamp or snapshot on disk).
public struct TrustedMetadata: Sendable {
    public private(set) var root: Metadata<Root>
    public private(set) var timestamp: Metadata<Timestamp>?
    public private(set) var snapshot: Metadata<Snapshot>?
    /// Verified targets metadata, keyed by delegator and role: a role reached through two
    /// delegators is verified against each (a role verified once must not lend that authority to
    /// another path to it).
    private var targets: [DelegationKey: Metadata<Targets>] = [:]
    /// The time expiry is checked against (fixed for one refresh).
    public let now: Date

    struct DelegationKey: Hashable, Sendable {
        var delegator: String
        var role: String
    }

    /// Starts from the trusted root on disk. It must be signed by a threshold of its own root keys
    /// (it may be expired: a newer root will be looked for).
    public init(rootData: Data, now: Date) throws {
        let root: Metadata<Root>
        do { root = try Metadata<Root>(data: rootData) } catch {
            throw UpdaterError.localState("trusted root: \(error)")
        }
        guard let role = root.signed.roles["root"],
              ThresholdCheck.isMet(keys: root.signed.keys, keyids: role.keyids, threshold: role.threshold,
                                   signatures: root.signatures, bytes: root.signedBytes) else {
            throw UpdaterError.localState("trusted root is not signed by a threshold of its own root keys")
        }
        self.root = root
        self.now = now
    }

    /// The targets metadata verified for `role` as delegated by `delegator` ("root" for the
    /// top-level targets role).
    public func targets(_ role: String, delegator: String) -> Metadata<Targets>? {
        targets[DelegationKey(delegator: delegator, role: role)]
    }

    /// The earliest expiry of the metadata trusted so far (root, timestamp, snapshot and every
    /// targets role loaded): until then it can be shown fresh.
    public var freshUntil: Date {
        var dates = [root.signed.common.expires]
        if let timestamp { dates.append(timestamp.signed.common.expires) }
        if let snapshot { dates.append(snapshot.signed.common.expires) }
        dates += targets.values.map(\.signed.common.expires)
        return dates.min()!
    }

    // MARK: root

    /// Accepts `data` as the next root (spec §5.3.4–5.3.8).
    public mutating func updateRoot(_ data: Data) throws {
        precondition(timestamp == nil, "root is updated before timestamp is loaded")
        let new = try parse(Metadata<Root>.self, data, role: "root")
        guard let oldRole = root.signed.roles["root"],
              ThresholdCheck.isMet(keys: root.signed.keys, keyids: oldRole.keyids, threshold: oldRole.threshold,
                                   signatures: new.signatures, bytes: new.signedBytes) else {
            throw UpdaterError.unsigned(role: "root", reason: "version \(new.signed.common.version) is not signed by a threshold of the trusted root's keys")
        }
        guard let newRole = new.signed.roles["root"],
              ThresholdCheck.isMet(keys: new.signed.keys, keyids: newRole.keyids, threshold: newRole.threshold,
                                   signatures: new.signatures, bytes: new.signedBytes) else {
            throw UpdaterError.unsigned(role: "root", reason: "version \(new.signed.common.version) is not signed by a threshold of its own keys")
        }
        let (expected, overflow) = root.signed.common.version.addingReportingOverflow(1)
        guard !overflow, new.signed.common.version == expected else {
            throw UpdaterError.badVersion(role: "root", reason: overflow ? "no version follows \(root.signed.common.version)"
                                          : "found \(new.signed.common.version), expected \(expected)")
        }
        root = new
    }

    /// Throws if the final root has expired (spec §5.3.10).
    public func checkFinalRoot() throws {
        if root.signed.common.isExpired(at: now) { throw UpdaterError.expired(role: "root") }
    }

    // MARK: timestamp

    /// Accepts `data` as timestamp (spec §5.4). Throws `equalVersion` for the version already
    /// trusted (the trusted one stays), `expired` after keeping an expired one as the rollback
    /// reference.
    public mutating func updateTimestamp(_ data: Data) throws {
        precondition(snapshot == nil, "timestamp is updated before snapshot is loaded")
        try checkFinalRoot()
        let new = try parse(Metadata<Timestamp>.self, data, role: "timestamp")
        try verify(new.signatures, new.signedBytes, role: "timestamp", delegatorKeys: root.signed.keys, root.signed.roles["timestamp"])
        if let old = timestamp {
            let oldVersion = old.signed.common.version, newVersion = new.signed.common.version
            if newVersion < oldVersion {
                throw UpdaterError.badVersion(role: "timestamp", reason: "version \(newVersion) is lower than the trusted \(oldVersion)")
            }
            if newVersion == oldVersion { throw UpdaterError.equalVersion(role: "timestamp") }
            let oldSnapshot = old.signed.snapshotMeta.version, newSnapshot = new.signed.snapshotMeta.version
            if newSnapshot < oldSnapshot {
                throw UpdaterError.badVersion(role: "snapshot", reason: "timestamp names version \(newSnapshot), lower than the trusted \(oldSnapshot)")
            }
        }
        timestamp = new
        try checkFinalTimestamp()
    }

    func checkFinalTimestamp() throws {
        guard let timestamp else { throw UpdaterError.missing(role: "timestamp", reason: "not loaded") }
        if timestamp.signed.common.isExpired(at: now) { throw UpdaterError.expired(role: "timestamp") }
    }

    // MARK: snapshot

    /// Accepts `data` as snapshot (spec §5.5). `fromDisk`: the copy stored earlier, whose length
    /// and hashes were checked when it was stored (they need not match a newer timestamp).
    public mutating func updateSnapshot(_ data: Data, fromDisk: Bool) throws {
        guard let timestamp else { throw UpdaterError.missing(role: "snapshot", reason: "timestamp is not loaded") }
        precondition(targets.isEmpty, "snapshot is updated before targets are loaded")
        try checkFinalTimestamp()
        if !fromDisk {
            do { try timestamp.signed.snapshotMeta.verify(data, what: "snapshot") } catch {
                throw UpdaterError.hashMismatch(role: "snapshot", reason: "\(error)")
            }
        }
        let new = try parse(Metadata<Snapshot>.self, data, role: "snapshot")
        try verify(new.signatures, new.signedBytes, role: "snapshot", delegatorKeys: root.signed.keys, root.signed.roles["snapshot"])
        if let old = snapshot {
            for (name, oldInfo) in old.signed.meta {
                guard let newInfo = new.signed.meta[name] else {
                    throw UpdaterError.badVersion(role: "snapshot", reason: "\(name) is no longer listed")
                }
                if newInfo.version < oldInfo.version {
                    throw UpdaterError.badVersion(role: "snapshot", reason: "\(name) version \(newInfo.version) is lower than the trusted \(oldInfo.version)")
                }
            }
        }
        snapshot = new
        try checkFinalSnapshot()
    }

    /// Throws unless snapshot is loaded, not expired and the version timestamp names.
    public func checkFinalSnapshot() throws {
        guard let snapshot, let timestamp else { throw UpdaterError.missing(role: "snapshot", reason: "not loaded") }
        if snapshot.signed.common.isExpired(at: now) { throw UpdaterError.expired(role: "snapshot") }
        let expected = timestamp.signed.snapshotMeta.version
        guard snapshot.signed.common.version == expected else {
            throw UpdaterError.badVersion(role: "snapshot", reason: "found \(snapshot.signed.common.version), timestamp names \(expected)")
        }
    }

    // MARK: targets

    /// Accepts `data` as the targets metadata of `role`, delegated by `parent` (the verified
    /// metadata of the delegating role and its name; nil for the top-level targets role, which
    /// root delegates) (spec §5.6).
    @discardableResult
    public mutating func updateTargets(_ data: Data, role: String, parent: (name: String, metadata: Metadata<Targets>)?) throws -> Metadata<Targets> {
        try checkFinalSnapshot()
        let keys: [String: PublicKey]
        let roleKeys: (keyids: [String], threshold: Int64)?
        let delegator: String
        if let parent {
            guard let delegations = parent.metadata.signed.delegations else {
                throw UpdaterError.missing(role: role, reason: "\(parent.name) delegates nothing")
            }
            delegator = parent.name
            keys = delegations.keys
            roleKeys = delegations.keys(for: role)
        } else {
            delegator = "root"
            keys = root.signed.keys
            roleKeys = role == "targets" ? root.signed.roles["targets"].map { ($0.keyids, $0.threshold) } : nil
        }
        guard let roleKeys else { throw UpdaterError.missing(role: role, reason: "\(delegator) does not delegate to it") }
        guard let info = snapshot?.signed.meta["\(role).json"] else {
            throw UpdaterError.missing(role: role, reason: "not listed in snapshot")
        }
        do { try info.verify(data, what: role) } catch {
            throw UpdaterError.hashMismatch(role: role, reason: "\(error)")
        }
        let new = try parse(Metadata<Targets>.self, data, role: role)
        let valid = ThresholdCheck.validSigners(keys: keys, keyids: roleKeys.keyids, signatures: new.signatures, bytes: new.signedBytes)
        guard Int64(valid.count) >= roleKeys.threshold else {
            throw UpdaterError.unsigned(role: role, reason: "\(valid.count) valid signatures of \(roleKeys.threshold) required")
        }
        guard new.signed.common.version == info.version else {
            throw UpdaterError.badVersion(role: role, reason: "found \(new.signed.common.version), snapshot names \(info.version)")
        }
        if new.signed.common.isExpired(at: now) { throw UpdaterError.expired(role: role) }
        targets[DelegationKey(delegator: delegator, role: role)] = new
        return new
    }

    // MARK: helpers

    private func parse<Role>(_ type: Metadata<Role>.Type, _ data: Data, role: String) throws -> Metadata<Role> {
        do { return try Metadata<Role>(data: data, name: role) } catch {
            throw UpdaterError.malformed(role: role, reason: "\(error)")
        }
    }

    private func verify(_ signatures: [Signature], _ bytes: Data, role: String, delegatorKeys: [String: PublicKey], _ roleKeys: RoleKeys?) throws {
        guard let roleKeys else { throw UpdaterError.missing(role: role, reason: "root lists no keys for it") }
        let valid = ThresholdCheck.validSigners(keys: delegatorKeys, keyids: roleKeys.keyids, signatures: signatures, bytes: bytes)
        guard Int64(valid.count) >= roleKeys.threshold else {
            throw UpdaterError.unsigned(role: role, reason: "\(valid.count) valid signatures of \(roleKeys.threshold) required")
        }
    }
}
