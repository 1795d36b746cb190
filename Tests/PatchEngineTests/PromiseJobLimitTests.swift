import Foundation
import XCTest
import PatchEngine
import PatchFixtures

/// Promise jobs (`then` callbacks, `async` continuations) a script queues run inside the entry
/// that queued them, under its limits: JavaScriptCore runs them when its API lock is last
/// released, which the engine's held lock put after the entry, where a job that never returned
/// hung the app (a patch's `Promise.resolve().then(() => { while (true) {} })`). Every runaway here
/// is bounded by the clock, so a missing limit fails the test instead of hanging the suite.
final class PromiseJobLimitTests: TimeLimitTestCase {
    /// A job that spins for `ms` milliseconds of wall-clock time (CPU-bound).
    private func queuedSpin(_ ms: Int) -> String {
        "Promise.resolve().then(function () { var t0 = Date.now(); while (Date.now() - t0 < \(ms)) {} })"
    }

    func testARunawayJobQueuedByAnEvaluationEndsItAndIsRolledBack() throws {
        let name = uniqueScriptName()
        let started = threadCPUTime()
        let error = applyExpectingError("""
        defineClass('PFFailing', { riskyValue: function() { return 99 } });
        \(queuedSpin(3000));
        'queued'
        """, name: name)
        XCTAssertLessThan(threadCPUTime() - started, 2, "the limit must end the job")
        XCTAssertEqual(error?.kind, .timeout)
        XCTAssertEqual(error?.message, "evaluation of \(name) exceeded the 0.2 s execution time limit")
        var raised: Int32 = 0
        XCTAssertEqual(pf_failing_risky_value(&raised), 7, "the evaluation's patch was rolled back")
        XCTAssertFalse(PatchEngine.appliedPatchNames.contains(name))
        XCTAssertEqual(render(try apply("1 + 1")), "2", "the context still evaluates")
        XCTAssertEqual(render(try apply("var done = 0; Promise.resolve().then(function () { done = 1 }); 'queued'")), "\"queued\"")
        XCTAssertEqual(render(try apply("done")), "1", "later jobs still run")
    }

    func testARunawayJobQueuedByAPatchedMethodFallsBackReportsAndIsReverted() throws {
        let errors = captureErrors()
        let name = uniqueScriptName()
        try apply("defineClass('PFFailing', { riskyValue: function() { \(queuedSpin(3000)); return 99 } })", name: name)
        var raised: Int32 = 0
        let started = threadCPUTime()
        XCTAssertEqual(pf_failing_risky_value(&raised), 7, "the native caller gets the original's result")
        XCTAssertLessThan(threadCPUTime() - started, 2, "the limit must end the job")
        XCTAssertEqual(raised, 0)
        let timeout = errors.errors.first { $0.kind == .timeout }
        XCTAssertEqual(timeout?.message, "-[PFFailing riskyValue] (patched by \(name)) exceeded the 0.2 s execution time limit")
        XCTAssertFalse(PatchEngine.appliedPatchNames.contains(name), "the patch whose job ran away is reverted")
        XCTAssertEqual(pf_failing_risky_value(&raised), 7)
    }

    func testAnAsyncContinuationThatRunsAwayIsEnded() throws {
        let errors = captureErrors()
        let name = uniqueScriptName()
        try apply("""
        defineClass('PFFailing', { riskyValue: function() {
          (async function () { await 0; var t0 = Date.now(); while (Date.now() - t0 < 3000) {} })();
          return 99;
        } })
        """, name: name)
        var raised: Int32 = 0
        let started = threadCPUTime()
        XCTAssertEqual(pf_failing_risky_value(&raised), 7)
        XCTAssertLessThan(threadCPUTime() - started, 2, "the limit must end the continuation")
        XCTAssertEqual(errors.errors.first { $0.kind == .timeout }?.scriptName, name)
    }

    /// After the limit ends one job, the jobs queued behind it must not run outside the entry:
    /// two more 3 s runaways would take 6 s of this thread's CPU there.
    func testJobsQueuedBehindAnEndedJobDoNotRunUnbounded() throws {
        let started = threadCPUTime()
        let error = applyExpectingError("\(queuedSpin(3000)); \(queuedSpin(3000)); \(queuedSpin(3000)); 'queued'")
        XCTAssertEqual(error?.kind, .timeout)
        XCTAssertLessThan(threadCPUTime() - started, 2)
        XCTAssertEqual(render(try apply("2 + 2")), "4")
        XCTAssertLessThan(threadCPUTime() - started, 2, "nothing queued ran after the entry either")
    }

    /// A job queued by a patched method called from JS runs when the outer entry ends, within it.
    func testAJobQueuedInANestedEntryRunsUnderTheOuterEntry() throws {
        let name = uniqueScriptName()
        try apply("defineClass('PFFailing', { riskyValue: function() { \(queuedSpin(3000)); return 99 } })", name: name)
        let started = threadCPUTime()
        let error = applyExpectingError("var v = PFFailing.alloc().init().riskyValue(); v")
        XCTAssertLessThan(threadCPUTime() - started, 2, "the limit must end the job")
        XCTAssertEqual(error?.kind, .timeout)
    }
}

/// Jobs run at the end of the entry that queued them, as JavaScriptCore runs them at the end of
/// a call: a script's `then` has run when `evaluate` returns, a patched method's when its native
/// caller gets the result. In every configuration (without JavaScriptCore's private functions the
/// engine does not hold the API lock across entries, and JavaScriptCore runs them itself).
final class PromiseJobOrderTests: PatchTestCase {
    func testAnEvaluationsJobsHaveRunWhenItReturns() throws {
        XCTAssertEqual(render(try apply("""
        var order = [];
        Promise.resolve().then(function () { order.push('job') });
        (async function () { await 0; order.push('continuation') })();
        order.push('top level');
        order.length
        """)), "1", "the jobs run after the script's top level")
        XCTAssertEqual(render(try apply("order.join(',')")), "\"top level,job,continuation\"")
    }

    func testAPatchedMethodsJobsHaveRunWhenItsCallerGetsTheResult() throws {
        try apply("""
        var ran = 0;
        defineClass('PFFailing', { riskyValue: function() { Promise.resolve().then(function () { ran++ }); return 40 + ran } })
        """)
        var raised: Int32 = 0
        XCTAssertEqual(pf_failing_risky_value(&raised), 40)
        XCTAssertEqual(render(try apply("ran")), "1")
        XCTAssertEqual(pf_failing_risky_value(&raised), 41)
        XCTAssertEqual(render(try apply("ran")), "2")
    }
}
