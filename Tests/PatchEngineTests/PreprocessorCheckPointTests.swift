import XCTest
@testable import PatchEngine

/// The check points `Preprocessor.prepare` inserts for the execution limits: one at the start of
/// every loop body and every function body, as a prefix on the same line, so that programs keep
/// their meaning (evaluated with and without them), their lines and their error columns.
final class PreprocessorCheckPointTests: XCTestCase {
    private let tick = "if(--__peTick[0]<__peTick[1]&&__peTock());else "
    private let bodyTick = ";var __peTicked=--__peTick[0]<__peTick[1]&&__peTock();"
    private let arrowTick = "--__peTick[0]<__peTick[1]&&__peTock()?0:"

    private func prepared(_ source: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        let result = Preprocessor.prepare(source)
        XCTAssertNil(result.reservedName, file: file, line: line)
        return result.code
    }

    func testLoopBodiesGetAPrefixThatKeepsUnbracedBodiesAndDanglingElse() {
        XCTAssertEqual(prepared("while (c) x();"), "while (c) \(tick)x();")
        XCTAssertEqual(prepared("for (;;) {}"), "for (;;) \(tick){}")
        XCTAssertEqual(prepared("for (const k of o) ;"), "for (const k of o) \(tick);")
        XCTAssertEqual(prepared("if (a) while (c) x(); else y();"), "if (a) while (c) \(tick)x(); else y();")
        XCTAssertEqual(prepared("if (a) { } else if (b) c();"), "if (a) { } else if (b) c();", "no loop, no function: nothing")
    }

    func testDoBodiesGetOneAndTheirWhileTailNone() {
        XCTAssertEqual(prepared("do x(); while (c);"), "do \(tick)x(); while (c);")
        XCTAssertEqual(prepared("do { x() } while (c)"), "do \(tick){ x() } while (c)")
        XCTAssertEqual(prepared("do x()\nwhile (c)"), "do \(tick)x()\nwhile (c)")
        // A while loop as the do's body, and do inside do.
        XCTAssertEqual(prepared("do while (a) b(); while (c);"), "do \(tick)while (a) \(tick)b(); while (c);")
        XCTAssertEqual(prepared("do do x(); while (a); while (b);"), "do \(tick)do \(tick)x(); while (a); while (b);")
        XCTAssertEqual(prepared("do if (a) while (b) c(); while (d);"), "do \(tick)if (a) while (b) \(tick)c(); while (d);")
    }

    func testFunctionBodiesGetOneAfterTheirDirectives() {
        XCTAssertEqual(prepared("function f(a) { return a }"), "function f(a) { \(bodyTick)return a }")
        XCTAssertEqual(prepared("function f() { 'use strict'; return this }"), "function f() { 'use strict'; \(bodyTick)return this }")
        XCTAssertEqual(prepared("function f() {\n  \"use strict\"\n  return this\n}"), "function f() {\n  \"use strict\"\n  \(bodyTick)return this\n}")
        XCTAssertEqual(prepared("function f() { 'a'.length }"), "function f() { \(bodyTick)'a'.length }", "a string that begins an expression is no directive")
        XCTAssertEqual(prepared("var o = { m() {}, get x() { return 1 } }"), "var o = { m() {\(bodyTick)}, get x() { \(bodyTick)return 1 } }")
        XCTAssertEqual(prepared("var f = async (a) => { await a }"), "var f = async (a) => { \(bodyTick)await a }")
        XCTAssertEqual(prepared("var f = x => x + 1"), "var f = x => \(arrowTick)x + 1")
        XCTAssertEqual(prepared("var f = x => y = x, z"), "var f = x => \(arrowTick)y = x, z")
    }

    func testClassAndSwitchBodiesAndCatchBlocksGetNone() {
        XCTAssertEqual(prepared("class A extends mix(B) { m() {} }"), "class A extends mix(B) { m() {\(bodyTick)} }")
        XCTAssertEqual(prepared("var o = { class() {} }"), "var o = { class() {\(bodyTick)} }", "a method named class")
        XCTAssertEqual(prepared("var o = { class: 1 }; function f() {}"), "var o = { class: 1 }; function f() {\(bodyTick)}")
        XCTAssertEqual(prepared("switch (x) { case 1: break }"), "switch (x) { case 1: break }")
        XCTAssertEqual(prepared("try { a() } catch (e) { b() }"), "try { a() } catch (e) { b() }")
    }

    /// The call rewrite and the check points together; lines never change.
    func testCallsAreStillRewrittenAndLinesKept() {
        let source = "for (;;)\n  o.m(function () {\n  return 1 })"
        let code = prepared(source)
        XCTAssertEqual(code, "for (;;)\n  \(tick)o.__c(__pe.m||\"m\")(function () {\n  \(bodyTick)return 1 })")
        XCTAssertEqual(Preprocessor.prepare(source).rewriteCount, 1, "check points are not counted as rewritten calls")
    }

    /// A script naming the reserved identifiers, in any spelling, is refused at its position;
    /// a string or a longer name is not.
    func testReservedNamesAreFoundInEverySpelling() {
        for (source, column) in [("var __peTick = 1", 5), ("x = 1;\n  __peTock()", 3), ("__pe\\u0054ick[0] = 1e9", 1),
                                 ("o.__peT\\u{6f}ck", 3), ("ü = 1; __peTick", 8), ("function f(__peTicked) {}", 12)] {
            let reserved = Preprocessor.prepare(source).reservedName
            XCTAssertEqual(reserved?.column, column, source)
            XCTAssertEqual(reserved?.line, source.contains("\n") ? 2 : 1, source)
        }
        for source in ["'__peTick'", "__peTicks = 1", "// __peTock", "`__peTick`"] {
            XCTAssertNil(Preprocessor.prepare(source).reservedName, source)
        }
        XCTAssertNil(Preprocessor.rewrite("__peTick").reservedName, "the public rewrite inserts no check points")
    }

    /// Error columns on lines with check points map back to the source: the same position as
    /// JavaScriptCore reports for the source itself.
    func testErrorColumnsMapBackAcrossCheckPoints() {
        for source in ["var n = 0;\nwhile (n++ < 2) if (n > 1) null.x;", "var n = 0;\nfor (;;) { n++; if (n > 3) undefinedName() }",
                       "function f() { return g() }\nvar g = () => h(); f()", "do o.m(); while (0)"] {
            let result = Preprocessor.prepare(source)
            XCTAssertNotEqual(result.code, source)
            let plain = PreprocessorJSContext(), checked = PreprocessorJSContext()
            _ = checked.evaluate(Self.checkPointRuntime(count: 1_000))
            guard case .exception(_, let line?, let column?) = plain.evaluate(source),
                  case .exception(_, let checkedLine?, let checkedColumn?) = checked.evaluate(result.code) else {
                XCTFail("expected an exception from \(source)")
                continue
            }
            XCTAssertNotEqual(checkedColumn, column, "the check points moved it: \(source)")
            let original = result.originalPosition(line: checkedLine, column: checkedColumn)
            XCTAssertEqual(original.line, line, source)
            XCTAssertEqual(original.column, column, source)
        }
    }

    /// The equivalence corpus and more shapes give the same values with check points, with a
    /// counter small enough that tocks happen; each loop iteration and call counts once.
    func testProgramsBehaveTheSameWithCheckPoints() {
        let extra: [(name: String, script: String)] = [
            ("dangling else", "var r = []; for (var a of [true, false]) { var i = 0; if (a) while (i < 2) i++; else r.push('e'); r.push(i) } r"),
            ("do while shapes", "var i = 0, j = 0; do i++; while (i < 3); do { j++ } while (j < 5)\nvar k = 0; do k++\nwhile (k < 4)\n[i, j, k]"),
            ("directives", "function f() { 'use strict'; return this === undefined } function g() { return this === undefined } [f(), g()]"),
            ("labels and continue", "var n = 0; outer: for (var i = 0; i < 4; i++) { for (var j = 0; j < 4; j++) { if (j == 2) continue outer; n++ } } n"),
            ("try finally continue", "var n = 0; for (var i = 0; i < 5; i++) { try { if (i % 2) throw 1; n++ } catch (e) { continue } finally { n += 10 } } n"),
            ("classes", "class A { constructor(x) { this.x = x } get y() { return this.x + 1 } static s() { return 2 } } class B extends A { m() { return super.y } } [new B(1).m(), A.s()]"),
            ("generators", "function* g() { for (let i = 0; i < 3; i++) yield i } [...g()]"),
            ("arrows", "var f = x => x ? { v: x } : null, g = (a, b) => a + b, h = () => ({}); [f(2).v, f(0), g(1, 2), typeof h()]"),
            ("switch", "function s(x) { switch (x) { case 1: return 'one'; default: return 'other' } } [s(1), s(2)]"),
        ]
        var tocks = 0
        for (name, script) in PreprocessorEquivalenceTests.corpus + extra {
            let before = PreprocessorJSContext().evaluate(script)
            guard case .value = before else {
                XCTFail("\(name): the original program failed: \(before)")
                continue
            }
            let prepared = Preprocessor.prepare(script)
            let context = PreprocessorJSContext()
            _ = context.evaluate(Self.checkPointRuntime(count: 3))
            XCTAssertEqual(context.evaluate(prepared.code), before, "\(name)\n\(prepared.code)")
            XCTAssertEqual(prepared.code.filter { $0 == "\n" }.count, script.filter { $0 == "\n" }.count, name)
            if case .value(let count) = context.evaluate("tocks") { tocks += Int(count) ?? 0 }
        }
        XCTAssertGreaterThan(tocks, 20, "the check points ran")
        let context = PreprocessorJSContext()
        _ = context.evaluate(Self.checkPointRuntime(count: 1_000_000))
        let counted = Preprocessor.prepare("function f(n) { return n < 2 ? n : f(n - 1) + f(n - 2) } for (var i = 0; i < 10; i++) f(5)").code
        _ = context.evaluate(counted)
        XCTAssertEqual(context.evaluate("1000000 - __peTick[0]"), .value("160"), "10 iterations + 10 × 15 calls of f")
    }

    /// What the engine defines (runtime.js), for a bare context: the counter, and a tock that
    /// counts itself and restarts the countdown.
    static func checkPointRuntime(count: Int) -> String {
        "var tocks = 0; const __peTick = new Int32Array([\(count), 1]); const __peTock = function () { tocks++; __peTick[0] = \(count); return false };"
    }
}
