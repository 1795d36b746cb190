import Foundation
import PatchFormat
import PatchRepository
import PatchUpdater
import XCTest

/// Serves a published static tree from disk, as a CDN would.
struct FolderTransport: Transport {
    let root: URL

    func fetch(_ url: URL, maxLength: Int64, deadline: Date) async throws -> Data {
        let file = root.appendingPathComponent(String(url.path.dropFirst()))
        guard let data = FileManager.default.contents(atPath: file.path) else { throw TransportError.status(404, url: url.absoluteString) }
        guard Int64(data.count) <= maxLength else { throw TransportError.tooLarge(url: url.absoluteString, maxLength: maxLength) }
        return data
    }
}

/// `PatchRepository` end to end with the real updater: channels as delegated roles, releases,
/// thresholds gathered from several key holders, key rotation.
final class RepositoryTests: XCTestCase {
    var directory: URL!
    var keys: [String: SigningKey] = [:]
    var repository: Repository!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("repo-\(UUID().uuidString)")
        for name in ["root-1", "root-2", "root-3", "targets", "snapshot", "timestamp", "staging", "production"] {
            keys[name] = try SigningKey.generate(.ed25519)
        }
        let initial = InitialKeys(root: [keys["root-1"]!, keys["root-2"]!, keys["root-3"]!], rootThreshold: 2,
                                  targets: [keys["targets"]!], snapshot: keys["snapshot"]!, timestamp: keys["timestamp"]!,
                                  channels: ["staging": keys["staging"]!, "production": keys["production"]!])
        repository = try Repository.create(directory: directory.appendingPathComponent("repo"),
                                           settings: RepositorySettings(channels: ["staging", "production"]), keys: initial)
        try Updater.bootstrap(rootData: repository.roots[0].serialized(), metadataDirectory: directory.appendingPathComponent("device"))
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    var online: [SigningKey] { [keys["snapshot"]!, keys["timestamp"]!] }

    func device() throws -> Updater {
        let published = directory.appendingPathComponent("cdn-\(UUID().uuidString)")
        try repository.publish(to: published)
        let config = UpdaterConfiguration(metadataDirectory: directory.appendingPathComponent("device"),
                                          metadataBaseURL: URL(string: "http://cdn.invalid/metadata/")!,
                                          targetBaseURL: URL(string: "http://cdn.invalid/targets/")!)
        return Updater(configuration: config, transport: FolderTransport(root: published))
    }

    func testAReleasedAndPromotedPatchReachesADeviceWithItsReleaseMetadata() async throws {
        let script = Data("defineClass('SKCart', {});".utf8)
        try repository.release("cart.js", content: script, release: PatchRelease(app: "com.example.shop", patchID: "cart", rollout: 1000),
                               channel: "staging", keys: [keys["staging"]!] + online)
        try repository.promote("cart.js", from: "staging", to: "production", rollout: 10_000, keys: [keys["production"]!] + online)

        let updater = try device()
        let target = try await updater.targetInfo(for: "production/cart.js")
        XCTAssertEqual(target?.role, "production")
        let release = try PatchRelease(custom: target?.file.custom)
        XCTAssertEqual(release?.rollout, 10_000)
        XCTAssertEqual(release?.patchID, "cart")
        let file = try await updater.download(target!, to: directory.appendingPathComponent("device-targets"))
        XCTAssertEqual(try Data(contentsOf: file), script)
        let staged = try await updater.targetInfo(for: "staging/cart.js")
        XCTAssertEqual(try PatchRelease(custom: staged?.file.custom)?.rollout, 1000)
    }

    /// A device lists its channel's releases; a path the channel role lists outside its
    /// delegated pattern (`staging/*` for staging) is not offered.
    func testAChannelListsOnlyTheTargetsItIsTrustedFor() async throws {
        try repository.release("a.js", content: Data("a()".utf8), release: PatchRelease(app: "a", patchID: "a"),
                               channel: "staging", keys: [keys["staging"]!] + online)
        let sneaky = Data("sneaky()".utf8)
        try sneaky.write(to: directory.appendingPathComponent("repo/targets/\(HashCheck.digest("sha256", of: sneaky)!)"))
        try repository.edit("staging", keys: [keys["staging"]!] + online) { targets in
            targets.targets["production/sneaky.js"] = TargetFile(data: sneaky)
        }
        let listed = try await device().targets(ofRole: "staging")
        XCTAssertEqual(listed?.map(\.path), ["staging/a.js"])
        let missing = try await device().targets(ofRole: "nightly")
        XCTAssertNil(missing)
    }

    /// Release metadata every device would refuse is never signed: an edit listing a target whose
    /// `custom.patchengine` carries a typo'd `app_versions` range (or any other member that doesn't
    /// parse) is refused, naming the path and the reason, and nothing is recorded.
    func testAnEditListingAMalformedReleaseIsNotSigned() throws {
        let before = repository.channels["staging"]!.signed.common.version
        let script = Data("a()".utf8)
        for (member, value, reason) in [
            ("app_versions", ">=1.2.0 <2.O", "app_versions: invalid version '>=1.2.0 <2.O': 'O' is not a number without leading zeros in '<2.O'"),
            ("os_versions", ">=", "os_versions: invalid version '>=': operator '>=' has no version"),
        ] {
            let custom: JSONValue = .object(["patchengine": .object([
                "app": .string("a"), "patch_id": .string("a"), "rollout": .integer(10_000), "enabled": .bool(true), member: .string(value)])])
            XCTAssertThrowsError(try repository.edit("staging", keys: [keys["staging"]!] + online) {
                $0.targets["staging/a.js"] = TargetFile(data: script, custom: custom)
            }) { error in
                XCTAssertEqual("\(error)", "staging not signed: staging/a.js: custom patchengine: \(reason)")
            }
        }
        XCTAssertEqual(repository.channels["staging"]!.signed.common.version, before, "nothing signed")
        let reopened = try Repository(directory: directory.appendingPathComponent("repo"))
        XCTAssertEqual(reopened.channels["staging"]!.signed.common.version, before, "nothing recorded")
    }

    func testARevokedReleaseIsGoneAfterTheNextRefresh() async throws {
        try repository.release("bad.js", content: Data("x".utf8), release: PatchRelease(app: "a", patchID: "bad"),
                               channel: "production", keys: [keys["production"]!] + online)
        let first = try await device().targetInfo(for: "production/bad.js")
        XCTAssertNotNil(first)
        try repository.revoke("bad.js", channel: "production", keys: [keys["production"]!] + online)
        let second = try await device().targetInfo(for: "production/bad.js")
        XCTAssertNil(second)
    }

    func testPromoteRefusesContentAlteredInTheRecord() throws {
        let script = Data("good()".utf8)
        try repository.release("fix.js", content: script, release: PatchRelease(app: "a", patchID: "fix"),
                               channel: "staging", keys: [keys["staging"]!] + online)
        let stored = directory.appendingPathComponent("repo/targets/\(HashCheck.digest("sha256", of: script)!)")
        try Data("evil()".utf8).write(to: stored)
        XCTAssertThrowsError(try repository.promote("fix.js", from: "staging", to: "production", keys: [keys["production"]!] + online)) {
            XCTAssertTrue("\($0)".contains("altered"), "\($0)")
        }
    }

    func testATamperedRecordIsRefusedOnOpen() throws {
        let url = directory.appendingPathComponent("repo/record/production.json")
        var text = try String(contentsOf: url, encoding: .utf8)
        text = text.replacingOccurrences(of: "\"version\":1", with: "\"version\":7")
        try text.write(to: url, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try Repository(directory: directory.appendingPathComponent("repo")))
    }

    /// A new root needs 2 of the 3 root keys: one holder signs, the edit is staged; a second
    /// holder signs the staged file elsewhere and it is merged, which records it.
    func testARootEditWaitsForASecondKeyHolder() throws {
        let replacement = try SigningKey.generate(.ecdsaP256)
        let first = try repository.editRoot(keys: [keys["root-1"]!, replacement] + online) { root in
            root.revoke(keyid: self.keys["root-3"]!.keyID, from: "root")
            root.add(key: replacement.publicKey, to: "root")
        }
        guard case .staged = first else { return XCTFail("recorded with one old root key: \(first)") }
        XCTAssertEqual(repository.root.signed.common.version, 1)

        // The second holder signs a copy of the staged file on another machine.
        var elsewhere = try Metadata<Root>(data: Data(contentsOf: repository.stagedURL(for: "root")))
        try elsewhere.sign(with: keys["root-2"]!)
        let outcome = try repository.merge("root", signedFile: try elsewhere.serialized(), keys: online)
        XCTAssertEqual(outcome, .committed(role: "root", version: 2))
        XCTAssertEqual(try Repository(directory: directory.appendingPathComponent("repo")).root.signed.common.version, 2)
    }

    /// Issue 19, item 4: a leaked channel key is rotated out; after one refresh the device refuses
    /// channel metadata that key signs, with no app release.
    func testALeakedChannelKeyIsRefusedAfterRotation() async throws {
        let leaked = keys["production"]!
        let fresh = try SigningKey.generate(.ed25519)
        try repository.edit("targets", keys: [keys["targets"]!, fresh] + online) { targets in
            var delegations = targets.delegations!
            let index = delegations.roles!.firstIndex { $0.name == "production" }!
            delegations.roles![index].keyids = [fresh.keyID]
            delegations.keys[fresh.keyID] = fresh.publicKey
            targets.delegations = delegations
        }
        _ = try await device().targetInfo(for: "production/none.js")

        // The attacker (with the leaked key and the online keys) publishes a release.
        var forged = repository.channels["production"]!.signed
        forged.common.version += 1
        forged.targets["production/evil.js"] = TargetFile(data: Data("evil()".utf8), custom: PatchRelease(app: "a", patchID: "evil").custom)
        var metadata = try Metadata(signed: forged)
        try metadata.sign(with: leaked)
        let cdn = directory.appendingPathComponent("attacker-cdn")
        try repository.publish(to: cdn)
        try metadata.serialized().write(to: cdn.appendingPathComponent("metadata/\(forged.common.version).production.json"))
        var snapshot = repository.snapshot.signed
        snapshot.common.version += 1
        snapshot.meta["production.json"] = MetaFile(version: forged.common.version)
        var signedSnapshot = try Metadata(signed: snapshot)
        try signedSnapshot.sign(with: keys["snapshot"]!)
        let snapshotData = try signedSnapshot.serialized()
        try snapshotData.write(to: cdn.appendingPathComponent("metadata/\(snapshot.common.version).snapshot.json"))
        var timestamp = repository.timestamp.signed
        timestamp.common.version += 1
        timestamp.snapshotMeta = MetaFile(version: snapshot.common.version)
        var signedTimestamp = try Metadata(signed: timestamp)
        try signedTimestamp.sign(with: keys["timestamp"]!)
        try signedTimestamp.serialized().write(to: cdn.appendingPathComponent("metadata/timestamp.json"))

        let config = UpdaterConfiguration(metadataDirectory: directory.appendingPathComponent("device"),
                                          metadataBaseURL: URL(string: "http://cdn.invalid/metadata/")!)
        let updater = Updater(configuration: config, transport: FolderTransport(root: cdn))
        do {
            _ = try await updater.targetInfo(for: "production/evil.js")
            XCTFail("metadata signed by the rotated-out channel key was accepted")
        } catch UpdaterError.unsigned(let role, _) {
            XCTAssertEqual(role, "production")
        }
    }
}
