import Foundation
import PatchFormat
import PatchUpdater
import XCTest

/// Issue 31, item 4 and the threshold hardening: every length, count, version and threshold a
/// signer controls, fed 0, -1, Int64.max and 2^53+1, is refused with a clear error (or, where the
/// specification allows the value, taken exactly) and never traps; one public key counts once
/// toward a threshold however many key ids list it.
final class SignedNumberLimitTests: XCTestCase {
    static let extremes: [Int64] = [0, -1, .max, (1 << 53) + 1]

    private var directories: [URL] = []

    override func tearDown() {
        for directory in directories { try? FileManager.default.removeItem(at: directory) }
    }

    /// A device folder bootstrapped with `root` and an updater over `repository`.
    private func updater(_ repository: MemoryRepository, root: Data? = nil) throws -> (Updater, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("limits-\(UUID().uuidString)")
        directories.append(directory)
        try Updater.bootstrap(rootData: root ?? repository.rootVersions[0], metadataDirectory: directory.appendingPathComponent("metadata"))
        var config = UpdaterConfiguration(metadataDirectory: directory.appendingPathComponent("metadata"),
                                          metadataBaseURL: URL(string: "http://repo.invalid/metadata/")!,
                                          targetBaseURL: URL(string: "http://repo.invalid/targets/")!)
        config.targetMaxLength = 1 << 20
        return (Updater(configuration: config, transport: MemoryTransport(repository: repository)), directory)
    }

    private func refreshError(_ updater: Updater) async -> Error? {
        do { try await updater.refresh(); return nil } catch { return error }
    }

    /// The length timestamp gives snapshot, snapshot gives a targets role, and a target has:
    /// above the configured maximum refused before a byte is read (Int64.max used to trap in
    /// the bounded reader's `maxLength + 1`); negative refused by the parser; 0 cuts the download.
    func testExtremeSignedLengthsAreRefusedBeforeAnyReadOrAllocation() async throws {
        for value in Self.extremes {
            // timestamp → snapshot
            var repository = try MemoryRepository()
            repository.timestamp.snapshotMeta.length = value
            repository.files["timestamp.json"] = try repository.sign(repository.timestamp, with: ["timestamp"])
            var error = await refreshError(try updater(repository).0)
            switch value {
            case -1: XCTAssertEqual((error as? UpdaterError).map { if case .malformed(role: "timestamp", _) = $0 { true } else { false } }, true, "\(String(describing: error))")
            case 0: XCTAssertEqual(error as? UpdaterError, .download(.tooLarge(url: "http://repo.invalid/metadata/1.snapshot.json", maxLength: 0)))
            default: XCTAssertEqual(error as? UpdaterError, .tooLarge(what: "snapshot", length: value, limit: 2_000_000))
            }

            // snapshot → targets
            repository = try MemoryRepository()
            repository.snapshot.meta["targets.json"] = MetaFile(version: 1, length: value)
            try repository.publishSnapshot()
            error = await refreshError(try updater(repository).0)
            switch value {
            case -1: XCTAssertEqual((error as? UpdaterError).map { if case .malformed(role: "snapshot", _) = $0 { true } else { false } }, true, "\(String(describing: error))")
            case 0: XCTAssertEqual(error as? UpdaterError, .download(.tooLarge(url: "http://repo.invalid/metadata/1.targets.json", maxLength: 0)))
            default: XCTAssertEqual(error as? UpdaterError, .tooLarge(what: "targets", length: value, limit: 5_000_000))
            }

            // a target
            repository = try MemoryRepository()
            repository.targets.targets["a.js"] = TargetFile(length: value, hashes: ["sha256": String(repeating: "0", count: 64)])
            repository.files["targets/\(String(repeating: "0", count: 64)).a.js"] = Data("a".utf8)
            repository.targets.common.version += 1
            repository.snapshot.common.version += 1
            repository.timestamp.common.version += 1
            try repository.publishTargets()
            let (device, directory) = try updater(repository)
            if value < 0 {
                let error = await refreshError(device)
                XCTAssertEqual((error as? UpdaterError).map { if case .malformed(role: "targets", _) = $0 { true } else { false } }, true, "\(String(describing: error))")
                continue
            }
            let target = try await device.targetInfo(for: "a.js")
            XCTAssertEqual(target?.file.length, value)
            let cache = directory.appendingPathComponent("cache")
            try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
            try Data("a".utf8).write(to: cache.appendingPathComponent("a.js"))
            XCTAssertNil(device.cachedTarget(target!, in: cache))
            do {
                try await device.download(target!, to: cache)
                XCTFail("\(value): downloaded")
            } catch let error as UpdaterError {
                if value == 0 {
                    XCTAssertEqual(error, .download(.tooLarge(url: "http://repo.invalid/targets/\(String(repeating: "0", count: 64)).a.js", maxLength: 0)))
                } else {
                    XCTAssertEqual(error, .tooLarge(what: "a.js", length: value, limit: 1 << 20))
                }
            }
        }
    }

    /// Versions and thresholds: 0 and negatives refused by the parser; Int64.max and 2^53+1
    /// taken exactly where the specification allows them (no rounding through a double), a
    /// threshold no key set can meet refused as unsigned, a trusted root of version Int64.max
    /// followed without overflow (it has no next version), never a trap.
    func testExtremeVersionsAndThresholdsAreRefusedOrTakenExactlyNeverATrap() async throws {
        for value in Self.extremes {
            // The timestamp's own version.
            var repository = try MemoryRepository()
            repository.timestamp.common.version = value
            repository.files["timestamp.json"] = try repository.sign(repository.timestamp, with: ["timestamp"])
            var (device, _) = try updater(repository)
            var error = await refreshError(device)
            if value <= 0 {
                XCTAssertEqual((error as? UpdaterError).map { if case .malformed(role: "timestamp", _) = $0 { true } else { false } }, true, "\(String(describing: error))")
            } else {
                XCTAssertNil(error)
                let trusted = await device.trustedMetadata
                XCTAssertEqual(trusted?.timestamp?.signed.common.version, value)
            }

            // The version timestamp names for snapshot.
            repository = try MemoryRepository()
            repository.timestamp.snapshotMeta = MetaFile(version: value)
            repository.files["timestamp.json"] = try repository.sign(repository.timestamp, with: ["timestamp"])
            error = await refreshError(try updater(repository).0)
            if value <= 0 {
                XCTAssertEqual((error as? UpdaterError).map { if case .malformed(role: "timestamp", _) = $0 { true } else { false } }, true, "\(String(describing: error))")
            } else {
                XCTAssertEqual(error as? UpdaterError, .download(.status(404, url: "http://repo.invalid/metadata/\(value).snapshot.json")))
            }

            // A top-level role's threshold in the trusted root.
            repository = try MemoryRepository()
            repository.root.roles["timestamp"]!.threshold = value
            try repository.publishRoot()
            (device, _) = try updater(repository, root: repository.rootVersions.last!)
            error = await refreshError(device)
            if value <= 0 {
                XCTAssertEqual((error as? UpdaterError).map { if case .localState = $0 { true } else { false } }, true, "\(String(describing: error))")
            } else {
                XCTAssertEqual(error as? UpdaterError, .unsigned(role: "timestamp", reason: "1 valid signatures of \(value) required"))
            }

            // A delegated role's threshold.
            repository = try MemoryRepository()
            let channel = try SigningKey.generate(.ed25519)
            var delegation = DelegatedRole(name: "production", keyids: [channel.keyID], threshold: 1, terminating: true, paths: ["production/*"])
            delegation.threshold = value
            repository.targets.delegations = Delegations(keys: [channel.keyID: channel.publicKey], roles: [delegation])
            repository.targets.common.version += 1
            repository.snapshot.common.version += 1
            repository.timestamp.common.version += 1
            try repository.publishTargets()
            error = await refreshError(try updater(repository).0)
            if value <= 0 {
                XCTAssertEqual((error as? UpdaterError).map { if case .malformed(role: "targets", _) = $0 { true } else { false } }, true, "\(String(describing: error))")
            } else {
                XCTAssertNil(error)
            }
        }

        // A trusted root of version Int64.max: the search for its successor stops, no overflow.
        let repository = try MemoryRepository()
        repository.root.common.version = .max
        try repository.publishRoot()
        let (device, _) = try updater(repository, root: repository.rootVersions.last!)
        let error = await refreshError(device)
        XCTAssertNil(error)
        let trusted = await device.trustedMetadata
        XCTAssertEqual(trusted?.root.signed.common.version, .max)
        // And a chain step offered after it is refused as a version error.
        var chain = try TrustedMetadata(rootData: repository.rootVersions.last!, now: Date())
        XCTAssertThrowsError(try chain.updateRoot(repository.rootVersions.last!)) {
            XCTAssertEqual($0 as? UpdaterError, .badVersion(role: "root", reason: "no version follows \(Int64.max)"))
        }
        // A stored root of version Int64.max that the shipped root does not reach is discarded.
        let other = try MemoryRepository()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("limits-\(UUID().uuidString)")
        directories.append(folder)
        try Updater.bootstrap(rootData: repository.rootVersions.last!, metadataDirectory: folder)
        let outcome = try RootAnchor.anchor(shippedRoot: other.rootVersions[0], metadataDirectory: folder)
        guard case .discarded = outcome else { return XCTFail("\(outcome)") }
    }

    /// A release's `custom` rollout and version, and succinct delegations' bit length: every
    /// extreme value is refused with a message naming the field, except a rollout of 0 (nobody).
    func testExtremeCustomRolloutVersionAndBitLengthAreRefused() throws {
        for value in Self.extremes {
            let rollout: JSONValue = .object(["patchengine": .object([
                "app": .string("a"), "patch_id": .string("p"), "rollout": .integer(value), "enabled": .bool(true)])])
            if value == 0 {
                XCTAssertEqual(try PatchRelease(custom: rollout)?.rollout, 0)
            } else {
                XCTAssertThrowsError(try PatchRelease(custom: rollout)) { XCTAssertTrue("\($0)".contains("rollout must be 0 to 10000"), "\($0)") }
            }
            let version: JSONValue = .object(["patchengine": .object([
                "app": .string("a"), "patch_id": .string("p"), "rollout": .integer(1), "enabled": .bool(true), "version": .integer(value)])])
            XCTAssertThrowsError(try PatchRelease(custom: version)) { XCTAssertTrue("\($0)".contains("version must be 1 to"), "\($0)") }

            let document = """
            {"signed": {"_type": "targets", "spec_version": "1.0.31", "version": 1, "expires": "2030-01-01T00:00:00Z", "targets": {},
              "delegations": {"keys": {}, "succinct_roles": {"keyids": ["k"], "threshold": 1, "bit_length": \(value), "name_prefix": "bin"}}},
             "signatures": []}
            """
            XCTAssertThrowsError(try Metadata<Targets>(data: Data(document.utf8))) { XCTAssertTrue("\($0)".contains("bit_length must be 1 to 32"), "\($0)") }
        }
    }

    // MARK: one key, one vote

    /// One ed25519 key listed under two key ids (its hex in lower and upper case), one P-256 key
    /// under both ECDSA key types, one key with and without an unrecognized member: each pair
    /// signs twice and counts once, so a threshold of 2 is not met.
    func testOneKeyUnderSeveralKeyIDsCountsOnceTowardAThreshold() throws {
        let bytes = Data("signed".utf8)
        let ed = try SigningKey.generate(.ed25519)
        let p256 = try SigningKey.generate(.ecdsaP256)
        let pairs: [(String, PublicKey, PublicKey, SigningKey)] = [
            ("hex case", ed.publicKey, PublicKey(keytype: "ed25519", scheme: "ed25519", publicValue: ed.publicKey.publicValue!.uppercased()), ed),
            ("ecdsa key types", p256.publicKey, PublicKey(keytype: "ecdsa-sha2-nistp256", scheme: "ecdsa-sha2-nistp256", publicValue: p256.publicKey.publicValue!), p256),
            ("unrecognized member", ed.publicKey, PublicKey(keytype: "ed25519", scheme: "ed25519", publicValue: ed.publicKey.publicValue!,
                                                             unrecognized: ["x-note": .string("again")]), ed),
        ]
        for (what, first, second, signer) in pairs {
            XCTAssertNotEqual(first.keyID, second.keyID, what)
            let sig = try signer.sign(bytes)
            let keys = [first.keyID: first, second.keyID: second]
            let signatures = [Signature(keyid: first.keyID, sig: sig), Signature(keyid: second.keyID, sig: sig)]
            XCTAssertEqual(ThresholdCheck.validSigners(keys: keys, keyids: Array(keys.keys), signatures: signatures, bytes: bytes).count, 1, what)
            XCTAssertFalse(ThresholdCheck.isMet(keys: keys, keyids: Array(keys.keys), threshold: 2, signatures: signatures, bytes: bytes), what)
        }
        // Two different keys still make two.
        let other = try SigningKey.generate(.ed25519)
        let keys = [ed.keyID: ed.publicKey, other.keyID: other.publicKey]
        let signatures = [Signature(keyid: ed.keyID, sig: try ed.sign(bytes)), Signature(keyid: other.keyID, sig: try other.sign(bytes))]
        XCTAssertTrue(ThresholdCheck.isMet(keys: keys, keyids: Array(keys.keys), threshold: 2, signatures: signatures, bytes: bytes))
    }

    /// The same through the workflow: a root whose timestamp role needs 2 of 2 keys that are
    /// one key under two ids; a timestamp signed by it under both ids is refused.
    func testATimestampSignedByOneKeyUnderTwoKeyIDsDoesNotMeetAThresholdOfTwo() async throws {
        let repository = try MemoryRepository()
        let key = repository.keys["timestamp"]!
        let twin = PublicKey(keytype: "ed25519", scheme: "ed25519", publicValue: key.publicKey.publicValue!.uppercased())
        repository.root.keys[twin.keyID] = twin
        repository.root.roles["timestamp"] = RoleKeys(keyids: [key.keyID, twin.keyID], threshold: 2)
        try repository.publishRoot()
        var timestamp = try Metadata(signed: repository.timestamp)
        try timestamp.sign(with: key)
        timestamp.merge(signatures: [Signature(keyid: twin.keyID, sig: try key.sign(timestamp.signedBytes))])
        repository.files["timestamp.json"] = try timestamp.serialized()
        let (device, _) = try updater(repository, root: repository.rootVersions.last!)
        let error = await refreshError(device)
        XCTAssertEqual(error as? UpdaterError, .unsigned(role: "timestamp", reason: "1 valid signatures of 2 required"))
    }
}
