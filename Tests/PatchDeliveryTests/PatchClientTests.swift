import Foundation
import PatchDelivery
import PatchFormat
import PatchUpdater
import XCTest

/// `PatchClient` end to end over a real `PatchRepository` tree: what a device runs after each
/// publisher action, offline launches, targeting and rollout, failed scripts.
final class PatchClientTests: XCTestCase {
    func testAReleaseIsAppliedAndRunsFromTheCacheAtTheNextLaunchWithoutNetwork() throws {
        let fixture = try ChannelFixture(self)
        try fixture.release("cart.js", script: "var cart = 1;")
        let applier = RecordingApplier()
        let client = try fixture.launch(applier)
        let events = client.update()
        XCTAssertEqual(events.applied, ["production/cart.js"], "\(events)")
        XCTAssertEqual(client.liveReleases.map(\.reference.patchID), ["cart-fix"])
        XCTAssertEqual(applier.sources.values.sorted(), ["var cart = 1;"])
        client.markLaunchSucceeded()

        // Next launch, the network is down: the verified release runs from the cache.
        fixture.transport.offline = true
        let nextApplier = RecordingApplier()
        let next = try fixture.launch(nextApplier)
        XCTAssertEqual(next.applyCached().applied, ["production/cart.js"])
        let offline = next.update()
        guard case .network = offline.refreshFailure else { return XCTFail("\(offline)") }
        XCTAssertEqual(nextApplier.live.count, 1, "an offline update keeps what runs")

        // A launch that only calls update() while offline still runs what was verified.
        let third = RecordingApplier()
        XCTAssertEqual(try fixture.launch(third).update().applied, ["production/cart.js"])
    }

    func testNothingIsTakenFromMetadataOrTargetsWithoutAFreshRefresh() throws {
        let fixture = try ChannelFixture(self)
        try fixture.release("cart.js", script: "var cart = 1;")
        fixture.transport.offline = true
        let applier = RecordingApplier()
        let client = try fixture.launch(applier)
        XCTAssertEqual(client.applyCached(), [])
        XCTAssertEqual(client.update().applied, [])
        XCTAssertEqual(applier.calls, [])
    }

    func testAppIDVersionRangeModelAndAttributesAreCheckedOnTheDevice() throws {
        let fixture = try ChannelFixture(self)
        try fixture.release("ios17.js", script: "a()", patchID: "a") { $0.appVersions = try AppVersionRange(parsing: ">=1.4.0 <1.5.0"); $0.models = ["iPhone15,2"] }
        try fixture.release("beta.js", script: "b()", patchID: "b") { $0.attributes = ["tier": ["beta"]] }
        try fixture.release("other-app.js", script: "c()", patchID: "c") { $0.app = "com.example.other" }
        try fixture.release("old-os.js", script: "d()", patchID: "d") { $0.osVersions = try AppVersionRange(parsing: "<16") }

        let matching = try fixture.launch(RecordingApplier(), fixture.configuration(deviceID: "m", model: "iPhone15,2", attributes: ["tier": "beta"]))
        XCTAssertEqual(matching.update().applied.sorted(), ["production/beta.js", "production/ios17.js"])

        let other = try fixture.launch(RecordingApplier(), fixture.configuration(deviceID: "o", appVersion: "1.5.0", model: "iPhone14,1"))
        XCTAssertEqual(other.update().applied, [])
    }

    func testARolloutReachesTheDevicesInsideItsShareAndRaisingItAddsTheOthers() throws {
        let fixture = try ChannelFixture(self)
        try fixture.release("cart.js", script: "var cart = 1;", rollout: 1_000)
        let inside = ChannelFixture.deviceID(for: "production/cart.js", inside: true, rollout: 1_000)
        let outside = ChannelFixture.deviceID(for: "production/cart.js", inside: false, rollout: 1_000)
        let a = try fixture.launch(RecordingApplier(), fixture.configuration(deviceID: inside))
        let b = try fixture.launch(RecordingApplier(), fixture.configuration(deviceID: outside))
        XCTAssertEqual(a.update().applied, ["production/cart.js"])
        XCTAssertEqual(b.update().applied, [])
        try fixture.change("cart.js") { $0.rollout = PatchRelease.maxRollout }
        XCTAssertEqual(b.update().applied, ["production/cart.js"])
        XCTAssertEqual(a.update().applied, [], "already running: nothing re-applied")
    }

    func testDisableRevertsEnableReappliesAndRevokeRemovesItForGood() throws {
        let fixture = try ChannelFixture(self)
        try fixture.release("cart.js", script: "var cart = 1;")
        let applier = RecordingApplier()
        let client = try fixture.launch(applier)
        XCTAssertEqual(client.update().applied, ["production/cart.js"])
        try fixture.change("cart.js") { $0.enabled = false }
        XCTAssertEqual(client.update().reverted, ["production/cart.js": .disabled])
        XCTAssertEqual(applier.live, [])
        try fixture.change("cart.js") { $0.enabled = true }
        XCTAssertEqual(client.update().applied, ["production/cart.js"])
        try fixture.revoke("cart.js")
        XCTAssertEqual(client.update().reverted, ["production/cart.js": .withdrawn])
        XCTAssertEqual(applier.live, [])
        let cached = try FileManager.default.contentsOfDirectory(atPath: client.configuration.stateDirectory.appendingPathComponent("targets").path)
        XCTAssertEqual(cached, [], "a revoked release's script leaves the device")

        fixture.transport.offline = true
        XCTAssertEqual(try fixture.launch(RecordingApplier()).applyCached().applied, [], "revoked: not run offline either")
    }

    func testAHigherVersionReplacesTheRunningOneAndDisablingItFallsBack() throws {
        let fixture = try ChannelFixture(self)
        try fixture.release("cart-1.js", script: "v = 1", version: 1)
        let applier = RecordingApplier()
        let client = try fixture.launch(applier)
        XCTAssertEqual(client.update().applied, ["production/cart-1.js"])
        try fixture.release("cart-2.js", script: "v = 2", version: 2)
        let upgrade = client.update()
        XCTAssertEqual(upgrade.applied, ["production/cart-2.js"])
        XCTAssertEqual(upgrade.reverted, ["production/cart-1.js": .superseded])
        XCTAssertEqual(applier.live.count, 1)
        try fixture.change("cart-2.js") { $0.enabled = false }
        let fallback = client.update()
        XCTAssertEqual(fallback.applied, ["production/cart-1.js"])
        XCTAssertEqual(fallback.reverted, ["production/cart-2.js": .disabled])
    }

    func testAScriptThatThrowsLeavesThePreviousReleaseRunning() throws {
        let fixture = try ChannelFixture(self)
        try fixture.release("cart-1.js", script: "v = 1", version: 1)
        let applier = RecordingApplier()
        let client = try fixture.launch(applier)
        client.update()
        try fixture.release("cart-2.js", script: "throw new Error('boom')", version: 2)
        let events = client.update()
        XCTAssertNotNil(events.failures["production/cart-2.js"], "\(events)")
        XCTAssertEqual(client.liveReleases.map(\.reference.path), ["production/cart-1.js"])
        XCTAssertEqual(applier.live.count, 1)
        XCTAssertEqual(applier.sources[applier.live[0]], "v = 1")
    }

    func testATargetAlteredOnTheServerIsRefusedAndNothingOfItRuns() throws {
        let fixture = try ChannelFixture(self)
        try fixture.release("cart.js", script: "good()")
        let tree = fixture.transport.tree.appendingPathComponent("targets/production")
        for name in try FileManager.default.contentsOfDirectory(atPath: tree.path) {
            try Data("evil()".utf8).write(to: tree.appendingPathComponent(name))
        }
        let applier = RecordingApplier()
        let events = try fixture.launch(applier).update()
        guard case .target(_, .targetMismatch)? = events.refusals["production/cart.js"] else { return XCTFail("\(events)") }
        XCTAssertEqual(applier.calls, [])
    }

    func testAnHTTPRepositoryIsRefusedUnlessAllowed() throws {
        let fixture = try ChannelFixture(self)
        var config = fixture.configuration()
        config.allowsInsecureHTTP = false
        XCTAssertThrowsError(try PatchClient(configuration: config, applier: RecordingApplier(), transport: fixture.transport)) {
            XCTAssertEqual(($0 as? PatchClientError)?.code, "configuration")
        }
    }

    /// The crash-loop guard on this path: a release that keeps the app from launching is
    /// disabled after two launches, the device falls back to the previous version.
    func testAReleaseThatCrashesTwoLaunchesIsDisabledAndThePreviousVersionRuns() throws {
        let fixture = try ChannelFixture(self)
        try fixture.release("cart-1.js", script: "v = 1", version: 1)
        let first = try fixture.launch(RecordingApplier())
        first.update()
        first.markLaunchSucceeded()
        try fixture.release("cart-2.js", script: "v = 2 // crashes the app", version: 2)
        for _ in 0..<2 {
            let crashing = try fixture.launch(RecordingApplier())
            crashing.applyCached()
            crashing.update()   // applies v2; the app then dies before launch success
        }
        let applier = RecordingApplier()
        let judged = try fixture.launch(applier)
        let events = judged.applyCached() + judged.update()
        XCTAssertTrue(events.contains { if case .disabledByCrashLoop(let r, 2) = $0 { return r.version == 2 } else { return false } }, "\(events)")
        XCTAssertEqual(judged.liveReleases.map(\.reference.path), ["production/cart-1.js"])
        XCTAssertEqual(applier.live.count, 1)
    }
}
