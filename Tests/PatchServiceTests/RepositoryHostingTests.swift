import Foundation
import PatchFormat
import PatchRepository
@testable import PatchService
import PatchUpdater
import XCTest

/// The release service hosting a TUF repository: what a publisher uploads (verified against the
/// root the service trusts) reaches devices through `Updater`; what does not verify, or goes back
/// in version, is refused and changes nothing.
enum RepositoryHostingContract {
    /// Release at 10 %, widen to 100 %, promote, disable, revoke: each upload reaches a device.
    static func releasesReachDevices(_ store: ReleaseStore, _ test: XCTestCase) async throws {
        let f = try await HostedRepositoryFixture(test, store: store)
        do {
            let script = Data("defineClass('SKCart', {});".utf8)
            try f.repository.release("cart.js", content: script, release: PatchRelease(app: HostedRepositoryFixture.app, patchID: "cart", rollout: 1000),
                                     channel: "staging", keys: f.channelKeys("staging"))
            try await f.upload()
            var staging = try await f.deviceReleases("staging")
            XCTAssertEqual(staging["cart.js"]?.rollout, 1000)
            let updater = f.device()
            let target = try await updater.targetInfo(for: "staging/cart.js")
            let file = try await updater.download(try XCTUnwrap(target), to: f.directory.appendingPathComponent("downloads"))
            XCTAssertEqual(try Data(contentsOf: file), script, "the device gets the uploaded content, by its hash")

            try f.repository.updateRelease("cart.js", channel: "staging", keys: f.channelKeys("staging")) { $0.rollout = 10_000 }
            try f.repository.promote("cart.js", from: "staging", to: "production", keys: f.channelKeys("production"))
            try await f.upload()
            staging = try await f.deviceReleases("staging")
            XCTAssertEqual(staging["cart.js"]?.rollout, 10_000)
            var production = try await f.deviceReleases("production")
            XCTAssertEqual(production["cart.js"]?.enabled, true)

            try f.repository.updateRelease("cart.js", channel: "production", keys: f.channelKeys("production")) { $0.enabled = false }
            try await f.upload()
            production = try await f.deviceReleases("production")
            XCTAssertEqual(production["cart.js"]?.enabled, false, "disabled")

            try f.repository.revoke("cart.js", channel: "production", keys: f.channelKeys("production"))
            try await f.upload()
            production = try await f.deviceReleases("production")
            XCTAssertNil(production["cart.js"], "revoked: gone after one refresh")

            // The same upload again changes nothing (no new timestamp).
            let before = try await f.timestampVersion()
            let answer = try await f.upload()
            XCTAssertTrue(answer.contains("\"changed\":\"false\""), answer)
            let after = try await f.timestampVersion()
            XCTAssertEqual(before, after)
        } catch { await f.stop(); throw error }
        await f.stop()
    }
}

final class RepositoryHostingTests: XCTestCase {
    private func sqlite() async throws -> SQLiteReleaseStore {
        try await SQLiteReleaseStore.open(path: try temporaryDirectory(self).appendingPathComponent("releases.sqlite").path)
    }

    func testReleasesReachDevicesThroughTheServiceOnSQLite() async throws {
        let store = try await sqlite()
        try await RepositoryHostingContract.releasesReachDevices(store, self)
        try await store.close()
    }

    func testReleasesReachDevicesThroughTheServiceOnPostgres() async throws {
        let postgres = try PostgresInstance(self)
        let store = try await postgres.open()
        do { try await RepositoryHostingContract.releasesReachDevices(store, self) } catch { try? await store.close(); throw error }
        try await store.close()
    }

    /// Altered metadata, altered content, an unlisted file, a role nobody delegates: each refused
    /// with its reason, and the hosted repository stays as it was.
    func testATamperedUploadIsRefused() async throws {
        let store = try await sqlite()
        let f = try await HostedRepositoryFixture(self, store: store)
        do {
            try f.repository.release("fix.js", content: Data("fix()".utf8), release: PatchRelease(app: HostedRepositoryFixture.app, patchID: "fix", rollout: 500),
                                     channel: "production", keys: f.channelKeys("production"))
            let good = try f.repository.uploadContent()
            try await f.upload()
            let held = try await f.timestampVersion()

            try f.repository.updateRelease("fix.js", channel: "production", keys: f.channelKeys("production")) { $0.rollout = 600 }
            var widened = try f.repository.uploadContent()
            let text = String(decoding: widened.roles["production"]!, as: UTF8.self)
            XCTAssertTrue(text.contains("\"rollout\":600"))
            widened.roles["production"] = Data(text.replacingOccurrences(of: "\"rollout\":600", with: "\"rollout\":10000").utf8)
            var answer = try await f.post(widened)
            XCTAssertEqual(answer.status, 422)
            XCTAssertEqual(answer.reason, "unsigned", "a rollout widened after signing")

            var swapped = good
            swapped.files = [Data("evil()".utf8)]
            answer = try await f.post(swapped)
            XCTAssertEqual(answer.reason, "target-mismatch", "content that is not what the target lists")

            var stray = good
            stray.files.append(Data("unlisted".utf8))
            answer = try await f.post(stray)
            XCTAssertEqual(answer.reason, "target-mismatch", "a file no target lists")

            var undelegated = good
            undelegated.roles["nightly"] = good.roles["production"]
            answer = try await f.post(undelegated)
            XCTAssertEqual(answer.reason, "not-delegated")

            var flood = good
            flood.roots = Array(repeating: good.roots[0], count: 1025)
            answer = try await f.post(flood)
            XCTAssertEqual(answer.reason, "unsupported", "1,025 roots: refused before 1,025 lookups")

            // A staging role, validly signed with the staging key, listing a production path.
            let sneaky = Data("sneaky()".utf8)
            var outside = f.repository.channels["staging"]!.signed
            outside.common.version += 1
            outside.targets["production/sneaky.js"] = TargetFile(data: sneaky)
            var outsideMetadata = try Metadata(signed: outside)
            try outsideMetadata.sign(with: f.keys["staging"]!)
            var wrongPath = good
            wrongPath.roles["staging"] = try outsideMetadata.serialized()
            wrongPath.files.append(sneaky)
            answer = try await f.post(wrongPath)
            XCTAssertEqual(answer.reason, "not-delegated", "a channel listing another channel's path")

            var garbage = good
            garbage.roles["targets"] = Data("{".utf8)
            answer = try await f.post(garbage)
            XCTAssertEqual(answer.status, 400)

            let after = try await f.timestampVersion()
            XCTAssertEqual(after, held, "nothing of a refused upload is stored")
            let production = try await f.deviceReleases("production")
            XCTAssertEqual(production["fix.js"]?.rollout, 500)
        } catch { await f.stop(); try? await store.close(); throw error }
        await f.stop()
        try await store.close()
    }

    /// A channel role validly signed (by a tool other than patchctl, which refuses it) that lists a
    /// release with a typo'd `app_versions` range is refused (`invalid-release`, 422) with the role,
    /// path and reason: every device would refuse the release. Nothing of the upload is stored.
    func testAnUploadListingAMalformedReleaseIsRefused() async throws {
        let store = try await sqlite()
        let f = try await HostedRepositoryFixture(self, store: store)
        do {
            try await f.releaseFix()
            let held = try await f.timestampVersion()
            let script = Data("typo()".utf8)
            var production = f.repository.channels["production"]!.signed
            production.common.version += 1
            production.targets["production/typo.js"] = TargetFile(data: script, custom: .object(["patchengine": .object([
                "app": .string(HostedRepositoryFixture.app), "patch_id": .string("typo"), "rollout": .integer(10_000),
                "enabled": .bool(true), "app_versions": .string(">=1.4.0 <1.5.O")])]))
            var metadata = try Metadata(signed: production)
            try metadata.sign(with: f.keys["production"]!)
            var upload = try f.repository.uploadContent()
            upload.roles["production"] = try metadata.serialized()
            upload.files.append(script)

            let answer = try await f.post(upload)
            XCTAssertEqual(answer.status, 422)
            XCTAssertEqual(answer.reason, "invalid-release")
            let loaded = try await HostedRepository.load(from: store)
            let state = try XCTUnwrap(loaded)
            do {
                _ = try await state.accepting(upload, store: store, online: f.service.configuration.onlineKeys, now: Date())
                XCTFail("accepted")
            } catch let refusal as UploadRefusal {
                XCTAssertEqual(refusal.message, "production version \(production.common.version) lists production/typo.js: custom patchengine: "
                               + "app_versions: invalid version '>=1.4.0 <1.5.O': 'O' is not a number without leading zeros in '<1.5.O'")
            }
            let after = try await f.timestampVersion()
            XCTAssertEqual(after, held, "nothing of the refused upload is stored")
            let releases = try await f.deviceReleases("production")
            XCTAssertEqual(Set(releases.keys), ["fix.js"])
        } catch { await f.stop(); try? await store.close(); throw error }
        await f.stop()
        try await store.close()
    }

    /// An older version of a role than the one held (a replayed upload) is refused, and so is
    /// the held version with other content (a fork made from a copy of the record).
    func testARolledBackUploadIsRefused() async throws {
        let store = try await sqlite()
        let f = try await HostedRepositoryFixture(self, store: store)
        do {
            try f.repository.release("fix.js", content: Data("fix()".utf8), release: PatchRelease(app: HostedRepositoryFixture.app, patchID: "fix"),
                                     channel: "production", keys: f.channelKeys("production"))
            let enabled = try f.repository.uploadContent()
            try await f.upload()
            let copy = f.directory.appendingPathComponent("copy")
            try FileManager.default.copyItem(at: f.directory.appendingPathComponent("publisher"), to: copy)
            try f.repository.updateRelease("fix.js", channel: "production", keys: f.channelKeys("production")) { $0.enabled = false }
            try await f.upload()

            var answer = try await f.post(enabled)
            XCTAssertEqual(answer.status, 409)
            XCTAssertEqual(answer.reason, "rollback")

            var fork = try Repository(directory: copy)
            try fork.updateRelease("fix.js", channel: "production", keys: f.channelKeys("production")) { $0.rollout = 100 }
            answer = try await f.post(try fork.uploadContent())
            XCTAssertEqual(answer.reason, "fork")

            let production = try await f.deviceReleases("production")
            XCTAssertEqual(production["fix.js"]?.enabled, false, "devices still see the release disabled")
        } catch { await f.stop(); try? await store.close(); throw error }
        await f.stop()
        try await store.close()
    }

    /// With a 4-second timestamp, the background task re-signs it before it expires: a device
    /// refreshing after 6 s gets a fresh timestamp (without the task it would be expired).
    func testTheTimestampIsReSignedBeforeItExpires() async throws {
        let store = try await sqlite()
        let f = try await HostedRepositoryFixture(self, store: store, timestampExpiry: 4, renewalCheckInterval: 0.1)
        do {
            try await f.releaseFix()
            let firstVersion = try await f.timestampVersion()
            let first = try XCTUnwrap(firstVersion)
            _ = try await f.deviceReleases("production")
            try await Task.sleep(nanoseconds: 6_000_000_000)
            let latest = try await store.latestMetadata(role: "timestamp")
            let stored = try XCTUnwrap(latest)
            XCTAssertGreaterThan(stored.version, first, "re-signed")
            let timestamp = try Metadata<Timestamp>(data: stored.data)
            XCTAssertGreaterThan(timestamp.signed.common.expires, Date(), "never seen expired")
            let production = try await f.deviceReleases("production")
            XCTAssertNotNil(production["fix.js"], "a device refreshes after the first timestamp's expiry")
        } catch { await f.stop(); try? await store.close(); throw error }
        await f.stop()
        try await store.close()
    }

    /// A production key leaks. The publisher rotates it out (a targets edit re-signing production
    /// with a new key) and uploads; after one refresh a device refuses what the leaked key signs,
    /// even from a service whose online keys the attacker also holds. The service itself refuses
    /// an upload signed with the leaked key.
    func testALeakedChannelKeyRotatedOutThroughTheServiceIsRefusedByDevices() async throws {
        let store = try await sqlite()
        let f = try await HostedRepositoryFixture(self, store: store)
        do {
            try await f.releaseFix()
            _ = try await f.deviceReleases("production")

            let leaked = f.keys["production"]!
            let replacement = try SigningKey.generate(.ed25519)
            try f.repository.edit("targets", keys: [f.keys["targets"]!, replacement] + f.online) { targets in
                var delegations = targets.delegations!
                let index = delegations.roles!.firstIndex { $0.name == "production" }!
                delegations.roles![index].keyids = [replacement.keyID]
                delegations.keys[replacement.keyID] = replacement.publicKey
                targets.delegations = delegations
            }
            try await f.upload()
            let rotated = try await f.deviceReleases("production")
            XCTAssertNotNil(rotated["fix.js"], "the release survives the rotation (production re-signed with the new key)")

            // The attacker signs a production role with the leaked key.
            let evil = Data("stealCredentials()".utf8)
            var forged = f.repository.channels["production"]!.signed
            forged.common.version += 1
            forged.targets["production/evil.js"] = TargetFile(data: evil, custom: PatchRelease(app: HostedRepositoryFixture.app, patchID: "evil").custom)
            var metadata = try Metadata(signed: forged)
            try metadata.sign(with: leaked)

            var upload = try f.repository.uploadContent()
            upload.roles["production"] = try metadata.serialized()
            upload.files.append(evil)
            let answer = try await f.post(upload)
            XCTAssertEqual(answer.reason, "unsigned", "the service refuses the leaked key's signature")

            // A service the attacker controls (its online keys too) serves the forged role anyway.
            try await f.serveForged(metadata, as: "production", files: [evil])
            try await f.assertDeviceRefusesSignatures(of: "production")
        } catch { await f.stop(); try? await store.close(); throw error }
        await f.stop()
        try await store.close()
    }

    /// A new root signed by 2 of 3 root keys reaches devices through the service (they follow the
    /// chain); a root signed by one key, a root skipping a version, and a root that takes the
    /// timestamp role from the service's key are refused.
    func testARootRotationReachesDevicesAndBadRootsAreRefused() async throws {
        let store = try await sqlite()
        let f = try await HostedRepositoryFixture(self, store: store)
        do {
            try await f.releaseFix()
            _ = try await f.deviceReleases("production")
            let base = try f.repository.uploadContent()

            func root(version: Int64, signers: [String], change: (inout Root) -> Void = { _ in }) throws -> Data {
                var signed = f.repository.root.signed
                signed.common.version = version
                signed.common.expires = Date().addingTimeInterval(30 * 86_400)   // above the service's minimum of a day
                change(&signed)
                var metadata = try Metadata(signed: signed)
                for name in signers { try metadata.sign(with: f.keys[name]!) }
                return try metadata.serialized()
            }
            var upload = base
            upload.roots.append(try root(version: 2, signers: ["root-1"]))
            var answer = try await f.post(upload)
            XCTAssertEqual(answer.reason, "unsigned", "one of the 2 root signatures needed")

            upload = base
            upload.roots.append(try root(version: 3, signers: ["root-1", "root-2"]))
            answer = try await f.post(upload)
            XCTAssertEqual(answer.reason, "root-gap")

            let stranger = try PatchFormat.SigningKey.generate(.ed25519)
            upload = base
            upload.roots.append(try root(version: 2, signers: ["root-1", "root-2"]) { r in
                r.revoke(keyid: f.keys["timestamp"]!.keyID, from: "timestamp")
                r.add(key: stranger.publicKey, to: "timestamp")
            })
            answer = try await f.post(upload)
            XCTAssertEqual(answer.reason, "online-keys-removed", "devices would freeze on the last timestamp")

            let before = try await f.timestampVersion()
            XCTAssertEqual(before, 1, "nothing refused was stored")

            // A real rotation: root-3 replaced, signed by 2 of the old and 2 of the new keys.
            let replacement = try PatchFormat.SigningKey.generate(.ed25519)
            let outcome = try f.repository.editRoot(keys: [f.keys["root-1"]!, f.keys["root-2"]!, replacement] + f.online) { r in
                r.revoke(keyid: f.keys["root-3"]!.keyID, from: "root")
                r.add(key: replacement.publicKey, to: "root")
            }
            XCTAssertEqual(outcome, .committed(role: "root", version: 2))
            try await f.upload()
            let updater = f.device()
            try await updater.refresh()
            let trusted = try Metadata<Root>(data: Data(contentsOf: f.directory.appendingPathComponent("device/root.json")))
            XCTAssertEqual(trusted.signed.common.version, 2, "the device follows the chain to root 2")
        } catch { await f.stop(); try? await store.close(); throw error }
        await f.stop()
        try await store.close()
    }
}
