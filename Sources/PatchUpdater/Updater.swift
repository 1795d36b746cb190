import Foundation
import PatchFormat
import PatchSupport

/// A target file found by `Updater.targetInfo(for:)`, with the role that listed it.
public struct ResolvedTarget: Equatable, Sendable {
    /// The target path.
    public var path: String
    public var file: TargetFile
    /// The (delegated) targets role whose metadata lists it.
    public var role: String
}

/// The TUF client workflow (specification 1.0.x §5): refreshes top-level metadata, searches
/// delegations for a target, downloads targets. Every check is `TrustedMetadata`'s; this type
/// does the input and output in the workflow's order and persists each accepted file
/// atomically before the next step.
///
/// One `Updater` is one refresh: `refresh()` runs once (later calls return its outcome), as the
/// specification's workflow does per update cycle; create a new one for the next cycle.
public actor Updater {
    public let configuration: UpdaterConfiguration
    private let transport: Transport
    private let store: MetadataStore
    private var trusted: TrustedMetadata?
    /// The outcome of the one refresh this updater makes.
    private var refreshOutcome: Result<Void, Error>?
    /// Set by `loadStored()`: nothing is read from the network.
    private var offline = false

    public init(configuration: UpdaterConfiguration, transport: Transport = HTTPTransport.shared) {
        self.configuration = configuration
        self.transport = transport
        self.store = MetadataStore(directory: configuration.metadataDirectory)
    }

    /// Installs `rootData` as the trusted root in `metadataDirectory` (the root shipped with the
    /// app: every later root must chain from it). Nothing is verified here: `refresh()` refuses
    /// a root that isn't signed by its own threshold.
    public static func bootstrap(rootData: Data, metadataDirectory: URL) throws {
        try MetadataStore(directory: metadataDirectory).write("root", rootData)
    }

    /// The metadata trusted so far (nil before `refresh()`).
    public var trustedMetadata: TrustedMetadata? { trusted }

    // MARK: refresh (spec §5.3–5.6.x for the top-level roles)

    /// Updates root, timestamp, snapshot and top-level targets. Throws on the first failure;
    /// what was accepted before it stays persisted.
    public func refresh() async throws {
        if let refreshOutcome { return try refreshOutcome.get() }
        do {
            try await runRefresh()
            refreshOutcome = .success(())
        } catch {
            refreshOutcome = .failure(error)
            throw error
        }
    }

    /// Instead of `refresh()`: takes the metadata stored in `metadataDirectory` as it is, without
    /// the network — what a device verified last, for running offline. Every signature, the
    /// chain root → timestamp → snapshot → targets and every version and hash between them are
    /// checked as in a refresh; expiry is not (the caller bounds how stale it may be: the
    /// timestamp's expiry is in `trustedMetadata`). Nothing new can come this way: afterwards
    /// searches and downloads read no network, and only targets already cached (`cachedTarget`)
    /// can be had.
    /// - Parameter root: the root to verify the stored files against instead of the folder's own
    ///   (the device's anchored root, `RootAnchor`: a copy's root is never trusted by itself).
    public func loadStored(root: Data? = nil) async throws {
        if let refreshOutcome { return try refreshOutcome.get() }
        offline = true
        do {
            guard let rootData = root ?? store.read("root", maxLength: configuration.rootMaxLength) else {
                throw UpdaterError.localState("no trusted root in \(configuration.metadataDirectory.path)")
            }
            trusted = try TrustedMetadata(rootData: rootData, now: .distantPast)
            guard let timestamp = store.read("timestamp", maxLength: configuration.timestampMaxLength) else {
                throw UpdaterError.missing(role: "timestamp", reason: "none stored")
            }
            try trusted!.updateTimestamp(timestamp)
            guard let snapshot = store.read("snapshot", maxLength: configuration.snapshotMaxLength) else {
                throw UpdaterError.missing(role: "snapshot", reason: "none stored")
            }
            try trusted!.updateSnapshot(snapshot, fromDisk: true)
            _ = try await loadTargets("targets", parent: nil)
            refreshOutcome = .success(())
        } catch {
            refreshOutcome = .failure(error)
            throw error
        }
    }

    private func runRefresh() async throws {
        guard let rootData = store.read("root", maxLength: configuration.rootMaxLength) else {
            throw UpdaterError.localState("no trusted root in \(configuration.metadataDirectory.path)")
        }
        trusted = try TrustedMetadata(rootData: rootData, now: configuration.clock())
        try await loadRoot()
        try await loadTimestamp()
        try await loadSnapshot()
        _ = try await loadTargets("targets", parent: nil)
    }

    private func loadRoot() async throws {
        // Counted, not added: a root of version Int64.max has no next version and must not trap.
        var version = trusted!.root.signed.common.version
        for _ in 0..<configuration.maxRootRotations {
            guard version < Int64.max else { break }
            version += 1
            let data: Data
            do {
                data = try await fetch(metadataURL("root", version: version), maxLength: configuration.rootMaxLength)
            } catch UpdaterError.download(let error) where error.isNotFound {
                break
            }
            try trusted!.updateRoot(data)
            // The chain first: a root is never stored ahead of the chain that anchors it.
            try store.writeRoot(version: version, data)
            try store.write("root", data)
        }
        try trusted!.checkFinalRoot()
    }

    private func loadTimestamp() async throws {
        if let local = store.read("timestamp", maxLength: configuration.timestampMaxLength) {
            // The stored copy is the reference for rollback checks even when expired; a copy the
            // current root's keys no longer sign is dropped (timestamp key rotation, §5.3.11).
            try? trusted!.updateTimestamp(local)
        }
        let data = try await fetch(metadataURL("timestamp", version: nil), maxLength: configuration.timestampMaxLength)
        do {
            try trusted!.updateTimestamp(data)
        } catch UpdaterError.equalVersion {
            return
        }
        try store.write("timestamp", data)
    }

    private func loadSnapshot() async throws {
        if let local = store.read("snapshot", maxLength: configuration.snapshotMaxLength) {
            do {
                try trusted!.updateSnapshot(local, fromDisk: true)
                return
            } catch {
                // Not final (older than timestamp names, or expired): kept as the rollback
                // reference if its signature is still good, and a new one is fetched.
            }
        }
        let info = trusted!.timestamp!.signed.snapshotMeta
        let version = trusted!.root.signed.usesConsistentSnapshots ? info.version : nil
        let maxLength = try Self.length(info.length, max: configuration.snapshotMaxLength, of: "snapshot")
        let data = try await fetch(metadataURL("snapshot", version: version), maxLength: maxLength)
        try trusted!.updateSnapshot(data, fromDisk: false)
        try store.write("snapshot", data)
    }

    /// The verified metadata of `role` as delegated by `parent` (nil: the top-level targets
    /// role): already verified in this refresh, else the stored copy if it is still current,
    /// else downloaded.
    private func loadTargets(_ role: String, parent: (name: String, metadata: Metadata<Targets>)?) async throws -> Metadata<Targets> {
        let delegator = parent?.name ?? "root"
        if let known = trusted!.targets(role, delegator: delegator) { return known }
        if let local = store.read(role, maxLength: configuration.targetsMaxLength),
           let verified = try? trusted!.updateTargets(local, role: role, parent: parent) {
            return verified
        }
        guard let info = trusted!.snapshot?.signed.meta["\(role).json"] else {
            throw UpdaterError.missing(role: role, reason: "delegated but not listed in snapshot")
        }
        let version = trusted!.root.signed.usesConsistentSnapshots ? info.version : nil
        let maxLength = try Self.length(info.length, max: configuration.targetsMaxLength, of: role)
        let data = try await fetch(metadataURL(role, version: version), maxLength: maxLength)
        let verified = try trusted!.updateTargets(data, role: role, parent: parent)
        try store.write(role, data)
        return verified
    }

    // MARK: targets (spec §5.7)

    /// Searches the delegation graph for `path` (pre-order depth-first, in the order delegations
    /// are listed; terminating delegations end the search; at most `maxDelegations` roles).
    /// Nil when no role trusted for the path lists it. Refreshes first if needed.
    public func targetInfo(for path: String) async throws -> ResolvedTarget? {
        try await refresh()
        var toVisit: [(role: String, parent: (name: String, metadata: Metadata<Targets>)?)] = [("targets", nil)]
        var visited = Set<String>()
        while !toVisit.isEmpty, visited.count <= configuration.maxDelegations {
            let (role, parent) = toVisit.removeLast()
            if visited.contains(role) { continue }
            let metadata = try await loadTargets(role, parent: parent)
            if let file = metadata.signed.targets[path] { return ResolvedTarget(path: path, file: file, role: role) }
            visited.insert(role)
            guard let delegations = metadata.signed.delegations else { continue }
            var children: [(role: String, parent: (name: String, metadata: Metadata<Targets>)?)] = []
            for (child, terminating) in delegations.roles(for: path) {
                children.append((child, (role, metadata)))
                if terminating {
                    toVisit.removeAll()
                    break
                }
            }
            toVisit.append(contentsOf: children.reversed())
        }
        return nil
    }

    /// Every target the delegated role `role` (a channel) lists for which a search by path
    /// (`targetInfo(for:)`) resolves to that role: what a device may take from the channel. A
    /// path the role lists but is not trusted for (outside its delegated patterns, or shadowed by
    /// an earlier or terminating delegation) is left out. Nil when no delegation reaches `role`.
    ///
    /// The channel's targets are `<role>/<name>`, and the role is found the way a target search
    /// goes (spec §5.6.7: pre-order depth-first, in listed order, at most `maxDelegations`
    /// roles), visiting only roles whose delegated paths can hold such a target
    /// (`DelegatedRole.mayDelegate(under:)`); a terminating delegation trusted for all of them
    /// ends the search. So a role of another channel is never loaded: its being missing,
    /// expired or invalid cannot stop this channel.
    public func targets(ofRole role: String) async throws -> [ResolvedTarget]? {
        try await refresh()
        var toVisit: [(role: String, parent: (name: String, metadata: Metadata<Targets>)?)] = [("targets", nil)]
        var visited = Set<String>()
        var found: Metadata<Targets>?
        while !toVisit.isEmpty, visited.count <= configuration.maxDelegations {
            let (name, parent) = toVisit.removeLast()
            if visited.contains(name) { continue }
            let metadata = try await loadTargets(name, parent: parent)
            if name == role { found = metadata; break }
            visited.insert(name)
            var children: [(role: String, parent: (name: String, metadata: Metadata<Targets>)?)] = []
            for delegation in metadata.signed.delegations?.roles ?? [] where delegation.name == role || delegation.mayDelegate(under: role) {
                children.append((delegation.name, (name, metadata)))
                if delegation.terminating, delegation.delegatesAll(under: role) {
                    toVisit.removeAll()
                    break
                }
            }
            toVisit.append(contentsOf: children.reversed())
        }
        guard let found else { return nil }
        var result: [ResolvedTarget] = []
        for path in found.signed.targets.keys.sorted() {
            if let resolved = try await targetInfo(for: path), resolved.role == role, resolved.file == found.signed.targets[path] {
                result.append(resolved)
            }
        }
        return result
    }

    /// The file name a target is stored under in a target folder: its path percent-encoded into
    /// one name (so a path never leaves the folder).
    public nonisolated static func localName(for path: String) -> String { RoleName.encoded(path) }

    /// The stored copy of `target` in `directory`, if it has the target's length and hashes
    /// (nil, unread, for a target longer than `targetMaxLength`).
    public nonisolated func cachedTarget(_ target: ResolvedTarget, in directory: URL) -> URL? {
        guard target.file.length <= configuration.targetMaxLength else { return nil }
        let url = directory.appendingPathComponent(Self.localName(for: target.path))
        guard let data = (try? BoundedFile.contents(of: url, limit: target.file.length)) ?? nil,
              (try? target.file.verify(data, what: target.path)) != nil else { return nil }
        return url
    }

    /// Downloads `target`, checks its length and hashes, stores it in `directory` and returns
    /// its file. The download is cut at the target's length.
    @discardableResult
    public func download(_ target: ResolvedTarget, to directory: URL) async throws -> URL {
        guard let base = configuration.targetBaseURL else {
            throw UpdaterError.localState("no target base URL configured")
        }
        let maxLength = try Self.length(target.file.length, max: configuration.targetMaxLength, of: target.path)
        var remotePath = target.path
        if trusted?.root.signed.usesConsistentSnapshots == true, configuration.prefixTargetsWithHash {
            let hash = target.file.hashes["sha256"] ?? target.file.hashes.sorted { $0.key < $1.key }.first!.value
            if let slash = remotePath.lastIndex(of: "/") {
                remotePath = "\(remotePath[...slash])\(hash).\(remotePath[remotePath.index(after: slash)...])"
            } else {
                remotePath = "\(hash).\(remotePath)"
            }
        }
        let url = Self.join(base, RoleName.percentEncoded(remotePath, keepSlash: true))
        let data = try await fetch(url, maxLength: maxLength)
        do { try target.file.verify(data, what: target.path) } catch {
            throw UpdaterError.targetMismatch(path: target.path, reason: "\(error)")
        }
        let file = directory.appendingPathComponent(Self.localName(for: target.path))
        do { try AtomicFile.write(data, to: file) } catch { throw UpdaterError.storage("\(error)") }
        return file
    }

    /// The length to cut a download at: the signed `length` (refused above `max`, before
    /// anything is read), or `max` when metadata names none.
    private nonisolated static func length(_ length: Int64?, max: Int64, of what: String) throws -> Int64 {
        guard let length else { return max }
        guard length <= max else { throw UpdaterError.tooLarge(what: what, length: length, limit: max) }
        return length
    }

    // MARK: network

    private func metadataURL(_ role: String, version: Int64?) -> URL {
        let name = RoleName.encoded(role)
        return Self.join(configuration.metadataBaseURL, version.map { "\($0).\(name).json" } ?? "\(name).json")
    }

    private nonisolated static func join(_ base: URL, _ encodedPath: String) -> URL {
        var text = base.absoluteString
        if !text.hasSuffix("/") { text += "/" }
        return URL(string: text + encodedPath)!
    }

    private func fetch(_ url: URL, maxLength: Int64) async throws -> Data {
        if offline { throw UpdaterError.missing(role: url.lastPathComponent, reason: "not stored (offline: nothing is downloaded)") }
        do {
            return try await transport.fetch(url, maxLength: maxLength, deadline: Date().addingTimeInterval(configuration.downloadTimeout))
        } catch let error as TransportError {
            throw UpdaterError.download(error)
        }
    }
}
