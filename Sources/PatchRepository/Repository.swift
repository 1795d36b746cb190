import Foundation
import PatchFormat
import PatchUpdater

/// A TUF repository as its publisher keeps it: the publisher's own record of everything it
/// signed, verified whenever it is opened. Every edit starts from this record, never from what
/// a server returns (a server can withhold metadata; it never chooses what an edit builds on).
///
/// Folder layout:
///
///     repository.json          settings (channels, expiry periods)
///     record/root/<n>.root.json   every root version, the chain devices follow
///     record/<role>.json       the latest signed targets, channel, snapshot, timestamp metadata
///     record/staged/<role>.json   an edit signed by fewer keys than the threshold so far
///     targets/<encoded path>   target files
///
/// Roles: root (offline, a threshold of keys), targets (offline: delegates one role per
/// channel), one targets role per channel (the publisher's channel keys), snapshot and timestamp
/// (online keys).
public struct Repository {
    public let directory: URL
    public internal(set) var settings: RepositorySettings
    /// Every root version, oldest first.
    public internal(set) var roots: [Metadata<Root>]
    public internal(set) var targets: Metadata<Targets>
    public internal(set) var channels: [String: Metadata<Targets>]
    public internal(set) var snapshot: Metadata<Snapshot>
    public internal(set) var timestamp: Metadata<Timestamp>

    public var root: Metadata<Root> { roots[roots.count - 1] }

    // MARK: files

    static func settingsURL(_ d: URL) -> URL { d.appendingPathComponent("repository.json") }
    var recordURL: URL { directory.appendingPathComponent("record") }
    var stagedURL: URL { recordURL.appendingPathComponent("staged") }
    var targetsURL: URL { directory.appendingPathComponent("targets") }
    func rootURL(_ version: Int64) -> URL { recordURL.appendingPathComponent("root/\(version).root.json") }
    func roleURL(_ role: String) -> URL { recordURL.appendingPathComponent("\(role).json") }
    public func stagedURL(for role: String) -> URL { stagedURL.appendingPathComponent("\(role).json") }

    // MARK: opening

    /// Opens the repository in `directory`, verifying the whole record: the root chain from
    /// version 1 (each version signed by a threshold of the previous and of its own root keys),
    /// every role signed by a threshold of its delegator's keys, versions consistent with
    /// snapshot and timestamp. A record that fails is refused, not repaired.
    public init(directory: URL) throws {
        self.directory = directory
        let settingsData = try Self.read(Self.settingsURL(directory), what: "repository settings")
        do { settings = try JSONDecoder().decode(RepositorySettings.self, from: settingsData) } catch {
            throw RepositoryError("\(Self.settingsURL(directory).path): \(error)")
        }
        var roots: [Metadata<Root>] = []
        var version: Int64 = 1
        while FileManager.default.fileExists(atPath: directory.appendingPathComponent("record/root/\(version).root.json").path) {
            let root = try Metadata<Root>(data: Self.read(directory.appendingPathComponent("record/root/\(version).root.json"), what: "root \(version)"))
            guard root.signed.common.version == version else { throw RepositoryError("record: root \(version) holds version \(root.signed.common.version)") }
            try Self.checkRootSignatures(root, previous: roots.last)
            roots.append(root)
            version += 1
        }
        guard !roots.isEmpty else { throw RepositoryError("\(directory.path) holds no repository record (run `patchctl repo init`)") }
        self.roots = roots
        let root = roots[roots.count - 1].signed
        func load<R>(_ role: String, _ type: R.Type) throws -> Metadata<R> {
            try Metadata<R>(data: Self.read(directory.appendingPathComponent("record/\(role).json"), what: role), name: role)
        }
        targets = try load("targets", Targets.self)
        try Self.check(targets, role: "targets", keys: root.keys, roleKeys: root.roles["targets"])
        var channels: [String: Metadata<Targets>] = [:]
        for channel in settings.channels {
            let metadata = try load(channel, Targets.self)
            try Self.check(metadata, role: channel, keys: targets.signed.delegations?.keys ?? [:],
                           roleKeys: targets.signed.delegations?.keys(for: channel).map { RoleKeys(keyids: $0.keyids, threshold: $0.threshold) })
            channels[channel] = metadata
        }
        self.channels = channels
        snapshot = try load("snapshot", Snapshot.self)
        try Self.check(snapshot, role: "snapshot", keys: root.keys, roleKeys: root.roles["snapshot"])
        timestamp = try load("timestamp", Timestamp.self)
        try Self.check(timestamp, role: "timestamp", keys: root.keys, roleKeys: root.roles["timestamp"])
        guard snapshot.signed.meta["targets.json"]?.version == targets.signed.common.version,
              settings.channels.allSatisfy({ snapshot.signed.meta["\($0).json"]?.version == channels[$0]!.signed.common.version }),
              timestamp.signed.snapshotMeta.version == snapshot.signed.common.version else {
            throw RepositoryError("record: snapshot and timestamp do not name the recorded versions")
        }
    }

    static func checkRootSignatures(_ root: Metadata<Root>, previous: Metadata<Root>?) throws {
        for signer in [previous, root].compactMap({ $0 }) {
            guard let role = signer.signed.roles["root"],
                  ThresholdCheck.isMet(keys: signer.signed.keys, keyids: role.keyids, threshold: role.threshold,
                                       signatures: root.signatures, bytes: root.signedBytes) else {
                throw RepositoryError("root \(root.signed.common.version) is not signed by a threshold of root \(signer.signed.common.version)'s keys")
            }
        }
    }

    static func check<R>(_ metadata: Metadata<R>, role: String, keys: [String: PublicKey], roleKeys: RoleKeys?) throws {
        guard let roleKeys else { throw RepositoryError("record: no keys are delegated for \(role)") }
        guard ThresholdCheck.isMet(keys: keys, keyids: roleKeys.keyids, threshold: roleKeys.threshold,
                                   signatures: metadata.signatures, bytes: metadata.signedBytes) else {
            throw RepositoryError("record: \(role) is not signed by a threshold of its keys")
        }
    }

    static func read(_ url: URL, what: String) throws -> Data {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw RepositoryError("cannot read \(what) (\(url.path))")
        }
        return data
    }

    func write(_ data: Data, to url: URL) throws {
        try AtomicFile.write(data, to: url)
    }
}
