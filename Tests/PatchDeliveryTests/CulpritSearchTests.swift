import Foundation
import PatchDelivery
import XCTest

/// Several patches pending when launches keep failing: only the culprit is disabled.
final class CulpritSearchTests: XCTestCase {
    /// Three patches, each in its own file, applied at the first launch in this order (c is the newest).
    let files: [PatchLoader.PatchFile] = [.init("a.json", patchID: "patch-a"), .init("b.json", patchID: "patch-b"),
                                          .init("c.json", patchID: "patch-c")]

    struct Launch {
        var applied: [String]
        var events: [PatchEvent]
        var succeeded: Bool
    }

    /// Drives `count` launches the way an app does: cached patches, then the network; a launch
    /// "crashes" (never calls markLaunchSucceeded) when one of `bad` is live.
    func launches(_ count: Int, bad: Set<String>, _ f: DeliveryFixture, files: [PatchLoader.PatchFile]? = nil) throws -> [Launch] {
        var config = f.configuration(patchFiles: files ?? self.files)
        config.crashLoopThreshold = 2
        var result: [Launch] = []
        for _ in 0..<count {
            let applier = RecordingApplier()
            let loader = try f.launch(applier, configuration: config)
            var events = loader.applyCachedPatches()
            events += loader.update()
            let live = loader.livePatches.map(\.patchID)
            let crashed = live.contains { bad.contains($0) }
            if !crashed { events += loader.markLaunchSucceeded() }
            result.append(Launch(applied: live, events: events, succeeded: !crashed))
        }
        return result
    }

    func serveAll(_ f: DeliveryFixture) throws {
        for file in files {
            try f.serve(try f.patch(id: file.patchID, version: 1), as: file.path)
        }
    }

    func id(_ name: String) -> PatchVersionID { PatchVersionID(patchID: name, version: 1) }

    func testOneBadPatchAmongThreeIsFoundAndOnlyItIsDisabled() throws {
        let f = try DeliveryFixture(self)
        try serveAll(f)
        let runs = try launches(7, bad: ["patch-b"], f)
        XCTAssertEqual(runs.map(\.applied), [
            ["patch-a", "patch-b", "patch-c"],  // 1: everything new, crashes
            ["patch-a", "patch-b", "patch-c"],  // 2: crashes again: a crash loop with three suspects
            ["patch-c"],                        // 3: the newest alone: succeeds, c is cleared
            ["patch-b", "patch-c"],             // 4: b (the newer half of a, b) with c: crashes
            ["patch-b", "patch-c"],             // 5: crashes again: b alone is pinned
            ["patch-a", "patch-c"],             // 6: b disabled; a tried: succeeds, cleared, search over
            ["patch-a", "patch-c"],             // 7: an ordinary launch
        ])
        XCTAssertEqual(runs.map(\.succeeded), [false, false, true, false, false, true, true])
        let third = runs[2].events
        XCTAssertEqual(third.first, .crashLoopSearchStarted(suspects: [id("patch-c"), id("patch-b"), id("patch-a")]))
        XCTAssertTrue(third.contains(.heldByCrashLoopGuard(patchID: "patch-a", version: 1)), "\(third)")
        XCTAssertTrue(third.contains(.heldByCrashLoopGuard(patchID: "patch-b", version: 1)), "\(third)")
        XCTAssertEqual(third.last, .clearedByCrashLoopGuard(patchID: "patch-c", version: 1))
        XCTAssertEqual(runs[5].events.first, .disabledByCrashLoop(patchID: "patch-b", version: 1, launches: 2))
        XCTAssertTrue(runs[5].events.contains(.refused(file: "b.json", reason: .disabledByCrashLoop(patchID: "patch-b", version: 1))))
        XCTAssertEqual(runs[5].events.last, .clearedByCrashLoopGuard(patchID: "patch-a", version: 1))
        // Nothing but b was ever disabled, and the held patches were kept, not refused.
        let all = runs.flatMap(\.events)
        XCTAssertEqual(all.filter { if case .disabledByCrashLoop = $0 { return true } else { return false } }.count, 1)
        XCTAssertFalse(all.contains(.refused(file: "a.json", reason: .disabledByCrashLoop(patchID: "patch-a", version: 1))))
        let guardState = CrashLoopGuard(directory: f.stateDirectory)
        XCTAssertFalse(guardState.isSearching)
        XCTAssertEqual(["patch-a", "patch-b", "patch-c"].map { guardState.isDisabled(patchID: $0, version: 1) }, [false, true, false])
        XCTAssertEqual(PatchEvent.heldByCrashLoopGuard(patchID: "patch-a", version: 1).description,
                       "held back patch-a v1 for this launch: the crash-loop guard is trying other patches first")
    }

    func testTwoBadPatchesAreBothFoundAndTheInnocentOneStays() throws {
        let f = try DeliveryFixture(self)
        try serveAll(f)
        let runs = try launches(11, bad: ["patch-a", "patch-c"], f)
        XCTAssertEqual(runs.map(\.applied), [
            ["patch-a", "patch-b", "patch-c"],
            ["patch-a", "patch-b", "patch-c"],  // a crash loop
            ["patch-c"],                        // 3, 4: the newest alone crashes twice: c pinned
            ["patch-c"],
            ["patch-a", "patch-b"],             // 5, 6: the rest together still crash: one of them is bad
            ["patch-a", "patch-b"],
            ["patch-b"],                        // 7: the newer half: succeeds, b cleared
            ["patch-a", "patch-b"],             // 8, 9: a (with the cleared b) crashes twice: a pinned
            ["patch-a", "patch-b"],
            ["patch-b"],                        // 10: search over
            ["patch-b"],
        ])
        XCTAssertEqual(runs[4].events.first, .disabledByCrashLoop(patchID: "patch-c", version: 1, launches: 2))
        XCTAssertEqual(runs[9].events.first, .disabledByCrashLoop(patchID: "patch-a", version: 1, launches: 2))
        let guardState = CrashLoopGuard(directory: f.stateDirectory)
        XCTAssertFalse(guardState.isSearching)
        XCTAssertEqual(["patch-a", "patch-b", "patch-c"].map { guardState.isDisabled(patchID: $0, version: 1) }, [true, false, true])
    }

    func testASuspectThatNoLongerShowsUpDoesNotStallTheSearch() throws {
        let f = try DeliveryFixture(self)
        try serveAll(f)
        _ = try launches(2, bad: ["patch-c"], f)
        // The app drops c.json (its bad patch) while the guard was about to try c alone.
        let runs = try launches(4, bad: [], f, files: Array(files.prefix(2)))
        XCTAssertEqual(runs.map(\.applied), [[], ["patch-b"], ["patch-a", "patch-b"], ["patch-a", "patch-b"]])
        XCTAssertEqual(runs.map(\.succeeded), [true, true, true, true])
        XCTAssertEqual(runs[1].events.last, .clearedByCrashLoopGuard(patchID: "patch-b", version: 1))
        XCTAssertEqual(runs[2].events.last, .clearedByCrashLoopGuard(patchID: "patch-a", version: 1))
        XCTAssertFalse(CrashLoopGuard(directory: f.stateDirectory).isSearching)
    }

    func testASinglePendingPatchIsStillDisabledDirectly() throws {
        // The classic case: no search needed when only one patch was pending.
        let f = try DeliveryFixture(self)
        try serveAll(f)
        let config = f.configuration(patchFiles: [files[1]])
        for _ in 0..<2 {
            let loader = try f.launch(RecordingApplier(), configuration: config)
            loader.applyCachedPatches()
            loader.update()
        }
        let applier = RecordingApplier()
        let events = try f.launch(applier, configuration: config).applyCachedPatches()
        XCTAssertEqual(events, [.disabledByCrashLoop(patchID: "patch-b", version: 1, launches: 2),
                                .refused(file: "b.json", reason: .disabledByCrashLoop(patchID: "patch-b", version: 1))])
        XCTAssertEqual(applier.calls, [])
    }
}
