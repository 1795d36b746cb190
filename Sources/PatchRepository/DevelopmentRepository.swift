import Foundation
import PatchFormat
import PatchUpdater

/// The live QA loop's own TUF repository (`patchctl dev`): its own root, targets, snapshot,
/// timestamp and `development` channel keys, every one a development key
/// (`PublicKey.isDevelopment`), so a production `PatchClient` refuses its root and a
/// `DevelopmentSession` refuses every other root. Each published version is a new version of the
/// channel role listing the version's scripts (`development/<script>`, each with a
/// `PatchRelease` naming the version), with snapshot and timestamp re-signed; everything but
/// root expires within hours (`renewIfNeeded` re-signs before that).
///
/// Folder layout (made on first use, 0700; key files 0600):
///
///     keys/<role>.key      the five private keys
///     repository/          the `Repository` record
///     dev-root.json        the current root: what a development build ships with
public struct DevelopmentRepository {
    /// The channel role the versions are published in.
    public static let channel = "development"
    /// Validity of the targets, channel, snapshot and timestamp metadata.
    public static let shortExpiry: TimeInterval = 12 * 3600
    /// Validity of root (renewed when less than `rootRenewal` is left).
    public static let rootExpiry: TimeInterval = 365 * 86_400
    static let rootRenewal: TimeInterval = 30 * 86_400
    static let roles = ["root", "targets", "snapshot", "timestamp", channel]

    public let folder: URL
    public private(set) var repository: Repository
    private let keys: [SigningKey]

    public var rootFileURL: URL { folder.appendingPathComponent("dev-root.json") }
    /// The current root's bytes (what `dev-root.json` holds).
    public var rootData: Data { get throws { try repository.root.serialized() } }

    /// Opens the development repository in `folder`, or creates it (keys, record, root file) when
    /// the folder holds none. `created` tells which. Metadata about to expire is renewed.
    public static func openOrCreate(in folder: URL, now: Date = Date()) throws -> (repository: DevelopmentRepository, created: Bool) {
        let fm = FileManager.default
        let keyFolder = folder.appendingPathComponent("keys"), record = folder.appendingPathComponent("repository")
        var created = false
        if !fm.fileExists(atPath: record.appendingPathComponent("repository.json").path) {
            try fm.createDirectory(at: keyFolder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try? fm.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder.path)
            var made: [String: SigningKey] = [:]
            for role in roles {
                let key = try SigningKey.generate(.ed25519).forDevelopment
                try KeyFile.write(key, to: keyFolder.appendingPathComponent("\(role).key"))
                made[role] = key
            }
            let settings = RepositorySettings(channels: [channel], rootExpiry: rootExpiry, targetsExpiry: shortExpiry,
                                              snapshotExpiry: shortExpiry, timestampExpiry: shortExpiry)
            _ = try Repository.create(directory: record, settings: settings, keys: InitialKeys(
                root: [made["root"]!], rootThreshold: 1, targets: [made["targets"]!], snapshot: made["snapshot"]!,
                timestamp: made["timestamp"]!, channels: [channel: made[channel]!]), now: now)
            created = true
        }
        let keys = try KeyFile.readAll(in: keyFolder)
        guard !keys.isEmpty, keys.allSatisfy(\.isDevelopment) else {
            throw RepositoryError("\(keyFolder.path) must hold the development repository's keys, development keys only")
        }
        var development = DevelopmentRepository(folder: folder, repository: try Repository(directory: record), keys: keys)
        if let role = development.repository.root.signed.firstRoleTrustingReleaseKey {
            throw RepositoryError("\(record.path): its root trusts a release key for \(role); a development repository trusts development keys only")
        }
        try development.renewIfNeeded(now: now)
        return (development, created)
    }

    private init(folder: URL, repository: Repository, keys: [SigningKey]) {
        self.folder = folder
        self.repository = repository
        self.keys = keys
    }

    /// The version the channel lists now (nil before the first `publish`).
    public var currentVersion: Int? {
        (try? repository.releases(in: Self.channel))?.compactMap { $0.release?.version }.max()
    }

    /// Publishes `scripts` (name → content, applied in name order) as the next version: the
    /// channel lists exactly these scripts afterwards. Returns the version.
    @discardableResult
    public mutating func publish(scripts: [(name: String, content: Data)], patchID: String, app: String,
                                 appVersions: AppVersionRange?, now: Date = Date()) throws -> Int {
        guard !scripts.isEmpty else { throw RepositoryError("a development version needs at least one script") }
        let version = (currentVersion ?? 0) + 1
        var listed: [String: TargetFile] = [:]
        for (name, content) in scripts {
            try Repository.validateName(name)
            let file = TargetFile(data: content, custom: PatchRelease(app: app, patchID: patchID, version: version, appVersions: appVersions).custom)
            try repository.storeContent(content, file: file)
            listed[Repository.targetPath(name, channel: Self.channel)] = file
        }
        try repository.edit(Self.channel, keys: keys, now: now) { $0.targets = listed }
        return version
    }

    /// Re-signs what expires soon: root when less than 30 days are left, the other roles when
    /// less than half their validity is. Writes `dev-root.json` when root changed or it is missing.
    public mutating func renewIfNeeded(now: Date = Date()) throws {
        var rootChanged = false
        if repository.root.signed.common.expires < now.addingTimeInterval(Self.rootRenewal) {
            try repository.editRoot(keys: keys, now: now) { _ in }
            rootChanged = true
        }
        let soon = now.addingTimeInterval(Self.shortExpiry / 2)
        let expiries = [repository.targets.signed.common.expires, repository.channels[Self.channel]!.signed.common.expires,
                        repository.snapshot.signed.common.expires, repository.timestamp.signed.common.expires]
        if expiries.contains(where: { $0 < soon }) {
            try repository.edit("targets", keys: keys, now: now) { _ in }
            try repository.edit(Self.channel, keys: keys, now: now) { _ in }
        }
        if rootChanged || !FileManager.default.fileExists(atPath: rootFileURL.path) {
            try AtomicFile.write(try rootData, to: rootFileURL)
            try? FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: rootFileURL.path)
        }
    }

    /// Writes the static tree devices read (`metadata/`, `targets/`; `Repository.publish(to:)`).
    public func write(to out: URL) throws { try repository.publish(to: out) }
}
