import Foundation
import PatchFormat
import PatchUpdater

/// Patches as targets of channel roles: a release is the target `<channel>/<name>` in the
/// channel's metadata, its `custom` a `PatchRelease` (app, versions, rollout, targeting,
/// enabled). Every change is an edit of that channel role, signed by the channel's keys.
extension Repository {
    /// The target path of release `name` in `channel`.
    public static func targetPath(_ name: String, channel: String) -> String { "\(channel)/\(name)" }

    /// Adds `content` as release `name` to `channel`.
    @discardableResult
    public mutating func release(_ name: String, content: Data, release: PatchRelease, channel: String,
                                 keys: [SigningKey], now: Date = Date()) throws -> EditOutcome {
        try Self.validateName(name)
        let path = Self.targetPath(name, channel: channel)
        guard try current(channel).signed.targets[path] == nil else {
            throw RepositoryError("\(path) is already released; revoke it first or choose another name")
        }
        let file = TargetFile(data: content, custom: release.custom)
        try storeContent(content, file: file)
        return try edit(channel, keys: keys, now: now) { $0.targets[path] = file }
    }

    /// Copies release `name` from channel `from` to channel `to`, as recorded (and verified) in
    /// this repository, optionally with another rollout. The content is checked against the
    /// source's hashes before the copy is signed.
    @discardableResult
    public mutating func promote(_ name: String, from: String, to: String, rollout: Int? = nil,
                                 keys: [SigningKey], now: Date = Date()) throws -> EditOutcome {
        let source = Self.targetPath(name, channel: from)
        guard let file = try current(from).signed.targets[source], var patch = try PatchRelease(custom: file.custom) else {
            throw RepositoryError("\(from) has no release \(name)")
        }
        _ = try content(of: file, path: source)
        if let rollout { patch.rollout = rollout }
        patch.enabled = true
        var copy = file
        copy.custom = patch.custom
        let path = Self.targetPath(name, channel: to)
        return try edit(to, keys: keys, now: now) { $0.targets[path] = copy }
    }

    /// Changes the release's custom metadata (rollout, enabled, targeting).
    @discardableResult
    public mutating func updateRelease(_ name: String, channel: String, keys: [SigningKey], now: Date = Date(),
                                       _ change: (inout PatchRelease) throws -> Void) throws -> EditOutcome {
        let path = Self.targetPath(name, channel: channel)
        guard var file = try current(channel).signed.targets[path], var patch = try PatchRelease(custom: file.custom) else {
            throw RepositoryError("\(channel) has no release \(name)")
        }
        try change(&patch)
        guard (0...PatchRelease.maxRollout).contains(patch.rollout) else { throw RepositoryError("rollout must be 0 to 100 %") }
        file.custom = patch.custom
        return try edit(channel, keys: keys, now: now) { $0.targets[path] = file }
    }

    /// Removes the release from the channel: devices stop seeing it once the new timestamp
    /// reaches them (at the latest when their trusted timestamp expires).
    @discardableResult
    public mutating func revoke(_ name: String, channel: String, keys: [SigningKey], now: Date = Date()) throws -> EditOutcome {
        let path = Self.targetPath(name, channel: channel)
        guard try current(channel).signed.targets[path] != nil else { throw RepositoryError("\(channel) has no release \(name)") }
        return try edit(channel, keys: keys, now: now) { $0.targets[path] = nil }
    }

    /// The releases of `channel`, by name.
    public func releases(in channel: String) throws -> [(name: String, file: TargetFile, release: PatchRelease?)] {
        try current(channel).signed.targets.sorted { $0.key < $1.key }.map { path, file in
            (String(path.dropFirst(channel.count + 1)), file, try PatchRelease(custom: file.custom))
        }
    }

    /// Writes the static tree a CDN serves: `metadata/` (every root version, the current targets,
    /// channel and snapshot metadata under versioned names, `timestamp.json`) and `targets/`
    /// (each target under `<dir>/<hash>.<name>` for each of its hashes). Devices and python-tuf
    /// read it as is.
    public func publish(to out: URL) throws {
        let metadata = out.appendingPathComponent("metadata"), files = out.appendingPathComponent("targets")
        for root in roots {
            try AtomicFile.write(try root.serialized(), to: metadata.appendingPathComponent("\(root.signed.common.version).root.json"))
        }
        var roles = [("targets", targets)]
        for channel in settings.channels { roles.append((channel, channels[channel]!)) }
        for (name, role) in roles {
            try AtomicFile.write(try role.serialized(),
                                 to: metadata.appendingPathComponent("\(role.signed.common.version).\(RoleName.encoded(name)).json"))
            for (path, file) in role.signed.targets {
                let data = try content(of: file, path: path)
                let slash = path.lastIndex(of: "/")
                let dir = slash.map { String(path[...$0]) } ?? ""
                let base = slash.map { String(path[path.index(after: $0)...]) } ?? path
                for hash in file.hashes.values {
                    try AtomicFile.write(data, to: files.appendingPathComponent(dir + hash + "." + base))
                }
            }
        }
        try AtomicFile.write(try snapshot.serialized(), to: metadata.appendingPathComponent("\(snapshot.signed.common.version).snapshot.json"))
        try AtomicFile.write(try timestamp.serialized(), to: metadata.appendingPathComponent("timestamp.json"))
    }

    // MARK: content

    private func contentURL(_ file: TargetFile) -> URL { targetsURL.appendingPathComponent(file.hashes["sha256"] ?? "") }

    func storeContent(_ data: Data, file: TargetFile) throws {
        try AtomicFile.write(data, to: contentURL(file))
    }

    /// The stored content of a target, checked against its length and hashes.
    func content(of file: TargetFile, path: String) throws -> Data {
        guard let data = FileManager.default.contents(atPath: contentURL(file).path) else {
            throw RepositoryError("the content of \(path) is missing from \(targetsURL.path)")
        }
        do { try file.verify(data, what: path) } catch { throw RepositoryError("stored content of \(path) was altered: \(error)") }
        return data
    }

    static func validateName(_ name: String) throws {
        let ok = name.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_.".unicodeScalars.contains($0)) }
        guard ok, !name.isEmpty, name.count <= 128, !name.hasPrefix(".") else {
            throw RepositoryError("release name \"\(name)\" must be 1–128 letters, digits, -, _ or . (not starting with .)")
        }
    }
}
