import Foundation
import PatchDelivery
import XCTest

final class CrashLoopGuardTests: XCTestCase {
    func testPatchThatNeverReachesLaunchSuccessIsDisabledAfterTwoLaunches() throws {
        let f = try DeliveryFixture(self)
        try f.serve(try f.patch(version: 1))
        // Launch 1: downloads and applies v1, then "crashes" (never calls markLaunchSucceeded).
        try f.launch(RecordingApplier()).update()
        // Launch 2: applies v1 from cache, crashes again.
        let second = RecordingApplier()
        try f.launch(second).applyCachedPatches()
        XCTAssertEqual(second.live, ["shop-fixes@1/fix.js"])
        // Launch 3: v1 was pending through 2 launches: disabled, not applied, reported.
        let third = RecordingApplier()
        let loader = try f.launch(third)
        XCTAssertEqual(loader.applyCachedPatches(), [
            .disabledByCrashLoop(patchID: "shop-fixes", version: 1, launches: 2),
            .refused(file: "patch.json", reason: .disabledByCrashLoop(patchID: "shop-fixes", version: 1)),
        ])
        XCTAssertEqual(third.calls, [])
        XCTAssertTrue(loader.crashLoopGuard.isDisabled(patchID: "shop-fixes", version: 1))
        // Still served: downloaded again but refused.
        XCTAssertEqual(loader.update().refusals, [.disabledByCrashLoop(patchID: "shop-fixes", version: 1)])
        XCTAssertEqual(third.calls, [])
        // The verdict is on disk at once: the next launch doesn't judge (or report) it again.
        XCTAssertEqual(try f.launch(RecordingApplier()).applyCachedPatches(), [])
        // A fixed version is a fresh start.
        try f.serve(try f.patch(version: 2))
        XCTAssertEqual(loader.update().first, .applied(patchID: "shop-fixes", version: 2, source: .network))
        XCTAssertEqual(PatchEvent.disabledByCrashLoop(patchID: "shop-fixes", version: 1, launches: 2).description,
                       "disabled shop-fixes v1: 2 launches in a row did not succeed with it")
    }

    func testLaunchSuccessKeepsThePatch() throws {
        let f = try DeliveryFixture(self)
        try f.serve(try f.patch(version: 1))
        let first = try f.launch(RecordingApplier())
        first.update()
        first.markLaunchSucceeded()
        for _ in 0..<3 {
            let applier = RecordingApplier()
            let loader = try f.launch(applier)
            XCTAssertEqual(loader.applyCachedPatches(), [.applied(patchID: "shop-fixes", version: 1, source: .cache)])
            XCTAssertEqual(loader.crashLoopGuard.unconfirmedLaunches(patchID: "shop-fixes", version: 1), 1)
            loader.markLaunchSucceeded()
            XCTAssertEqual(loader.crashLoopGuard.unconfirmedLaunches(patchID: "shop-fixes", version: 1), 0)
        }
    }

    func testThresholdIsConfigurable() throws {
        let f = try DeliveryFixture(self)
        try f.serve(try f.patch(version: 1))
        var config = f.configuration()
        config.crashLoopThreshold = 3
        try f.launch(RecordingApplier(), configuration: config).update()
        try f.launch(RecordingApplier(), configuration: config).applyCachedPatches()
        let third = RecordingApplier()
        try f.launch(third, configuration: config).applyCachedPatches()
        XCTAssertEqual(third.live, ["shop-fixes@1/fix.js"], "3 launches allowed")
        XCTAssertEqual(try f.launch(RecordingApplier(), configuration: config).applyCachedPatches().first,
                       .disabledByCrashLoop(patchID: "shop-fixes", version: 1, launches: 3))
    }

    func testLaunchesKilledWhileWaitingOnTheNetworkDoNotCountAgainstTheCachedPatch() throws {
        let f = try DeliveryFixture(self)
        try f.serve(try f.patch(version: 1))
        let first = try f.launch(RecordingApplier())
        first.update()
        first.markLaunchSucceeded()
        let offline = offlineConfiguration(f)
        for launch in 2...5 {
            XCTAssertEqual(try launchKilledWhileWaitingOnTheNetwork(f, offline), [.applied(patchID: "shop-fixes", version: 1, source: .cache)],
                           "launch \(launch)")
        }
        // A launch that goes past the network and never succeeds still counts, from the moment it applies.
        for _ in 0..<2 {
            let applier = RecordingApplier()
            XCTAssertEqual(try f.launch(applier, configuration: offline).applyCachedPatches(),
                           [.applied(patchID: "shop-fixes", version: 1, source: .cache)])
        }
        XCTAssertEqual(try f.launch(RecordingApplier(), configuration: offline).applyCachedPatches().first,
                       .disabledByCrashLoop(patchID: "shop-fixes", version: 1, launches: 2))
    }

    func testOnlySoManyLaunchesKilledDuringTheNetworkWaitAreExcused() throws {
        // Else a patch that crashes the app while update() waits would never be caught.
        let f = try DeliveryFixture(self)
        try f.serve(try f.patch(version: 1))
        let first = try f.launch(RecordingApplier())
        first.update()
        first.markLaunchSucceeded()
        let offline = offlineConfiguration(f)
        let excused = CrashLoopGuard.maxExcusedNetworkWaits
        XCTAssertEqual(excused, 5)
        var results: [[PatchEvent]] = []
        for _ in 0..<(excused + 3) { results.append(try launchKilledWhileWaitingOnTheNetwork(f, offline)) }
        let applied: [PatchEvent] = [.applied(patchID: "shop-fixes", version: 1, source: .cache)]
        XCTAssertEqual(Array(results.prefix(excused + 2)), Array(repeating: applied, count: excused + 2))
        XCTAssertEqual(results.last?.first, .disabledByCrashLoop(patchID: "shop-fixes", version: 1, launches: 2))
    }

    /// The server is gone: each attempt fails and update() waits before retrying.
    func offlineConfiguration(_ f: DeliveryFixture) -> PatchLoader.Configuration {
        var offline = f.configuration(retry: RetryPolicy(maxAttempts: 2, initialDelay: 1))
        offline.baseURL = URL(string: "http://127.0.0.1:9/")!
        return offline
    }

    /// One launch: cached patches, then update(), "killed" in update()'s wait: the state directory
    /// is put back as it was at that moment. Returns what applyCachedPatches() reported.
    func launchKilledWhileWaitingOnTheNetwork(_ f: DeliveryFixture, _ configuration: PatchLoader.Configuration) throws -> [PatchEvent] {
        let snapshot = f.root.appendingPathComponent("at-the-kill")
        let loader = try PatchLoader(configuration: configuration, applier: RecordingApplier(), sleep: { _ in
            try? FileManager.default.removeItem(at: snapshot)
            try? FileManager.default.copyItem(at: f.stateDirectory, to: snapshot)
        })
        let events = loader.applyCachedPatches()
        loader.update()
        guard FileManager.default.fileExists(atPath: snapshot.path) else { return events }  // not killed: applied nothing to wait with
        try FileManager.default.removeItem(at: f.stateDirectory)
        try FileManager.default.moveItem(at: snapshot, to: f.stateDirectory)
        return events
    }

    func testALaunchKilledBeforeApplyingAnythingDoesNotCount() throws {
        let f = try DeliveryFixture(self)
        try f.serve(try f.patch(version: 1))
        try f.launch(RecordingApplier()).update()  // launch 1 applies v1 and crashes: 1 launch
        // Launches that end before applying anything (killed while starting up) change nothing.
        for _ in 0..<3 { _ = try f.launch(RecordingApplier()) }
        let applier = RecordingApplier()
        let loader = try f.launch(applier)
        XCTAssertEqual(loader.crashLoopGuard.unconfirmedLaunches(patchID: "shop-fixes", version: 1), 1)
        XCTAssertEqual(loader.applyCachedPatches(), [.applied(patchID: "shop-fixes", version: 1, source: .cache)])
        XCTAssertEqual(loader.crashLoopGuard.unconfirmedLaunches(patchID: "shop-fixes", version: 1), 2)
    }

    func testGuardFileOnItsOwn() throws {
        let dir = try makeTemporaryDirectory(self)
        let launch1 = CrashLoopGuard(directory: dir, threshold: 2)
        XCTAssertNil(launch1.loadProblem)
        XCTAssertEqual(launch1.unconfirmedLaunches(patchID: "p", version: 1), 0)
        // A corrupt file is reported and starts afresh.
        try Data("garbage".utf8).write(to: dir.appendingPathComponent("launch-guard.json"))
        let launch2 = CrashLoopGuard(directory: dir)
        XCTAssertNotNil(launch2.loadProblem)
        XCTAssertFalse(launch2.isDisabled(patchID: "p", version: 1))
        XCTAssertEqual(launch2.threshold, 2, "default")
    }
}
