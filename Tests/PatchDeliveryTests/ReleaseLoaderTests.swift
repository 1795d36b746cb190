import Foundation
import PatchDelivery
import XCTest

/// Devices following a channel over the real QA server: staged rollout, lowering, disable and
/// enable, promotion, targeting, and the refusals that keep a mirror from changing any of it.
final class ReleaseLoaderTests: XCTestCase {
    func testLoweringARolloutRevertsDevicesOutsideItToThePreviousRelease() throws {
        let f = try ReleaseFixture(self)
        let v1 = try f.release("fix-1", version: 1)
        let v2 = try f.release("fix-2", version: 2, rollout: 5000)
        try f.publish("production", [v1, v2])
        // A device inside 50 % but outside 10 %: it gets v2, then falls back to v1 when lowered.
        let id = (0...).lazy.map { "d\($0)" }.first { (1000..<5000).contains(RolloutBucket.bucket(deviceID: $0, releaseID: "fix-2")) }!
        let applier = RecordingApplier()
        let loader = try f.loader(applier, device: DeviceProfile(deviceID: id))
        XCTAssertEqual(loader.update().appliedReleases, ["fix-2"])
        XCTAssertEqual(applier.live, ["shop-fixes@2/fix.js"])

        try f.change("production", "fix-2") { $0.rollout = 1000 }
        let events = loader.update()
        XCTAssertTrue(events.contains(.reverted(releaseID: "fix-2", patchID: "shop-fixes", version: 2, reason: .excluded(.outsideRollout))), "\(events)")
        XCTAssertEqual(events.appliedReleases, ["fix-1"], "a lower version, because the signed channel says so")
        XCTAssertEqual(applier.live, ["shop-fixes@1/fix.js"])
    }

    func testDisablingRevertsEverywhereAndEnablingReapplies() throws {
        let f = try ReleaseFixture(self)
        let v1 = try f.release("fix-1", version: 1)
        try f.publish("production", [v1])
        let appliers = (0..<5).map { _ in RecordingApplier() }
        let loaders = try appliers.enumerated().map { try f.loader($1, device: DeviceProfile(deviceID: "dev-\($0)")) }
        for l in loaders { XCTAssertEqual(l.update().appliedReleases, ["fix-1"]) }

        try f.change("production", "fix-1") { $0.state = .disabled }
        for (l, a) in zip(loaders, appliers) {
            XCTAssertEqual(l.update().last, .reverted(releaseID: "fix-1", patchID: "shop-fixes", version: 1, reason: .excluded(.disabled)))
            XCTAssertEqual(a.live, [])
        }
        try f.change("production", "fix-1") { $0.state = .enabled }
        for (l, a) in zip(loaders, appliers) {
            XCTAssertEqual(l.update().appliedReleases, ["fix-1"], "enabling again re-applies (unlike revocation)")
            XCTAssertEqual(a.live, ["shop-fixes@1/fix.js"])
        }
    }

    func testStagingDevicesGetAReleaseFirstAndPromotionBringsItToProduction() throws {
        let f = try ReleaseFixture(self)
        let v1 = try f.release("fix-1", version: 1)
        let v2 = try f.release("fix-2", version: 2)
        try f.publish("production", [v1])
        try f.publish("staging", [v1, v2])
        let qa = RecordingApplier(), customer = RecordingApplier()
        let qaLoader = try f.loader(qa, device: DeviceProfile(deviceID: "qa-phone"), channel: "staging")
        let customerLoader = try f.loader(customer, device: DeviceProfile(deviceID: "customer"), channel: "production")
        XCTAssertEqual(qaLoader.update().appliedReleases, ["fix-2"])
        XCTAssertEqual(customerLoader.update().appliedReleases, ["fix-1"])

        // Promotion re-signs only the production document; the patch file is the one QA ran.
        try f.publish("production", [v1, v2])
        XCTAssertEqual(customerLoader.update().appliedReleases, ["fix-2"])
        XCTAssertEqual(customer.live, qa.live)
    }

    func testTargetedReleaseReachesOnlyMatchingDevices() throws {
        let f = try ReleaseFixture(self)
        let targeted = try f.release("fix-1", version: 1, targeting: .init(osVersions: try AppVersionRange(parsing: ">=17.0.0"),
                                                                        models: ["iPhone15,2"], attributes: ["tier": ["beta"]]))
        try f.publish("production", [targeted])
        let match = DeviceProfile(deviceID: "a", osVersion: try SemanticVersion(parsing: "17.4"), model: "iPhone15,2", attributes: ["tier": "beta"])
        var other = match; other.deviceID = "b"; other.model = "iPhone12,1"
        var old = match; old.deviceID = "c"; old.osVersion = try SemanticVersion(parsing: "16.7")
        XCTAssertEqual(try f.loader(RecordingApplier(), device: match).update().appliedReleases, ["fix-1"])
        XCTAssertEqual(try f.loader(RecordingApplier(), device: other).update().appliedReleases, [])
        XCTAssertEqual(try f.loader(RecordingApplier(), device: old).update().appliedReleases, [])
        // App-version targeting lives in the release too (not only in the patch's own range).
        let appTargeted = try f.release("fix-2", version: 2, targeting: .init(appVersions: try AppVersionRange(parsing: ">=1.5.0")))
        try f.publish("production", [appTargeted])
        let device = DeviceProfile(deviceID: "d")
        XCTAssertEqual(try f.loader(RecordingApplier(), device: device, configuration: f.configuration(device: device, appVersion: "1.4.0")).update().appliedReleases, [])
        XCTAssertEqual(try f.loader(RecordingApplier(), device: device, configuration: f.configuration(device: device, appVersion: "1.5.1")).update().appliedReleases, ["fix-2"])
    }

    func testAReplayedOlderChannelDocumentCannotWidenALoweredRollout() throws {
        let f = try ReleaseFixture(self)
        let v1 = try f.release("fix-1", version: 1)
        let v2 = try f.release("fix-2", version: 2)
        let wide = try f.publish("production", [v1, v2])            // #1: v2 to everyone
        try f.change("production", "fix-2") { $0.rollout = 0 }      // #2: v2 pulled back
        let id = "device-x"
        let loader = try f.loader(RecordingApplier(), device: DeviceProfile(deviceID: id))
        XCTAssertEqual(loader.update().appliedReleases, ["fix-1"])
        try f.delivery.serve(wide.fileData(), as: "channels/production.json")   // a mirror replays #1
        let events = loader.update()
        XCTAssertEqual(events.releaseRefusals, [.channelRollback(sequence: 1, current: 2)])
        XCTAssertEqual(loader.liveReleaseIDs, ["fix-1"])
        // The same sequence with other content is refused too.
        var forged = f.channels["production"]!
        forged.releases[1].rollout = 10_000
        try f.delivery.serve(try PatchSigner(key: f.delivery.key).sign(forged).fileData(), as: "channels/production.json")
        XCTAssertEqual(loader.update().releaseRefusals, [.channelReplay(sequence: 2)])
    }

    func testAnotherChannelsDocumentOrAnotherSignedPatchIsRefused() throws {
        let f = try ReleaseFixture(self)
        let v1 = try f.release("fix-1", version: 1)
        let staging = try f.publish("staging", [v1])
        try f.delivery.serve(staging.fileData(), as: "channels/production.json")
        let loader = try f.loader(RecordingApplier(), device: DeviceProfile(deviceID: "d"))
        XCTAssertEqual(loader.update().releaseRefusals, [.wrongChannel(expected: "production", found: "staging")])

        // The file under the release's path is a validly signed patch, but not the one the release names.
        try f.publish("production", [v1])
        let other = try f.delivery.patch(id: "shop-fixes", version: 1, scripts: [("fix.js", "var other = 1;")])
        try f.delivery.serve(other, as: v1.file)
        XCTAssertEqual(loader.update().releaseRefusals, [.digestMismatch(releaseID: "fix-1", expected: v1.digest, found: other.digest)])
        XCTAssertEqual(loader.liveReleaseIDs, [])
    }

    func testUntrustedKeyIsRefused() throws {
        let f = try ReleaseFixture(self)
        try f.publish("production", [try f.release("fix-1", version: 1)], key: SigningKey.generate(id: "mirror-key"))
        let loader = try f.loader(RecordingApplier(), device: DeviceProfile(deviceID: "d"))
        XCTAssertEqual(loader.update().releaseRefusals, [.patch(.unknownKey(keyID: "mirror-key"))])
    }

    func testTheNextLaunchAppliesFromTheCacheWithoutTheNetwork() throws {
        let f = try ReleaseFixture(self)
        try f.publish("production", [try f.release("fix-1", version: 1)])
        let device = DeviceProfile(deviceID: "d")
        let config = f.configuration(device: device)
        XCTAssertEqual(try f.loader(RecordingApplier(), device: device, configuration: config).update().appliedReleases, ["fix-1"])
        f.delivery.server.stop(gracePeriod: 0.1)
        let applier = RecordingApplier()
        let events = try f.loader(applier, device: device, configuration: config).applyCachedReleases()
        XCTAssertEqual(events, [.applied(releaseID: "fix-1", patchID: "shop-fixes", version: 1, source: .cache)])
        // A stored document without the state that vouches for it is not used.
        try FileManager.default.removeItem(at: config.stateDirectory.appendingPathComponent("release-state-production.json"))
        XCTAssertEqual(try f.loader(RecordingApplier(), device: device, configuration: config).applyCachedReleases(), [])
    }

    func testAFailingScriptRestoresThePreviousReleaseAndARevokedReleaseIsReverted() throws {
        let f = try ReleaseFixture(self)
        let v1 = try f.release("fix-1", version: 1)
        try f.publish("production", [v1])
        let applier = RecordingApplier()
        var config = f.configuration(device: DeviceProfile(deviceID: "d"))
        config.revocationListFile = "revocations.json"
        try f.delivery.serveRevocations([], sequence: 1)
        let loader = try f.loader(applier, device: config.device, configuration: config)
        XCTAssertEqual(loader.update().appliedReleases, ["fix-1"])
        let bad = try f.release("fix-2", version: 2, script: "throw new Error('boom')")
        try f.publish("production", [v1, bad])
        let events = loader.update()
        XCTAssertTrue(events.contains { if case .failed("fix-2", _, 2, _) = $0 { return true } else { return false } }, "\(events)")
        XCTAssertEqual(applier.live, ["shop-fixes@1/fix.js"], "the previous release is back")

        // A revoked release falls back to the previous one; with nothing before it, to no patch.
        let v3 = try f.release("fix-3", version: 3)
        try f.publish("production", [v1, v3])
        XCTAssertEqual(loader.update().appliedReleases, ["fix-3"])
        try f.delivery.serveRevocations([.init(patchID: "shop-fixes", versions: [3])], sequence: 2)
        let revoked = loader.update()
        XCTAssertTrue(revoked.contains(.reverted(releaseID: "fix-3", patchID: "shop-fixes", version: 3, reason: .revoked)), "\(revoked)")
        XCTAssertEqual(revoked.appliedReleases, ["fix-1"])
        XCTAssertEqual(applier.live, ["shop-fixes@1/fix.js"])
        try f.delivery.serveRevocations([.init(patchID: "shop-fixes", versions: [1, 3])], sequence: 3)
        let all = loader.update()
        XCTAssertTrue(all.contains(.reverted(releaseID: "fix-1", patchID: "shop-fixes", version: 1, reason: .revoked)), "\(all)")
        XCTAssertEqual(applier.live, [])
    }

    /// A release that keeps the app from launching is disabled on the device by the crash-loop
    /// guard, and the device falls back to the previous release.
    func testACrashLoopingReleaseFallsBackToThePreviousRelease() throws {
        let f = try ReleaseFixture(self)
        let v1 = try f.release("fix-1", version: 1)
        let v2 = try f.release("fix-2", version: 2)
        try f.publish("production", [v1, v2])
        let device = DeviceProfile(deviceID: "d")
        let config = f.configuration(device: device)
        // Launches 1 and 2 apply fix-2 and never reach markLaunchSucceeded() (they "crash").
        XCTAssertEqual(try f.loader(RecordingApplier(), device: device, configuration: config).update().appliedReleases, ["fix-2"])
        XCTAssertEqual(try f.loader(RecordingApplier(), device: device, configuration: config).applyCachedReleases().appliedReleases, ["fix-2"])
        // Launch 3: the guard disables fix-2 before it runs; the network brings fix-1.
        let applier = RecordingApplier()
        let loader = try f.loader(applier, device: device, configuration: config)
        let launch = loader.applyCachedReleases()
        XCTAssertTrue(launch.contains(.disabledByCrashLoop(releaseID: "fix-2", patchID: "shop-fixes", version: 2, launches: 2)), "\(launch)")
        XCTAssertEqual(launch.appliedReleases, [], "fix-1 was never downloaded: nothing from the cache")
        XCTAssertEqual(loader.update().appliedReleases, ["fix-1"])
        loader.markLaunchSucceeded()
        XCTAssertEqual(applier.live, ["shop-fixes@1/fix.js"])
        XCTAssertEqual(applier.appliedNames, ["shop-fixes@1/fix.js"], "fix-2 never ran in launch 3")
    }

    func testAStaleChannelDocumentChangesNothing() throws {
        let f = try ReleaseFixture(self)
        try f.publish("production", [try f.release("fix-1", version: 1)], issued: Date().addingTimeInterval(-7200))
        var config = f.configuration(device: DeviceProfile(deviceID: "d"))
        config.channelMaxAge = 3600
        let loader = try f.loader(RecordingApplier(), device: config.device, configuration: config)
        let events = loader.update()
        XCTAssertEqual(events.last, .channelStale(channel: "production", sequence: 1))
        XCTAssertEqual(events.appliedReleases, [])
        try f.publish("production", [try f.release("fix-2", version: 2)])
        XCTAssertEqual(loader.update().appliedReleases, ["fix-2"], "a fresh document is taken in")
    }

    /// 200 simulated devices, 10 % then 100 %: the share that runs the new release follows the rollout.
    func testStagedRolloutAcrossAFleet() throws {
        let f = try ReleaseFixture(self)
        let v1 = try f.release("fix-1", version: 1)
        let v2 = try f.release("fix-2", version: 2, rollout: 1000)
        try f.publish("production", [v1, v2])
        let fleet = try (0..<200).map { n -> (ReleaseLoader, RecordingApplier) in
            let a = RecordingApplier()
            return (try f.loader(a, device: DeviceProfile(deviceID: "fleet-\(n)")), a)
        }
        func onV2() -> Int { fleet.filter { $0.0.liveReleaseIDs == ["fix-2"] }.count }
        for (l, _) in fleet { l.update() }
        let expected = (0..<200).filter { RolloutBucket.bucket(deviceID: "fleet-\($0)", releaseID: "fix-2") < 1000 }.count
        XCTAssertEqual(onV2(), expected)
        XCTAssertGreaterThan(expected, 5); XCTAssertLessThan(expected, 40)
        XCTAssertEqual(fleet.filter { $0.0.liveReleaseIDs == ["fix-1"] }.count, 200 - expected)
        try f.change("production", "fix-2") { $0.rollout = ReleaseChannel.fullRollout }
        for (l, _) in fleet { l.update() }
        XCTAssertEqual(onV2(), 200)
        print("fleet of 200: \(expected) on fix-2 at 10 %, 200 at 100 %")
    }
}
