import Foundation
import XCTest
import PatchEngine
import PatchFixtures
import PatchRouter
import PatchRouterBindings

/// A runaway script cannot hang the app: evaluation and every call from native code into JS
/// end at `PatchEngine.executionTimeLimit` with a `.timeout` error, and the engine keeps working.
/// Every runaway loop here is bounded by the clock (`spin(ms)`), so a missing limit fails the
/// test instead of hanging the suite.
final class ExecutionTimeLimitTests: TimeLimitTestCase {
    /// JS that spins for `ms` milliseconds of wall-clock time (CPU-bound), then returns 'finished'.
    private func spin(_ ms: Int) -> String {
        "(function() { var t0 = Date.now(); while (Date.now() - t0 < \(ms)) {} return 'finished'; })()"
    }

    func testTheLimitIsAvailableAndHasADefault() {
        XCTAssertTrue(PatchEngine.isExecutionTimeLimitAvailable)
        XCTAssertEqual(PatchEngine.defaultExecutionTimeLimit, PatchEngine.recommendedExecutionTimeLimit, "on by default")
        XCTAssertEqual(PatchEngine.recommendedExecutionTimeLimit, 2.0)
    }

    func testRunawayEvaluationIsATimeoutAndIsRolledBack() throws {
        let name = uniqueScriptName()
        let started = threadCPUTime()
        let error = applyExpectingError("""
        defineClass('PFFailing', { riskyValue: function() { return 99 } });
        \(spin(5000));
        """, name: name)
        XCTAssertLessThan(threadCPUTime() - started, 2, "the limit must end the script")
        XCTAssertEqual(error?.kind, .timeout)
        XCTAssertEqual(error?.scriptName, name)
        XCTAssertEqual(error?.message, "evaluation of \(name) exceeded the 0.2 s execution time limit")
        var raised: Int32 = 0
        XCTAssertEqual(pf_failing_risky_value(&raised), 7, "the evaluation's patch was rolled back")
        XCTAssertFalse(PatchEngine.appliedPatchNames.contains(name))
        XCTAssertEqual(render(try apply("1 + 1")), "2", "the context still evaluates")
        XCTAssertEqual(render(try apply("var n = 0; for (var i = 0; i < 1000; i++) n += i; n")), "499500")
    }

    func testRunawayPatchedMethodFallsBackReportsAndIsReverted() throws {
        let errors = captureErrors()
        let name = uniqueScriptName()
        try apply("defineClass('PFFailing', { riskyValue: function() { \(spin(5000)); return 99 } })", name: name)
        var raised: Int32 = 0
        let started = threadCPUTime()
        XCTAssertEqual(pf_failing_risky_value(&raised), 7, "the native caller gets the original's result")
        XCTAssertLessThan(threadCPUTime() - started, 2)
        XCTAssertEqual(raised, 0)
        let timeout = errors.errors.first { $0.kind == .timeout }
        XCTAssertEqual(timeout?.message, "-[PFFailing riskyValue] (patched by \(name)) exceeded the 0.2 s execution time limit")
        XCTAssertEqual(timeout?.scriptName, name)
        XCTAssertFalse(PatchEngine.appliedPatchNames.contains(name), "the patch whose method timed out is reverted")
        // Later calls run the original, quickly; new patches and evaluations work.
        for _ in 0..<3 { XCTAssertEqual(pf_failing_risky_value(&raised), 7) }
        try apply("defineClass('PFFailing', { riskyValue: function() { return 8 } })")
        XCTAssertEqual(pf_failing_risky_value(&raised), 8)
        XCTAssertEqual(render(try apply("'still ' + 'working'")), "\"still working\"")
    }

    func testPatchedMethodWithinTheLimitIsNotTouched() throws {
        let errors = captureErrors()
        let name = uniqueScriptName()
        try apply("defineClass('PFFailing', { riskyValue: function() { \(spin(20)); return 11 } })", name: name)
        var raised: Int32 = 0
        for _ in 0..<3 { XCTAssertEqual(pf_failing_risky_value(&raised), 11) }
        XCTAssertTrue(errors.errors.isEmpty, "\(errors.errors)")
        XCTAssertTrue(PatchEngine.appliedPatchNames.contains(name))
    }

    func testRunawayCallNestedInAnEvaluationDoesNotDisarmTheLimit() throws {
        let errors = captureErrors()
        let method = uniqueScriptName()
        try apply("defineClass('PFFailing', { riskyValue: function() { \(spin(5000)); return 99 } })", name: method)
        // JS -> Objective-C -> patched method (JS) runs away; after the fallback the outer script
        // runs away too: it must be ended as well, not run unbounded.
        let outer = uniqueScriptName()
        let started = threadCPUTime()
        let error = applyExpectingError("""
        var v = require('PFFailing').alloc().init().riskyValue();
        \(spin(5000));
        """, name: outer)
        XCTAssertLessThan(threadCPUTime() - started, 4)
        XCTAssertEqual(error?.kind, .timeout)
        XCTAssertEqual(error?.message, "evaluation of \(outer) exceeded the 0.2 s execution time limit")
        // The method is called directly from JS (no native entry): its script is named and reverted.
        XCTAssertTrue(errors.errors.contains { $0.kind == .timeout && $0.scriptName == method }, "\(errors.errors)")
        XCTAssertFalse(PatchEngine.appliedPatchNames.contains(method))
        XCTAssertEqual(render(try apply("2 + 2")), "4")
    }

    /// JS methods stay direct JS → JS calls with the limit on: a runaway one is ended with the
    /// native entry around it, and blamed on (reported under, reverted as) its own script.
    func testARunawayMethodCalledDirectlyIsBlamedOnItsOwnScript() throws {
        let errors = captureErrors()
        let callee = uniqueScriptName(), caller = uniqueScriptName()
        let cls = uniqueClassName("PFDirectRunaway")
        try apply("defineClass('\(cls)', { spinAway: function() { \(spin(5000)); return 1 } })", name: callee)
        try apply("defineClass('PFFailing', { riskyValue: function() { return require('\(cls)').alloc().init().spinAway() + 100 } })",
                  name: caller)
        var raised: Int32 = 0
        let started = threadCPUTime()
        XCTAssertEqual(pf_failing_risky_value(&raised), 7, "the native caller gets the original's result")
        XCTAssertLessThan(threadCPUTime() - started, 2)
        let timeout = errors.errors.first { $0.kind == .timeout }
        XCTAssertEqual(timeout?.scriptName, callee, "\(errors.errors)")
        XCTAssertEqual(timeout?.message, "-[PFFailing riskyValue] (patched by \(caller)), in JS of \(callee), exceeded the 0.2 s execution time limit")
        XCTAssertFalse(PatchEngine.appliedPatchNames.contains(callee), "the runaway's script is reverted")
        XCTAssertTrue(PatchEngine.appliedPatchNames.contains(caller), "its caller's is not")
        // The method the reverted script added stays, answering zero (README: Known limitations).
        XCTAssertEqual(pf_failing_risky_value(&raised), 100)
    }

    func testRunawayHookIsATimeoutAndTheHookIsRemoved() throws {
        let errors = captureErrors()
        let name = uniqueScriptName()
        try apply("hook(require('PFFailing'), 'riskyValue', 'instead', function(info) { \(spin(5000)); return 5 })", name: name)
        var raised: Int32 = 0
        let started = threadCPUTime()
        _ = pf_failing_risky_value(&raised)
        XCTAssertLessThan(threadCPUTime() - started, 2)
        XCTAssertEqual(raised, 0)
        let timeout = errors.errors.first { $0.kind == .timeout }
        XCTAssertNotNil(timeout, "\(errors.errors)")
        XCTAssertEqual(timeout?.scriptName, name)
        XCTAssertTrue(timeout?.message.hasSuffix("exceeded the 0.2 s execution time limit") == true, "\(String(describing: timeout))")
        XCTAssertFalse(PatchEngine.appliedPatchNames.contains(name))
        XCTAssertEqual(pf_failing_risky_value(&raised), 7, "the hook went with its script")
    }

    func testRunawayBlockCalledNativelyGivesZeroAndRevertsItsScript() throws {
        let errors = captureErrors()
        let name = uniqueScriptName()
        try apply("""
        require('PFBlockHost').alloc().init().keepIntBlock(block('int, int', function(x) { \(spin(5000)); return x + 100 }))
        """, name: name)
        addTeardownBlock { pf_blocks_forget_kept() }
        var missing: Int32 = 1
        let started = threadCPUTime()
        XCTAssertEqual(pf_blocks_call_kept(5, &missing), 0, "a block that timed out returns zero")
        XCTAssertLessThan(threadCPUTime() - started, 2)
        XCTAssertEqual(missing, 0)
        let timeout = errors.errors.first { $0.kind == .timeout }
        XCTAssertEqual(timeout?.message, "block (from \(name)) exceeded the 0.2 s execution time limit")
        XCTAssertEqual(timeout?.scriptName, name)
        XCTAssertFalse(PatchEngine.appliedPatchNames.contains(name))
        XCTAssertEqual(render(try apply("6 * 7")), "42")
    }

    func testRunawayRouteHandlerIsATimeoutAndTheRouteGoesWithItsScript() throws {
        let errors = captureErrors()
        try PatchRouterBindings.register()
        let router = Router.routes(forScheme: "timeouttest")
        router.removeAllRoutes()
        addTeardownBlock { Router.unregisterRouteScheme("timeouttest") }
        let name = uniqueScriptName()
        try apply("routes.add('/spin', function(params) { \(spin(5000)); return true; }, {scheme: 'timeouttest'})", name: name)
        let started = threadCPUTime()
        XCTAssertFalse(Router.routeURL(URL(string: "timeouttest://spin")!), "a handler that timed out did not handle the URL")
        XCTAssertLessThan(threadCPUTime() - started, 2)
        let timeout = errors.errors.first { $0.kind == .timeout }
        XCTAssertEqual(timeout?.message, "route handler (from \(name)) exceeded the 0.2 s execution time limit")
        XCTAssertFalse(Router.canRouteURL(URL(string: "timeouttest://spin")!), "its script was reverted")
    }

    func testRunawayDispatchedFunctionIsATimeout() throws {
        let errors = captureErrors()
        let name = uniqueScriptName()
        try apply("dispatch_async_global_queue(function() { \(spin(5000)); })", name: name)
        XCTAssertTrue(waitUntil(timeout: 8) { errors.errors.contains { $0.kind == .timeout } }, "\(errors.errors)")
        let timeout = errors.errors.first { $0.kind == .timeout }
        XCTAssertEqual(timeout?.message, "dispatched function (from \(name)) exceeded the 0.2 s execution time limit")
        XCTAssertEqual(render(try apply("'after'")), "\"after\"")
    }

    func testARunawayOnOneThreadDoesNotEndOtherThreadsScripts() throws {
        let errors = captureErrors()
        let name = uniqueScriptName()
        try apply("defineClass('PFFailing', { riskyValue: function() { \(spin(5000)); return 99 } })", name: name)
        let group = DispatchGroup()
        nonisolated(unsafe) var background: Int32 = -1
        DispatchQueue.global().async(group: group) {
            var raised: Int32 = 0
            background = pf_failing_risky_value(&raised)
        }
        // Meanwhile this thread evaluates: the first waits for JavaScriptCore's lock, and its own
        // clock starts only when it runs.
        Thread.sleep(forTimeInterval: 0.05)
        var results: [String] = []
        for i in 0..<20 { results.append(render(try apply("\(i) + 1"))) }
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(results, (0..<20).map { "\($0 + 1)" })
        XCTAssertEqual(background, 7)
        XCTAssertEqual(errors.errors.filter { $0.kind == .timeout }.map(\.scriptName), [name])
    }

    func testNoLimitLetsLongScriptsFinish() throws {
        PatchEngine.executionTimeLimit = nil
        XCTAssertNil(PatchEngine.executionTimeLimit)
        XCTAssertEqual(render(try apply(spin(400))), "\"finished\"")
    }

    func testAScriptCannotCatchTheTimeout() throws {
        let error = applyExpectingError("""
        var caught = 0;
        for (var i = 0; i < 3; i++) { try { \(spin(3000)); } catch (e) { caught++ } }
        'survived ' + caught
        """)
        XCTAssertEqual(error?.kind, .timeout)
    }
}

/// A test case run with a 0.2 s execution time limit (restored after), against the limits' default
/// end (the exception at check points) and, in `make test`'s run with `PATCHENGINE_LIMITS_END=watchdog`,
/// against JavaScriptCore's watchdog (`PatchEngine.LimitEnd`).
class TimeLimitTestCase: PatchTestCase {
    private var previousLimit: TimeInterval?

    override func setUpWithError() throws {
        try super.setUpWithError()
        XCTAssertTrue(PatchEngine.isExecutionTimeLimitAvailable)
        XCTAssertEqual(PatchEngine.limitEnd, runsWithWatchdogEnd ? .watchdog : .exception, "the watchdog's end where asked for and its functions are")
        previousLimit = PatchEngine.executionTimeLimit
        PatchEngine.executionTimeLimit = 0.2
    }

    override func tearDown() {
        PatchEngine.executionTimeLimit = previousLimit
        super.tearDown()
    }
}
