import Foundation
import PatchDelivery
import XCTest

/// The guard's file on its own (its behaviour on PatchClient's path: PatchClientCrashLoopTests,
/// PatchClientTests, PatchClientAttackTests.testAttack6_…).
final class CrashLoopGuardTests: XCTestCase {
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
