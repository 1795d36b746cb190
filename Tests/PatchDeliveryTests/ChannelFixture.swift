import Foundation
import PatchDelivery
import PatchFormat
import PatchRepository
import PatchUpdater
import XCTest

/// Serves a published static tree from disk, as a CDN would; `offline` makes every request
/// fail like a dead network, `tree` can be switched (an attacker's mirror, an older copy).
final class TreeTransport: Transport, @unchecked Sendable {
    private let lock = NSLock()
    private var _tree: URL
    private var _offline = false
    private var _silent = false
    private var _redirects: [String: URL] = [:]
    private var _requests: [String] = []

    init(tree: URL) { _tree = tree }

    var tree: URL {
        get { lock.lock(); defer { lock.unlock() }; return _tree }
        set { lock.lock(); _tree = newValue; lock.unlock() }
    }
    var offline: Bool {
        get { lock.lock(); defer { lock.unlock() }; return _offline }
        set { lock.lock(); _offline = newValue; lock.unlock() }
    }
    /// A silent server: requests get no answer until `silent` is cleared (or 60 s pass).
    var silent: Bool {
        get { lock.lock(); defer { lock.unlock() }; return _silent }
        set { lock.lock(); _silent = newValue; lock.unlock() }
    }
    var requests: [String] { lock.lock(); defer { lock.unlock() }; return _requests }

    /// Requests whose path ends with the key go to the URL instead, over the real `HTTPTransport`.
    func redirect(_ suffix: String, to url: URL) { lock.lock(); _redirects[suffix] = url; lock.unlock() }

    func fetch(_ url: URL, maxLength: Int64, deadline: Date) async throws -> Data {
        let (root, offline, redirects): (URL, Bool, [String: URL]) = {
            lock.lock(); defer { lock.unlock() }
            _requests.append(url.path)
            return (_tree, _offline, _redirects)
        }()
        if let target = redirects.first(where: { url.path.hasSuffix($0.key) })?.value {
            return try await HTTPTransport.shared.fetch(target, maxLength: maxLength, deadline: deadline)
        }
        let start = Date()
        while silent, Date().timeIntervalSince(start) < 60 { try? await Task.sleep(nanoseconds: 20_000_000) }
        if offline { throw TransportError.failed(url: url.absoluteString, reason: "network is down") }
        let file = root.appendingPathComponent(String(url.path.dropFirst()))
        guard let data = FileManager.default.contents(atPath: file.path) else { throw TransportError.status(404, url: url.absoluteString) }
        guard Int64(data.count) <= maxLength else { throw TransportError.tooLarge(url: url.absoluteString, maxLength: maxLength) }
        return data
    }
}

/// A publisher's TUF repository (`PatchRepository`, channels `staging` and `production`), its
/// published tree, and devices running `PatchClient` against it.
final class ChannelFixture {
    let directory: URL
    var keys: [String: PatchFormat.SigningKey] = [:]
    var repository: Repository
    let transport: TreeTransport
    let appID = "com.example.shop"
    /// The root the app ships with.
    let bundledRoot: Data
    /// The time edits are signed at (tests move it to make metadata stale).
    var now = Date()

    init(_ test: XCTestCase, timestampExpiry: TimeInterval = 86_400) throws {
        directory = try makeTemporaryDirectory(test)
        for name in ["root-1", "root-2", "root-3", "targets", "snapshot", "timestamp", "staging", "production"] {
            keys[name] = try PatchFormat.SigningKey.generate(.ed25519)
        }
        let initial = InitialKeys(root: [keys["root-1"]!, keys["root-2"]!, keys["root-3"]!], rootThreshold: 2,
                                  targets: [keys["targets"]!], snapshot: keys["snapshot"]!, timestamp: keys["timestamp"]!,
                                  channels: ["staging": keys["staging"]!, "production": keys["production"]!])
        var settings = RepositorySettings(channels: ["staging", "production"])
        settings.timestampExpiry = timestampExpiry
        repository = try Repository.create(directory: directory.appendingPathComponent("repo"), settings: settings, keys: initial)
        bundledRoot = try repository.roots[0].serialized()
        transport = TreeTransport(tree: directory.appendingPathComponent("none"))
        repositoryTree = directory.appendingPathComponent("none")
        try publish()
    }

    var online: [PatchFormat.SigningKey] { [keys["snapshot"]!, keys["timestamp"]!] }

    /// The tree published last (what the real repository serves now).
    private(set) var repositoryTree: URL

    /// Publishes the repository as it is now to a fresh tree and serves it; returns the tree.
    @discardableResult
    func publish() throws -> URL {
        let tree = directory.appendingPathComponent("tree-\(UUID().uuidString)")
        try repository.publish(to: tree)
        transport.tree = tree
        repositoryTree = tree
        return tree
    }

    /// Releases `script` as `name` in `channel` and publishes.
    func release(_ name: String, script: String, patchID: String = "cart-fix", version: Int = 1, rollout: Int = PatchRelease.maxRollout,
                 channel: String = "production", edit: (inout PatchRelease) throws -> Void = { _ in }) throws {
        var release = PatchRelease(app: appID, patchID: patchID, version: version, rollout: rollout)
        try edit(&release)
        try repository.release(name, content: Data(script.utf8), release: release, channel: channel,
                               keys: [keys[channel]!] + online, now: now)
        try publish()
    }

    func change(_ name: String, channel: String = "production", _ edit: (inout PatchRelease) throws -> Void) throws {
        try repository.updateRelease(name, channel: channel, keys: [keys[channel]!] + online, now: now, edit)
        try publish()
    }

    func revoke(_ name: String, channel: String = "production") throws {
        try repository.revoke(name, channel: channel, keys: [keys[channel]!] + online, now: now)
        try publish()
    }

    func configuration(deviceID: String = "device-1", channel: String = "production", appVersion: String = "1.4.0",
                       model: String? = nil, attributes: [String: String] = [:], clock: @escaping @Sendable () -> Date = { Date() }) -> PatchClientConfiguration {
        var config = PatchClientConfiguration(
            metadataURL: URL(string: "http://cdn.invalid/metadata/")!, targetsURL: URL(string: "http://cdn.invalid/targets/")!,
            bundledRoot: bundledRoot, appID: appID, appVersion: appVersion, channel: channel,
            device: DeviceProfile(deviceID: deviceID, osVersion: try? SemanticVersion(parsing: "17.4"), model: model, attributes: attributes),
            stateDirectory: directory.appendingPathComponent("devices/\(channel)-\(deviceID)"))
        config.allowsInsecureHTTP = true
        config.updateDeadline = 20
        config.clock = clock
        return config
    }

    /// One launch of a device: a new client over the device's state.
    func launch(_ applier: PatchApplying, _ configuration: PatchClientConfiguration? = nil) throws -> PatchClient {
        try PatchClient(configuration: configuration ?? self.configuration(), applier: applier, transport: transport)
    }

    /// Releases `cart.js` to production and has a device take it in a launch that succeeds:
    /// that device's configuration.
    func deviceRunningCart() throws -> PatchClientConfiguration {
        try release("cart.js", script: "var cart = 1;")
        let config = configuration()
        let first = try launch(RecordingApplier(), config)
        XCTAssertEqual(first.update().applied, ["production/cart.js"])
        first.markLaunchSucceeded()
        return config
    }

    /// Serves the tree published last with `channel`'s role edited by `edit`, signed by the
    /// channel's key alone, and snapshot and timestamp re-signed as the release service signs an
    /// upload: what whoever holds one channel key gets devices to read.
    func serveSignedEdit(channel: String = "production", _ edit: @escaping (inout Targets) -> Void) throws {
        try serveSigned([(channel, keys[channel]!, edit)])
    }

    /// Serves the tree published last with each targets role of `edits` (top-level or a channel)
    /// edited and signed by the key given, then snapshot and timestamp re-signed — bypassing the
    /// publisher's record, which refuses some of what devices must be shown to refuse.
    func serveSigned(_ edits: [(role: String, key: PatchFormat.SigningKey, edit: (inout Targets) -> Void)]) throws {
        let tree = try copyOfPublishedTree()
        let metadata = tree.appendingPathComponent("metadata")
        func read<R: RoleMetadata>(_ name: String, _ type: R.Type) throws -> Metadata<R> {
            try Metadata<R>(data: Data(contentsOf: metadata.appendingPathComponent(name)))
        }
        func write<R: RoleMetadata>(_ role: R, _ name: String, _ key: PatchFormat.SigningKey) throws -> Data {
            var signed = try Metadata(signed: role)
            try signed.sign(with: key)
            let data = try signed.serialized()
            try data.write(to: metadata.appendingPathComponent(name))
            return data
        }
        var timestamp = try read("timestamp.json", Timestamp.self).signed
        var snapshot = try read("\(timestamp.snapshotMeta.version).snapshot.json", Snapshot.self).signed
        for (name, key, edit) in edits {
            var role = try read("\(snapshot.meta["\(name).json"]!.version).\(name).json", Targets.self).signed
            edit(&role)
            role.common.version += 1
            _ = try write(role, "\(role.common.version).\(name).json", key)
            snapshot.meta["\(name).json"] = MetaFile(version: role.common.version)
        }
        snapshot.common.version += 1
        let snapshotData = try write(snapshot, "\(snapshot.common.version).snapshot.json", keys["snapshot"]!)
        timestamp.common.version += 1
        timestamp.snapshotMeta = MetaFile(version: snapshot.common.version, length: Int64(snapshotData.count),
                                          hashes: ["sha256": HashCheck.digest("sha256", of: snapshotData)!])
        _ = try write(timestamp, "timestamp.json", keys["timestamp"]!)
        transport.tree = tree
    }

    /// Serves the tree published last with a next root version made by `change` and signed by
    /// root keys 1 and 2 (a threshold of the old and the new root), bypassing the publisher's
    /// record; returns its bytes.
    func serveRoot(_ change: (inout Root) -> Void) throws -> Data {
        let tree = try copyOfPublishedTree()
        var root = repository.root.signed
        change(&root)
        root.common.version += 1
        var signed = try Metadata(signed: root)
        for name in ["root-1", "root-2"] { try signed.sign(with: keys[name]!) }
        let data = try signed.serialized()
        try data.write(to: tree.appendingPathComponent("metadata/\(root.common.version).root.json"))
        transport.tree = tree
        return data
    }

    private func copyOfPublishedTree() throws -> URL {
        let tree = directory.appendingPathComponent("tree-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: repositoryTree, to: tree)
        return tree
    }

    /// A device id whose bucket for `path` is inside (`true`) or outside a rollout of `rollout`.
    static func deviceID(for path: String, inside: Bool, rollout: Int) -> String {
        var n = 0
        while true {
            let id = "device-\(n)"
            if (RolloutBucket.bucket(deviceID: id, releaseID: path) < rollout) == inside { return id }
            n += 1
        }
    }
}

/// A clock tests move (devices read it through `PatchClientConfiguration.clock`).
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var _now: Date
    init(_ now: Date = Date()) { _now = now }
    var now: Date {
        get { lock.lock(); defer { lock.unlock() }; return _now }
        set { lock.lock(); _now = newValue; lock.unlock() }
    }
    var read: @Sendable () -> Date { { [self] in self.now } }
}

extension Array where Element == PatchClientEvent {
    var staleReasons: [String] { compactMap { if case .metadataStale(let reason) = $0 { return reason } else { return nil } } }
    var discardedRoots: [String] { compactMap { if case .storedRootDiscarded(let reason) = $0 { return reason } else { return nil } } }
    var applied: [String] { compactMap { if case .applied(let r, _) = $0 { return r.path } else { return nil } } }
    var reverted: [String: DeviceExclusion] {
        var out: [String: DeviceExclusion] = [:]
        for case let .reverted(r, reason) in self { out[r.path] = reason }
        return out
    }
    /// Failed releases' messages by path.
    var failures: [String: String] {
        var out: [String: String] = [:]
        for case let .failed(r, message) in self { out[r.path] = message }
        return out
    }
    var refusals: [String: PatchClientError] {
        var out: [String: PatchClientError] = [:]
        for case let .refused(path, reason) in self { out[path] = reason }
        return out
    }
    var refreshFailure: PatchClientError? {
        for case .refreshFailed(let error) in self { return error }
        return nil
    }
}
