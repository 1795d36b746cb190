import Foundation
import PatchFormat
import PatchUpdater

/// The outcome of an edit: committed to the record (and snapshot and timestamp re-signed), or
/// staged until more key holders sign it (`sign`, `merge`).
public enum EditOutcome: Equatable, CustomStringConvertible {
    case committed(role: String, version: Int64)
    case staged(role: String, version: Int64, file: String)

    public var description: String {
        switch self {
        case .committed(let role, let version): return "\(role) version \(version) signed and recorded"
        case .staged(let role, let version, let file):
            return "\(role) version \(version) staged in \(file): more signatures needed (patchctl repo sign / merge)"
        }
    }
}

/// The keys a repository starts with.
public struct InitialKeys {
    public var root: [SigningKey]
    public var rootThreshold: Int64
    public var targets: [SigningKey]
    public var snapshot: SigningKey
    public var timestamp: SigningKey
    /// One key per channel (threshold 1), in `settings.channels` order.
    public var channels: [String: SigningKey]

    public init(root: [SigningKey], rootThreshold: Int64, targets: [SigningKey], snapshot: SigningKey, timestamp: SigningKey, channels: [String: SigningKey]) {
        self.root = root
        self.rootThreshold = rootThreshold
        self.targets = targets
        self.snapshot = snapshot
        self.timestamp = timestamp
        self.channels = channels
    }
}

extension Repository {
    /// Creates a repository in `directory`: root version 1 (signed by every root key), targets
    /// delegating `<channel>/*` to each channel role (terminating), empty channels, snapshot and
    /// timestamp.
    public static func create(directory: URL, settings: RepositorySettings, keys: InitialKeys, now: Date = Date()) throws -> Repository {
        guard !FileManager.default.fileExists(atPath: settingsURL(directory).path) else {
            throw RepositoryError("\(directory.path) already holds a repository")
        }
        for channel in settings.channels { try RepositorySettings.validateChannel(channel) }
        guard Set(settings.channels).count == settings.channels.count else { throw RepositoryError("a channel is named twice") }
        guard keys.rootThreshold >= 1, Int64(keys.root.count) >= keys.rootThreshold else {
            throw RepositoryError("root threshold \(keys.rootThreshold) needs at least that many root keys")
        }
        func expires(_ role: String) -> Date { now.addingTimeInterval(settings.expiry(for: role)) }
        var root = Root(common: CommonFields(expires: expires("root")), keys: [:],
                        roles: Dictionary(uniqueKeysWithValues: Root.topLevelRoles.map { ($0, RoleKeys(keyids: [], threshold: 1)) }))
        for key in keys.root { root.add(key: key.publicKey, to: "root") }
        root.roles["root"]!.threshold = keys.rootThreshold
        for key in keys.targets { root.add(key: key.publicKey, to: "targets") }
        root.add(key: keys.snapshot.publicKey, to: "snapshot")
        root.add(key: keys.timestamp.publicKey, to: "timestamp")

        var delegationKeys: [String: PublicKey] = [:]
        var roles: [DelegatedRole] = []
        for channel in settings.channels {
            guard let key = keys.channels[channel] else { throw RepositoryError("no key for channel \(channel)") }
            delegationKeys[key.keyID] = key.publicKey
            roles.append(DelegatedRole(name: channel, keyids: [key.keyID], threshold: 1, terminating: true, paths: ["\(channel)/*"]))
        }
        let targets = Targets(common: CommonFields(expires: expires("targets")), delegations: Delegations(keys: delegationKeys, roles: roles))
        try checkKeyKinds(root: root, delegations: targets.delegations)

        let fm = FileManager.default
        try fm.createDirectory(at: directory, withIntermediateDirectories: true)
        try AtomicFile.write(try JSONEncoder().encode(settings), to: settingsURL(directory))
        let all = keys.root + keys.targets + [keys.snapshot, keys.timestamp] + Array(keys.channels.values)
        var rootMetadata = try Metadata(signed: root)
        for key in keys.root { try rootMetadata.sign(with: key) }
        try AtomicFile.write(try rootMetadata.serialized(), to: directory.appendingPathComponent("record/root/1.root.json"))
        var repository = Repository(uncheckedDirectory: directory, settings: settings, root: rootMetadata)
        try repository.commitTargets(targets, role: "targets", keys: all, now: now, reSign: false)
        for channel in settings.channels {
            try repository.commitTargets(Targets(common: CommonFields(expires: expires(channel))), role: channel, keys: all, now: now, reSign: false)
        }
        try repository.reSignSnapshotAndTimestamp(keys: all, now: now)
        return try Repository(directory: directory)
    }

    // MARK: edits

    /// Edits a channel role (or "targets"), starting from the recorded version: version + 1,
    /// fresh expiry, signed with the role's keys found in `keys`. With a threshold of signatures
    /// it is recorded and snapshot and timestamp are re-signed (their keys must be in `keys`);
    /// otherwise it is staged. `validity`: seconds the new version stays valid (default: the
    /// repository's setting for the role).
    @discardableResult
    public mutating func edit(_ role: String, keys: [SigningKey], validity: TimeInterval? = nil, now: Date = Date(),
                              _ change: (inout Targets) throws -> Void) throws -> EditOutcome {
        guard !FileManager.default.fileExists(atPath: stagedURL(for: role).path) else {
            throw RepositoryError("an edit of \(role) is staged and waits for signatures: sign or merge it first")
        }
        var new = try current(role).signed
        try change(&new)
        if role == "targets" { try Self.checkKeyKinds(root: root.signed, delegations: new.delegations) }
        // Nothing every device would refuse is signed.
        do { try PatchRelease.checkReleases(listedIn: new) } catch { throw RepositoryError("\(role) not signed: \(error)") }
        new.common.version += 1
        new.common.expires = now.addingTimeInterval(validity ?? settings.expiry(for: role))
        var metadata = try Metadata(signed: new)
        for key in keys where try roleKeys(role).keyids.contains(key.keyID) { try metadata.sign(with: key) }
        return try finish(metadata, role: role, keys: keys, now: now)
    }

    /// A new root version made by `change` (keys rotated, thresholds changed), signed with the
    /// old and new root keys found in `keys`; recorded once a threshold of both signed it. Roles
    /// whose keys changed are re-signed with their new keys when those are in `keys`.
    @discardableResult
    public mutating func editRoot(keys: [SigningKey], validity: TimeInterval? = nil, now: Date = Date(),
                                  _ change: (inout Root) throws -> Void) throws -> EditOutcome {
        guard !FileManager.default.fileExists(atPath: stagedURL(for: "root").path) else {
            throw RepositoryError("a new root is staged and waits for signatures: sign or merge it first")
        }
        var new = root.signed
        try change(&new)
        try Self.checkKeyKinds(root: new, delegations: targets.signed.delegations)
        new.common.version += 1
        new.common.expires = now.addingTimeInterval(validity ?? settings.rootExpiry)
        var metadata = try Metadata(signed: new)
        let signers = Set(root.signed.roles["root"]!.keyids + new.roles["root"]!.keyids)
        for key in keys where signers.contains(key.keyID) { try metadata.sign(with: key) }
        return try finishRoot(metadata, keys: keys, now: now)
    }

    /// Re-signs `role` (root, targets or a channel) unchanged as its next version, valid for
    /// `validity` seconds (default: the repository's setting): what keeps a role that has nothing
    /// new from expiring on devices.
    @discardableResult
    public mutating func renew(_ role: String, keys: [SigningKey], validity: TimeInterval? = nil, now: Date = Date()) throws -> EditOutcome {
        if let validity, !(validity > 0) { throw RepositoryError("a validity period must be a positive number of seconds") }
        if role == "root" { return try editRoot(keys: keys, validity: validity, now: now) { _ in } }
        guard role == "targets" || settings.channels.contains(role) else {
            throw RepositoryError("\(role) is not renewed by the publisher: root, targets or a channel (\(settings.channels.joined(separator: ", ")))")
        }
        return try edit(role, keys: keys, validity: validity, now: now) { _ in }
    }

    /// Adds signatures by `keys` to the staged edit of `role`; records it once the threshold is met.
    @discardableResult
    public mutating func signStaged(_ role: String, keys: [SigningKey], now: Date = Date()) throws -> EditOutcome {
        let staged = try stagedMetadataSigned(role, keys: keys)
        return try role == "root" ? finishRoot(staged.root!, keys: keys, now: now) : finish(staged.targets!, role: role, keys: keys, now: now)
    }

    /// Adds the signatures in `file` (the staged file as another key holder signed it) to the
    /// staged edit of `role`. The signed content must be byte for byte the staged one.
    @discardableResult
    public mutating func merge(_ role: String, signedFile data: Data, keys: [SigningKey] = [], now: Date = Date()) throws -> EditOutcome {
        let stagedData = try Self.read(stagedURL(for: role), what: "staged \(role)")
        if role == "root" {
            var staged = try Metadata<Root>(data: stagedData)
            let other = try Metadata<Root>(data: data)
            guard other.signedBytes == staged.signedBytes else { throw RepositoryError("the file signs other content than the staged root") }
            staged.merge(signatures: other.signatures)
            return try finishRoot(staged, keys: keys, now: now)
        }
        var staged = try Metadata<Targets>(data: stagedData, name: role)
        let other = try Metadata<Targets>(data: data, name: role)
        guard other.signedBytes == staged.signedBytes else { throw RepositoryError("the file signs other content than the staged \(role)") }
        staged.merge(signatures: other.signatures)
        return try finish(staged, role: role, keys: keys, now: now)
    }

    /// A new timestamp version (the online key re-signs it before it expires; nothing else changes).
    public mutating func refreshTimestamp(keys: [SigningKey], now: Date = Date()) throws {
        var new = timestamp.signed
        new.common.version += 1
        new.common.expires = now.addingTimeInterval(settings.timestampExpiry)
        timestamp = try signed(new, role: "timestamp", keys: keys)
        try write(try timestamp.serialized(), to: roleURL("timestamp"))
    }

    // MARK: internals

    private init(uncheckedDirectory directory: URL, settings: RepositorySettings, root: Metadata<Root>) {
        self.directory = directory
        self.settings = settings
        self.roots = [root]
        let placeholder = CommonFields(version: 0, expires: Date())
        self.targets = try! Metadata(signed: Targets(common: placeholder))
        self.channels = [:]
        self.snapshot = try! Metadata(signed: Snapshot(common: placeholder, meta: [:]))
        self.timestamp = try! Metadata(signed: Timestamp(common: placeholder, snapshotMeta: MetaFile(version: 1)))
    }

    func current(_ role: String) throws -> Metadata<Targets> {
        if role == "targets" { return targets }
        guard let channel = channels[role] else { throw RepositoryError("no channel \(role) (channels: \(settings.channels.joined(separator: ", ")))") }
        return channel
    }

    func roleKeys(_ role: String) throws -> (keys: [String: PublicKey], keyids: [String], threshold: Int64) {
        if Root.topLevelRoles.contains(role) {
            let r = root.signed.roles[role]!
            return (root.signed.keys, r.keyids, r.threshold)
        }
        guard let delegations = targets.signed.delegations, let r = delegations.keys(for: role) else {
            throw RepositoryError("targets delegates no role \(role)")
        }
        return (delegations.keys, r.keyids, r.threshold)
    }

    private func signed<R: RoleMetadata>(_ role: R, role name: String, keys: [SigningKey]) throws -> Metadata<R> {
        var metadata = try Metadata(signed: role)
        let delegated = try roleKeys(name)
        for key in keys where delegated.keyids.contains(key.keyID) { try metadata.sign(with: key) }
        guard ThresholdCheck.isMet(keys: delegated.keys, keyids: delegated.keyids, threshold: delegated.threshold,
                                   signatures: metadata.signatures, bytes: metadata.signedBytes) else {
            throw RepositoryError("\(name) needs \(delegated.threshold) of its keys; give their key files")
        }
        return metadata
    }

    private mutating func finish(_ metadata: Metadata<Targets>, role: String, keys: [SigningKey], now: Date) throws -> EditOutcome {
        let delegated = try roleKeys(role)
        guard ThresholdCheck.isMet(keys: delegated.keys, keyids: delegated.keyids, threshold: delegated.threshold,
                                   signatures: metadata.signatures, bytes: metadata.signedBytes) else {
            try write(try metadata.serialized(), to: stagedURL(for: role))
            return .staged(role: role, version: metadata.signed.common.version, file: stagedURL(for: role).path)
        }
        // A channel whose keys the new targets metadata changed is re-signed with its new keys
        // in the same step (all signed before anything is recorded).
        var channelUpdates: [(String, Metadata<Targets>)] = []
        if role == "targets", let delegations = metadata.signed.delegations {
            for channel in settings.channels {
                let before = targets.signed.delegations?.keys(for: channel), after = delegations.keys(for: channel)
                guard let after, before.map({ Set($0.keyids) != Set(after.keyids) || $0.threshold != after.threshold }) ?? true else { continue }
                var signed = channels[channel]!.signed
                signed.common.version += 1
                signed.common.expires = now.addingTimeInterval(settings.targetsExpiry)
                var channelMetadata = try Metadata(signed: signed)
                for key in keys where after.keyids.contains(key.keyID) { try channelMetadata.sign(with: key) }
                guard ThresholdCheck.isMet(keys: delegations.keys, keyids: after.keyids, threshold: after.threshold,
                                           signatures: channelMetadata.signatures, bytes: channelMetadata.signedBytes) else {
                    throw RepositoryError("channel \(channel) gets new keys: give a threshold of its new key files to re-sign it")
                }
                channelUpdates.append((channel, channelMetadata))
            }
        }
        try record(metadata, role: role)
        for (channel, channelMetadata) in channelUpdates { try record(channelMetadata, role: channel) }
        try reSignSnapshotAndTimestamp(keys: keys, now: now)
        try? FileManager.default.removeItem(at: stagedURL(for: role))
        return .committed(role: role, version: metadata.signed.common.version)
    }

    private mutating func finishRoot(_ metadata: Metadata<Root>, keys: [SigningKey], now: Date) throws -> EditOutcome {
        do { try Self.checkRootSignatures(metadata, previous: root) } catch {
            try write(try metadata.serialized(), to: stagedURL(for: "root"))
            return .staged(role: "root", version: metadata.signed.common.version, file: stagedURL(for: "root").path)
        }
        let old = root.signed
        try write(try metadata.serialized(), to: rootURL(metadata.signed.common.version))
        roots.append(metadata)
        try? FileManager.default.removeItem(at: stagedURL(for: "root"))
        if old.roles["targets"] != metadata.signed.roles["targets"] {
            try commitTargets(targets.signed, role: "targets", keys: keys, now: now, reSign: true)
        }
        try reSignSnapshotAndTimestamp(keys: keys, now: now)
        return .committed(role: "root", version: metadata.signed.common.version)
    }

    /// Records `role` as `signed` (version bumped when `reSign`), which must reach its threshold.
    mutating func commitTargets(_ signed: Targets, role: String, keys: [SigningKey], now: Date, reSign: Bool) throws {
        var new = signed
        if reSign {
            new.common.version += 1
            new.common.expires = now.addingTimeInterval(settings.expiry(for: role))
        }
        try record(try self.signed(new, role: role, keys: keys), role: role)
    }

    private mutating func record(_ metadata: Metadata<Targets>, role: String) throws {
        try write(try metadata.serialized(), to: roleURL(role))
        if role == "targets" { targets = metadata } else { channels[role] = metadata }
    }

    mutating func reSignSnapshotAndTimestamp(keys: [SigningKey], now: Date) throws {
        var meta: [String: MetaFile] = ["targets.json": MetaFile(version: targets.signed.common.version)]
        for channel in settings.channels { meta["\(channel).json"] = MetaFile(version: channels[channel]!.signed.common.version) }
        let snapshotVersion = snapshot.signed.common.version + 1
        let newSnapshot = try signed(Snapshot(common: CommonFields(version: snapshotVersion, expires: now.addingTimeInterval(settings.snapshotExpiry)), meta: meta),
                                     role: "snapshot", keys: keys)
        let snapshotData = try newSnapshot.serialized()
        let info = MetaFile(version: snapshotVersion, length: Int64(snapshotData.count), hashes: ["sha256": HashCheck.digest("sha256", of: snapshotData)!])
        let newTimestamp = try signed(Timestamp(common: CommonFields(version: timestamp.signed.common.version + 1,
                                                                     expires: now.addingTimeInterval(settings.timestampExpiry)),
                                                snapshotMeta: info), role: "timestamp", keys: keys)
        try write(snapshotData, to: roleURL("snapshot"))
        try write(try newTimestamp.serialized(), to: roleURL("timestamp"))
        snapshot = newSnapshot
        timestamp = newTimestamp
    }

    private struct Staged {
        var root: Metadata<Root>?
        var targets: Metadata<Targets>?
    }

    private func stagedMetadataSigned(_ role: String, keys: [SigningKey]) throws -> Staged {
        let data = try Self.read(stagedURL(for: role), what: "staged \(role) (nothing is staged for it)")
        if role == "root" {
            var staged = try Metadata<Root>(data: data)
            let signers = Set(root.signed.roles["root"]!.keyids + staged.signed.roles["root"]!.keyids)
            for key in keys where signers.contains(key.keyID) { try staged.sign(with: key) }
            return Staged(root: staged)
        }
        var staged = try Metadata<Targets>(data: data, name: role)
        let delegated = try roleKeys(role)
        for key in keys where delegated.keyids.contains(key.keyID) { try staged.sign(with: key) }
        return Staged(targets: staged)
    }
}
