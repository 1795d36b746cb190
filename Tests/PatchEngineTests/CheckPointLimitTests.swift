import Foundation
import XCTest
import PatchEngine
import PatchFixtures

/// The execution time limit reaches a runaway through the check points the preprocessor puts in
/// every loop and function body (`ExecutionTimeLimit`): also in code made at run time (eval,
/// Function, the generator and async function constructors), in loops that swallow exceptions,
/// and in recursion without any loop; a script can't name the check points' identifiers. Every
/// runaway here is bounded by the clock (5 s), so a missing check point fails the test (its CPU
/// time) instead of hanging the suite.
final class CheckPointLimitTests: TimeLimitTestCase {
    /// A loop spinning for 5 s of wall-clock time, as source text to make code from.
    private let spinSource = "var t0 = Date.now(); while (Date.now() - t0 < 5000) {}"

    /// Evaluates `script`, which must be ended by the limit within 2 s of this thread's CPU time.
    private func assertEnded(_ script: String, file: StaticString = #filePath, line: UInt = #line) {
        let name = uniqueScriptName()
        let started = threadCPUTime()
        let error = applyExpectingError(script, name: name, file: file, line: line)
        XCTAssertLessThan(threadCPUTime() - started, 2, "the limit must end the script", file: file, line: line)
        XCTAssertEqual(error?.kind, .timeout, "\(String(describing: error))", file: file, line: line)
        XCTAssertEqual(error?.message, "evaluation of \(name) exceeded the 0.2 s execution time limit", file: file, line: line)
    }

    func testRunawayInsideEvaldCodeIsEnded() {
        assertEnded("eval('\(spinSource)'); 'survived'")
    }

    func testRunawayInsideNewFunctionCodeIsEnded() {
        assertEnded("new Function('a', '\(spinSource)')(1); 'survived'")
        assertEnded("Function('\(spinSource)')(); 'survived'")
    }

    func testRunawayInGeneratorAndAsyncFunctionsMadeByTheirConstructorsIsEnded() {
        assertEnded("var G = Object.getPrototypeOf(function* () {}).constructor; new G('\(spinSource) yield 1')().next(); 'survived'")
        assertEnded("var A = Object.getPrototypeOf(async function () {}).constructor; A('\(spinSource)')(); 'survived'")
        assertEnded("(function* () {}).constructor('\(spinSource) yield 1')().next(); 'survived'")
    }

    /// Code made at run time still works: eval (now indirect: global scope), Function with
    /// parameters and directives, generator constructors.
    func testCodeMadeAtRunTimeStillWorks() throws {
        XCTAssertEqual(render(try apply("eval('var e = 0; for (var i = 0; i < 5; i++) e += i; e')")), "10")
        XCTAssertEqual(render(try apply("eval(42)")), "42", "a non-string is returned as it is")
        XCTAssertEqual(render(try apply("new Function('a', 'b', '\"use strict\"; return this === undefined && a + b')(2, 3)")), "5")
        XCTAssertEqual(render(try apply("Function('a = 1, b = [1,2].map(x => x * 2)', 'return a + b[1]')()")), "5")
        XCTAssertEqual(render(try apply("[...(function* () {}).constructor('n', 'for (let i = 0; i < n; i++) yield i')(3)].join()")), "\"0,1,2\"")
        XCTAssertEqual(render(try apply("(function () {}) instanceof Function && Function.prototype.constructor === Function")), "true")
    }

    /// A loop whose iterations spend their time in native code (0.5 ms of CPU a call, against
    /// ≈ 1 ns for a check point): each call from JS into native code counts as 100 check points
    /// (`PECheckPoints.h`), so the first check comes after ≈ 1,000 calls (0.5 s) instead of
    /// 100,000 iterations (50 s).
    func testALoopWhoseTimeGoesToNativeCallsIsEnded() {
        assertEnded("var b = require('PFCPUBurner'), t0 = Date.now(); while (Date.now() - t0 < 5000) b.burnMilliseconds(0.5); 'survived'")
    }

    /// The loop swallows every exception (`catch`, `finally` with `continue`): the termination is
    /// not one it can swallow.
    func testRunawayThatCatchesAndContinuesIsEnded() {
        assertEnded("""
        var t0 = Date.now();
        while (Date.now() - t0 < 5000) { try { while (Date.now() - t0 < 5000) {} } catch (e) { continue } finally { continue } }
        'survived'
        """)
    }

    /// Exponential recursion whose stack overflows are caught: no loop anywhere, only calls.
    func testRecursionWithoutLoopsIsEnded() {
        assertEnded("""
        var t0 = Date.now();
        function f(n) { if (Date.now() - t0 > 5000) return; try { f(n + 1) } catch (e) {} try { f(n + 1) } catch (e) {} }
        f(0); 'survived'
        """)
        assertEnded("var t0 = Date.now(); var g = n => n > 40 || Date.now() - t0 > 5000 ? 0 : g(n + 1) + g(n + 1); g(0); 'survived'")
    }

    /// The check points' identifiers, in any spelling, are refused before the script runs, in a
    /// script and in code made at run time.
    func testScriptsNamingTheReservedIdentifiersAreRefused() throws {
        let name = uniqueScriptName()
        let error = applyExpectingError("defineClass('PFFailing', { riskyValue: function() { return 99 } })\n  __peTick[0] = 1e9", name: name)
        XCTAssertEqual(error?.kind, .syntax)
        XCTAssertEqual(error?.line, 2)
        XCTAssertEqual(error?.column, 3)
        XCTAssertEqual(error?.message, "the identifiers __peTick, __peTock and __peTicked are reserved for the engine's execution checks; rename it")
        var raised: Int32 = 0
        XCTAssertEqual(pf_failing_risky_value(&raised), 7, "nothing of the script ran")
        XCTAssertEqual(applyExpectingError("var __pe\\u0054ock = function () { return false }")?.kind, .syntax)
        let evaluated = applyExpectingError("eval('__peTick[0] = 1e9')")
        XCTAssertEqual(evaluated?.kind, .evaluation)
        XCTAssertTrue(evaluated?.message.contains("reserved for the engine's execution checks") == true, "\(String(describing: evaluated))")
        XCTAssertThrowsError(try PatchEngine.checkSyntax("let __peTock = 1"))
        XCTAssertEqual(render(try apply("'__peTick'.length")), "8", "in a string it is only text")
    }

    /// The limit runs from an entry's first check point: a patched method that runs a long loop
    /// is ended, a call of a few check points is never judged (costs no system call).
    func testAPatchedMethodWithALongLoopIsEndedAndShortCallsAreNot() throws {
        let errors = captureErrors()
        let name = uniqueScriptName()
        try apply("defineClass('PFFailing', { riskyValue: function() { \(spinSource) return 99 } })", name: name)
        var raised: Int32 = 0
        let started = threadCPUTime()
        XCTAssertEqual(pf_failing_risky_value(&raised), 7)
        XCTAssertLessThan(threadCPUTime() - started, 2)
        XCTAssertEqual(errors.errors.map(\.kind), [.timeout])
        try apply("defineClass('PFFailing', { riskyValue: function() { var n = 0; for (var i = 0; i < 1000; i++) n++; return n } })")
        for _ in 0..<2_000 { XCTAssertEqual(pf_failing_risky_value(&raised), 1000) }
        XCTAssertEqual(errors.errors.count, 1)
    }

    /// After an entry that ran long, the VM's next entry is watched from its start (no tock inside
    /// its loop, `ExecutionTimeLimit.armAtStart`): long calls in a row within the limit are not
    /// ended, and a runaway among them is, with its countdown out of reach.
    func testARunawayAfterLongCallsIsEndedAndTheLongCallsAreNot() throws {
        let errors = captureErrors()
        try apply("""
        var pfCalls = 0;
        defineClass('PFFailing', { riskyValue: function() {
          var n = 0; for (var i = 0; i < 300000; i++) n++;
          if (++pfCalls == 4) { \(spinSource) }
          return n == 300000 ? 8 : 0 } })
        """)
        var raised: Int32 = 0
        for _ in 0..<3 { XCTAssertEqual(pf_failing_risky_value(&raised), 8) }
        XCTAssertTrue(errors.errors.isEmpty, "\(errors.errors)")
        let started = threadCPUTime()
        XCTAssertEqual(pf_failing_risky_value(&raised), 7)
        XCTAssertLessThan(threadCPUTime() - started, 2)
        XCTAssertEqual(errors.errors.map(\.kind), [.timeout])
    }
}
