import Foundation
import PatchFormat
import PatchUpdater
import XCTest

/// A repository held in memory and served by `MemoryTransport`: each test publishes metadata
/// the way a repository tool would and runs the real updater against it.
final class MemoryRepository: @unchecked Sendable {
    var files: [String: Data] = [:]
    var requests: [String] = []
    let lock = NSLock()
    var keys: [String: SigningKey] = [:]
    var root: Root
    var timestamp: Timestamp
    var snapshot: Snapshot
    var targets: Targets
    var rootVersions: [Data] = []

    init() throws {
        let expires = Date(timeIntervalSinceNow: 86_400 * 30)
        var roles: [String: RoleKeys] = [:]
        var publicKeys: [String: PublicKey] = [:]
        for role in Root.topLevelRoles {
            let key = try SigningKey.generate(.ed25519)
            keys[role] = key
            publicKeys[key.keyID] = key.publicKey
            roles[role] = RoleKeys(keyids: [key.keyID], threshold: 1)
        }
        root = Root(common: CommonFields(expires: expires), consistentSnapshot: true, keys: publicKeys, roles: roles)
        targets = Targets(common: CommonFields(expires: expires))
        snapshot = Snapshot(common: CommonFields(expires: expires), meta: [:])
        timestamp = Timestamp(common: CommonFields(expires: expires), snapshotMeta: MetaFile(version: 1))
        try publishRoot()
        try publishTargets()
    }

    func sign<R: RoleMetadata>(_ role: R, with names: [String]) throws -> Data {
        var metadata = try Metadata(signed: role)
        for name in names { try metadata.sign(with: keys[name]!) }
        return try metadata.serialized()
    }

    func publishRoot(signers: [String] = ["root"]) throws {
        let data = try sign(root, with: signers)
        rootVersions.append(data)
        files["\(root.common.version).root.json"] = data
    }

    /// Publishes targets, then snapshot and timestamp naming it.
    func publishTargets() throws {
        let data = try sign(targets, with: ["targets"])
        files["\(targets.common.version).targets.json"] = data
        snapshot.meta["targets.json"] = MetaFile(version: targets.common.version)
        try publishSnapshot()
    }

    func publishSnapshot() throws {
        let data = try sign(snapshot, with: ["snapshot"])
        files["\(snapshot.common.version).snapshot.json"] = data
        timestamp.snapshotMeta = MetaFile(version: snapshot.common.version, length: Int64(data.count),
                                          hashes: ["sha256": HashCheck.digest("sha256", of: data)!])
        files["timestamp.json"] = try sign(timestamp, with: ["timestamp"])
    }

    func addTarget(_ path: String, _ content: Data) {
        let file = TargetFile(data: content)
        targets.targets[path] = file
        let slash = path.lastIndex(of: "/")
        let dir = slash.map { String(path[...$0]) } ?? ""
        let base = slash.map { String(path[path.index(after: $0)...]) } ?? path
        files["targets/\(dir)\(file.hashes["sha256"]!).\(base)"] = content
    }
}

struct MemoryTransport: Transport {
    let repository: MemoryRepository

    func fetch(_ url: URL, maxLength: Int64, deadline: Date) async throws -> Data {
        let path = url.path.hasPrefix("/metadata/") ? String(url.path.dropFirst("/metadata/".count)) : String(url.path.dropFirst())
        repository.lock.lock()
        defer { repository.lock.unlock() }
        repository.requests.append(path)
        guard let data = repository.files[path] else { throw TransportError.status(404, url: url.absoluteString) }
        guard Int64(data.count) <= maxLength else { throw TransportError.tooLarge(url: url.absoluteString, maxLength: maxLength) }
        return data
    }
}

final class UpdaterWorkflowTests: XCTestCase {
    var directory: URL!
    var repository: MemoryRepository!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("updater-\(UUID().uuidString)")
        repository = try MemoryRepository()
        try Updater.bootstrap(rootData: repository.rootVersions[0], metadataDirectory: directory.appendingPathComponent("metadata"))
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    func updater(now: Date = Date()) -> Updater {
        var config = UpdaterConfiguration(metadataDirectory: directory.appendingPathComponent("metadata"),
                                          metadataBaseURL: URL(string: "http://repo.invalid/metadata/")!,
                                          targetBaseURL: URL(string: "http://repo.invalid/targets/")!)
        config.clock = { now }
        return Updater(configuration: config, transport: MemoryTransport(repository: repository))
    }

    func testRefreshDownloadsAndVerifiesATarget() async throws {
        repository.addTarget("patches/fix.js", Data("fix()".utf8))
        repository.targets.common.version += 1
        repository.snapshot.common.version += 1
        repository.timestamp.common.version += 1
        try repository.publishTargets()

        let updater = updater()
        let target = try await updater.targetInfo(for: "patches/fix.js")
        XCTAssertEqual(target?.role, "targets")
        let file = try await updater.download(target!, to: directory.appendingPathComponent("targets"))
        XCTAssertEqual(try Data(contentsOf: file), Data("fix()".utf8))
        XCTAssertEqual(file.lastPathComponent, "patches%2Ffix.js")
    }

    func testASubstitutedTargetIsRefusedAndNotStored() async throws {
        repository.addTarget("fix.js", Data("fix()".utf8))
        repository.targets.common.version += 1
        repository.snapshot.common.version += 1
        repository.timestamp.common.version += 1
        try repository.publishTargets()
        let key = repository.files.keys.first { $0.hasPrefix("targets/") }!
        repository.files[key] = Data("evi()".utf8)  // same length, other bytes

        let updater = updater()
        let target = try await updater.targetInfo(for: "fix.js")
        do {
            try await updater.download(target!, to: directory.appendingPathComponent("targets"))
            XCTFail("a substituted target was accepted")
        } catch UpdaterError.targetMismatch {}
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("targets/fix.js").path))
    }

    func testATimestampRollbackIsRefusedAndTheTrustedOneKept() async throws {
        let oldTimestamp = repository.files["timestamp.json"]!
        repository.timestamp.common.version = 2
        try repository.publishSnapshot()
        try await updater().refresh()

        repository.files["timestamp.json"] = oldTimestamp
        do {
            try await updater().refresh()
            XCTFail("timestamp rollback accepted")
        } catch UpdaterError.badVersion(let role, _) {
            XCTAssertEqual(role, "timestamp")
        }
        let stored = try Metadata<Timestamp>(data: Data(contentsOf: directory.appendingPathComponent("metadata/timestamp.json")))
        XCTAssertEqual(stored.signed.common.version, 2)
    }

    func testExpiredTimestampIsAFreezeAttack() async throws {
        try await updater().refresh()
        do {
            try await updater(now: Date(timeIntervalSinceNow: 86_400 * 31)).refresh()
            XCTFail("expired metadata accepted")
        } catch UpdaterError.expired {}
    }

    /// A leaked targets key is rotated out through a new root: after one refresh, metadata signed
    /// by the old key is refused.
    func testRotatedOutTargetsKeyIsRefusedAfterOneRefresh() async throws {
        try await updater().refresh()
        let leaked = repository.keys["targets"]!
        let fresh = try SigningKey.generate(.ecdsaP256)
        repository.root.revoke(keyid: leaked.keyID, from: "targets")
        repository.root.add(key: fresh.publicKey, to: "targets")
        repository.root.common.version = 2
        try repository.publishRoot()
        repository.keys["targets"] = leaked
        repository.addTarget("evil.js", Data("evil()".utf8))
        repository.targets.common.version = 2
        repository.snapshot.common.version = 2
        repository.timestamp.common.version = 2
        try repository.publishTargets()

        do {
            _ = try await updater().targetInfo(for: "evil.js")
            XCTFail("metadata signed by a rotated-out key was accepted")
        } catch UpdaterError.unsigned(let role, _) {
            XCTAssertEqual(role, "targets")
        }
        let root = try Metadata<Root>(data: Data(contentsOf: directory.appendingPathComponent("metadata/root.json")))
        XCTAssertEqual(root.signed.common.version, 2)
    }

    func testARootNotSignedByTheTrustedRootIsRefused() async throws {
        let attacker = try SigningKey.generate(.ed25519)
        repository.keys["attacker"] = attacker
        repository.root.roles["root"] = RoleKeys(keyids: [attacker.keyID], threshold: 1)
        repository.root.keys[attacker.keyID] = attacker.publicKey
        repository.root.common.version = 2
        try repository.publishRoot(signers: ["attacker"])
        do {
            try await updater().refresh()
            XCTFail("root from an unknown key accepted")
        } catch UpdaterError.unsigned(let role, _) {
            XCTAssertEqual(role, "root")
        }
    }
}
