import Foundation
import XCTest
import PatchEngine
import PatchFixtures
import PatchSupport

/// What a script past a limit can do about its end. With JavaScriptCore's watchdog nothing: its JS
/// is terminated uncatchably. Without it (`PatchEngine.limitsEndByException`: the App Store
/// configuration, `PATCHENGINE_PRIVATE_SYMBOLS=absent`) the end is an exception thrown at every
/// check point the ended entry reaches: a `catch` sees it but gets no further than its next loop
/// turn or call, and the entry is ended whatever its JS returns. Each test holds in both modes;
/// every runaway is bounded by the clock (5 s), so an end that does not hold fails the test.
final class LimitEndByExceptionTests: TimeLimitTestCase {
    private let spin = "var t0 = Date.now(); while (Date.now() - t0 < 5000) {}"

    /// A script extension whose `seen(text)` records what a script's `catch` saw.
    private func recorder() throws -> (name: String, seen: () -> [String]) {
        let name = "peEndSeen\(Self.nextNumber())"
        let seen = LockedValue<[String]>([])
        try PatchEngine.register(ScriptExtension(name: name, functions: [
            "seen": { call in seen.withLock { $0.append(call.argument(0) as? String ?? "?") }; return nil },
        ]))
        return (name, { seen.withLock { $0 } })
    }

    /// A patched method that catches its end and returns a value of its own: the native caller
    /// still gets the original's result, the error handler the timeout, and the script is
    /// reverted. (Broken if an entry that returned normally were taken at its word: 42.)
    func testAPatchedMethodThatCatchesItsEndAndReturnsIsEndedAllTheSame() throws {
        let errors = captureErrors()
        let (ext, seen) = try recorder()
        let name = uniqueScriptName()
        try apply("""
        defineClass('PFFailing', { riskyValue: function() {
          try { \(spin) } catch (e) { \(ext).seen(String(e)); return 42 }
          return 99 } })
        """, name: name)
        let started = threadCPUTime()
        var raised: Int32 = 0
        XCTAssertEqual(pf_failing_risky_value(&raised), 7, "the native caller gets the original's result")
        XCTAssertLessThan(threadCPUTime() - started, 2, "the limit must end the method")
        let timeout = errors.errors.first { $0.kind == .timeout }
        XCTAssertEqual(timeout?.message, "-[PFFailing riskyValue] (patched by \(name)) exceeded the 0.2 s execution time limit")
        XCTAssertFalse(PatchEngine.appliedPatchNames.contains(name), "the script is reverted")
        XCTAssertEqual(pf_failing_risky_value(&raised), 7)
        // The one difference a script can see: its catch ran, with the end as its exception.
        XCTAssertEqual(seen(), PatchEngine.limitsEndByException ? ["Error: JavaScript execution terminated."] : [])
    }

    /// A catch that runs away again, and a `finally` that does: each is ended at its first loop
    /// turn. (Broken if the end were thrown once: the second loop ran its 5 s.)
    func testAnEndCaughtByARunawayIsThrownAgainAtItsNextCheckPoint() throws {
        // What runs after the catch spins 20 s of wall time: at least 2 s of this thread's CPU even
        // on a machine whose other processes leave it a fifth of a core.
        let again = "var t2 = Date.now(); while (Date.now() - t2 < 20000) {}"
        for script in [
            "try { \(spin) } catch (e) { \(again) } 'survived'",
            "try { \(spin) } finally { \(again) } 'survived'",
            "var t1 = Date.now(); function again() { try { \(spin) } catch (e) { if (Date.now() - t1 < 20000) return again() } } again(); 'survived'",
            "var p = [], t1 = Date.now(); while (Date.now() - t1 < 20000) { try { \(spin) } catch (e) { p.push(e) } } 'survived'",
        ] {
            let name = uniqueScriptName()
            let started = threadCPUTime()
            let error = applyExpectingError(script, name: name)
            XCTAssertLessThan(threadCPUTime() - started, 2, "the limit must end: \(script)")
            XCTAssertEqual(error?.kind, .timeout, "\(script): \(String(describing: error))")
            XCTAssertEqual(error?.message, "evaluation of \(name) exceeded the 0.2 s execution time limit")
        }
        XCTAssertEqual(render(try apply("'still running'")), "\"still running\"")
    }

    /// An end caught in a callback a builtin calls (`forEach`, a sort's comparator) is thrown again
    /// at the callback's next call, which ends the builtin; promise jobs queued before are ended too.
    func testAnEndCaughtInsideABuiltinsCallbackEndsTheBuiltin() throws {
        let (ext, seen) = try recorder()
        // One deadline for the whole script: without the end every callback would spin 5 s.
        let spin = "while (Date.now() - t1 < 5000) {}"
        for script in [
            "var t1 = Date.now(); [1, 2, 3, 4, 5, 6, 7, 8].forEach(function (x) { try { \(spin) } catch (e) { \(ext).seen('forEach ' + x) } }); 'survived'",
            "var t1 = Date.now(); [5, 3, 8, 1, 9, 2].sort(function (a, b) { try { \(spin) } catch (e) { \(ext).seen('sort') } return a - b }); 'survived'",
            "var t1 = Date.now(); Promise.resolve().then(function () { try { \(spin) } catch (e) { \(ext).seen('job') } }).then(function () { \(ext).seen('next job') }); 'queued'",
        ] {
            let started = threadCPUTime()
            let error = applyExpectingError(script)
            XCTAssertLessThan(threadCPUTime() - started, 2, "the limit must end: \(script)")
            XCTAssertEqual(error?.kind, .timeout, "\(script): \(String(describing: error))")
        }
        // With the exception, each callback that caught it ran once; nothing ran after it.
        XCTAssertEqual(seen(), PatchEngine.limitsEndByException ? ["forEach 1", "sort", "job"] : [])
    }
}
