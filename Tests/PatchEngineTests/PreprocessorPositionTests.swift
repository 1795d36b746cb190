import XCTest
@testable import PatchEngine

/// Error positions reported by JavaScriptCore for rewritten code map back to the source.
final class PreprocessorPositionTests: XCTestCase {
    private let header = "var o = { a: function () { return this }, f: function () { return nothing + 1 } };\n"

    /// Evaluates `script` as written and rewritten; the rewritten run's error, mapped back,
    /// must be where JavaScriptCore puts it in the original, which must be `expected`.
    private func assertMapsBack(_ script: String, expected: (line: Int, column: Int), message: String,
                                file: StaticString = #filePath, line: UInt = #line) {
        let rewritten = Preprocessor.rewrite(script)
        XCTAssertGreaterThan(rewritten.rewriteCount, 0, file: file, line: line)
        guard case .exception(let originalMessage, let l0?, let c0?) = PreprocessorJSContext().evaluate(script),
              case .exception(let rewrittenMessage, let l1?, let c1?) = PreprocessorJSContext().evaluate(rewritten.code) else {
            return XCTFail("both versions should throw with a position", file: file, line: line)
        }
        XCTAssertEqual(originalMessage, message, file: file, line: line)
        XCTAssertEqual(Preprocessor.restoreCalls(in: rewrittenMessage), originalMessage, file: file, line: line)
        XCTAssertEqual(l0, expected.line, "line in the original", file: file, line: line)
        XCTAssertEqual(c0, expected.column, "column in the original", file: file, line: line)
        let mapped = rewritten.originalPosition(line: l1, column: c1)
        XCTAssertEqual(mapped.line, expected.line, "mapped line", file: file, line: line)
        XCTAssertEqual(mapped.column, expected.column, "mapped column (rewritten code reported \(l1):\(c1))", file: file, line: line)
    }

    func testMissingMethodAfterRewrittenCallsWithWideCharacters() {
        assertMapsBack(header + "var s = \"é😀\"; o.a().a().missing();", expected: (2, 33),
                       message: "TypeError: o.a().a().missing is not a function. (In 'o.a().a().missing()', 'o.a().a().missing' is undefined)")
    }

    func testReferenceErrorAfterRewrittenCalls() {
        assertMapsBack(header + "var s = \"é😀\"; o.a().a(); nothing.x;", expected: (2, 34),
                       message: "ReferenceError: Can't find variable: nothing")
    }

    func testThrowAfterRewrittenCalls() {
        assertMapsBack(header + "o.a().a(); throw new Error('boom')", expected: (2, 27), message: "Error: boom")
    }

    func testPropertyOfUndefinedInAChain() {
        assertMapsBack(header + "o.a().a().b.c.d();", expected: (2, 12),
                       message: "TypeError: undefined is not an object (evaluating 'o.a().a().b.c')")
    }

    func testNestedCallInArguments() {
        assertMapsBack(header + "o.a(o.a(), o.a(o.zz()));", expected: (2, 20),
                       message: "TypeError: o.zz is not a function. (In 'o.zz()', 'o.zz' is undefined)")
    }

    func testErrorInsideACalledFunctionOnALineWithoutRewrites() {
        assertMapsBack(header + "o.a()\n  .f();", expected: (1, 74), message: "ReferenceError: Can't find variable: nothing")
    }

    func testCallSpanningLines() {
        assertMapsBack(header + "o.a().a(1, 2, o.\n a(), nope.x);", expected: (3, 11), message: "ReferenceError: Can't find variable: nope")
    }

    func testSyntaxErrorKeepsItsLine() {
        let script = header + "o.a()\n\nvar x = {;\n"
        guard case .exception(let message, let line?, _) = PreprocessorJSContext().evaluate(Preprocessor.rewrite(script).code) else {
            return XCTFail("expected a syntax error")
        }
        XCTAssertTrue(message.hasPrefix("SyntaxError"), message)
        XCTAssertEqual(line, 4)
    }

    func testMappingArithmetic() {
        // Line 2: `  a.__c(__pe.bc||"bc")(x.__c(__pe.d||"d")())`; the names start at columns 14 and
        // 35 of the output.
        let result = Preprocessor.rewrite("z\n  a.bc(x.d())\nq")
        XCTAssertEqual(result.code, "z\n  a.__c(__pe.bc||\"bc\")(x.__c(__pe.d||\"d\")())\nq")
        // Original line 2: `  a.bc(x.d())`.
        let expectations: [(Int, Int)] = [
            (1, 1), (4, 4),                     // before the first insertion
            (5, 5), (13, 5),                    // inside `__c(__pe.` → start of the name
            (14, 5), (15, 6),                   // the name `bc`
            (16, 7), (19, 7), (22, 7),          // inside `||"bc")` → end of the name
            (23, 7), (24, 8), (25, 9),          // `(x.` shifted by 16
            (26, 10), (34, 10), (35, 10),       // second `__c(__pe.`, then `d`
            (36, 11), (39, 11), (41, 11),       // `||"d")` → end of `d`
            (42, 11), (43, 12), (44, 13), (45, 14),  // after both insertions, shifted by 31
        ]
        for (column, original) in expectations {
            XCTAssertEqual(result.originalPosition(line: 2, column: column).column, original, "column \(column)")
            XCTAssertEqual(result.originalPosition(line: 2, column: column).line, 2)
        }
        XCTAssertEqual(result.originalPosition(line: 1, column: 3).column, 3)
        XCTAssertEqual(result.originalPosition(line: 3, column: 1).column, 1)
        XCTAssertEqual(result.originalPosition(line: 99, column: 7).column, 7)
        XCTAssertEqual(result.originalPosition(line: 0, column: 0).column, 0)
    }

    func testColumnsCountUTF16Units() {
        // "😀" is two UTF-16 units, "é" one, in the source and in the name's second copy alike.
        let result = Preprocessor.rewrite("'😀é'; a.b()")
        XCTAssertEqual(result.originalPosition(line: 1, column: 8).column, 8)    // `a`
        XCTAssertEqual(result.originalPosition(line: 1, column: 19).column, 10)  // `b`
        XCTAssertEqual(result.originalPosition(line: 1, column: 26).column, 11)  // `(`
        // A name of non-ASCII letters: its copy inside `||"…")` counts in UTF-16 units too.
        let named = Preprocessor.rewrite("o.名前😀(); p.q()")
        // Output: `o.__c(__pe.名前😀||"名前😀")(); p.…`: `(` at 3 + 9 + 4 + 3 + 4 + 2 = 25.
        XCTAssertEqual(named.originalPosition(line: 1, column: 25).column, 7)   // `(`
        XCTAssertEqual(named.originalPosition(line: 1, column: 29).column, 11)  // `p`
    }

    func testLinesCountedLikeJavaScriptCore() {
        // A raw U+2028 inside a string is not a line break for JSC; outside it is; CR alone is.
        let result = Preprocessor.rewrite("'x\u{2028}y'; a.b()\u{2028}c.d()\re.f()")
        XCTAssertEqual(result.originalPosition(line: 1, column: 8).column, 8)    // `a`
        XCTAssertEqual(result.originalPosition(line: 1, column: 19).column, 10)  // `b`
        XCTAssertEqual(result.originalPosition(line: 1, column: 26).column, 11)  // `(`
        for line in [2, 3] {
            XCTAssertEqual(result.originalPosition(line: line, column: 12).column, 3)  // `d`, `f`
            XCTAssertEqual(result.originalPosition(line: line, column: 19).column, 4)  // `(`
        }
    }

    func testRestoreCalls() {
        XCTAssertEqual(Preprocessor.restoreCalls(in: #"o.__c(__pe.a||"a")().__c(__pe.b||"b")"#), "o.a().b")
        XCTAssertEqual(Preprocessor.restoreCalls(in: #"'o?.__c(__pe.名前||"名前")()'"#), "'o?.名前()'")
        XCTAssertEqual(Preprocessor.restoreCalls(in: "no calls"), "no calls")
        // Only the rewrite's exact shape is undone: a `__c` the script wrote itself stays.
        for text in [#".__c(__pe.) .__c(__pe.a b||"a b") x .__c(__pe.a||"b") .__c(__pe.a||"a""#, #"o.__c("a")()"#,
                     #".__c(__pe.a||"a"" + ")"#, #".__c(__pe.a"#] {
            XCTAssertEqual(Preprocessor.restoreCalls(in: text), text)
        }
    }
}
