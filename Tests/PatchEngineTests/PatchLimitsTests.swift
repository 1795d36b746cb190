import Foundation
import XCTest
@testable import PatchEngine

/// What one patch may ask of the runtime is bounded (`PatchLimits`): past a limit the request is
/// refused up front with an error naming it, the script is rolled back, and nothing is dropped
/// silently.
final class PatchLimitsTests: PatchTestCase {
    /// Runs `body` with `change` applied to the engine's limits, restored afterwards.
    private func withLimits(_ change: (inout PatchLimits) -> Void, _ body: () throws -> Void) rethrows {
        let engine = Engine.shared
        let saved = engine.limits.values
        change(&engine.limits.values)
        defer { engine.limits.values = saved }
        try body()
    }

    func testADefineClassOfMoreMethodsThanTheLimitIsRefusedBeforeAnyIsDefined() throws {
        let cls = uniqueClassName("PLTMany")
        let started = Date()
        let error = applyExpectingError("""
        var m = {};
        for (var i = 0; i < 100000; i++) m['m' + i] = function () { return 1; };
        defineClass('\(cls) : NSObject', m);
        """)
        XCTAssertEqual(error?.message.contains("100000 methods, more than the 4096 one defineClass may define"), true, error?.message ?? "no error")
        XCTAssertLessThan(Date().timeIntervalSince(started), 20, "refused up front, not after defining them")
        XCTAssertEqual(try PatchEngine.evaluate("typeof \(cls)", name: "PLT-check.js") as? String, "undefined", "the class was created")
    }

    func testAScriptCreatingMoreClassesThanTheLimitFailsAndIsRolledBack() throws {
        try withLimits({ $0.classesPerScript = 20 }) {
            let prefix = uniqueClassName("PLTClass")
            let error = applyExpectingError("""
            for (var i = 0; i < 21; i++) defineClass('\(prefix)_' + i + ' : NSObject', { v: function () { return 1; } });
            """)
            XCTAssertEqual(error?.message.contains("already created 20 classes, the most one script may create"), true, error?.message ?? "no error")
            // Classes can't be removed from the runtime: the 21st was never created.
            XCTAssertEqual(try PatchEngine.evaluate("typeof \(prefix)_20", name: "PLT-check.js") as? String, "undefined")
        }
    }

    func testPendingDispatchesPastTheLimitAreAnErrorAndTheOthersStillRun() throws {
        let global = "__plt\(Self.nextNumber())"
        try withLimits({ $0.pendingDispatches = 50 }) {
            try apply("globalThis.\(global) = 0;")
            let error = applyExpectingError("for (var i = 0; i < 51; i++) dispatch_after(0.05, function () { \(global)++; });")
            XCTAssertEqual(error?.message.contains("50 dispatched functions are waiting to run already"), true, error?.message ?? "no error")
            XCTAssertTrue(waitUntil { (try? PatchEngine.evaluate("\(global)", name: "PLT-check.js") as? Double) == 50 },
                          "the 50 dispatched before the limit must run")
            // Once they have run, dispatching works again.
            try apply("dispatch_async_main(function () { \(global) = -1; });")
            XCTAssertTrue(waitUntil { (try? PatchEngine.evaluate("\(global)", name: "PLT-check.js") as? Double) == -1 })
        }
    }
}
