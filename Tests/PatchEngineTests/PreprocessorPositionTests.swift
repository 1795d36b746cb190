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
        // Line 2: `  a.__c("bc")(x.__c("d")())`; the names start at columns 10 and 22 of the output.
        let result = Preprocessor.rewrite("z\n  a.bc(x.d())\nq")
        XCTAssertEqual(result.code, "z\n  a.__c(\"bc\")(x.__c(\"d\")())\nq")
        // Original line 2: `  a.bc(x.d())`.
        let expectations: [(Int, Int)] = [
            (1, 1), (4, 4),                     // before the first insertion
            (5, 5), (9, 5),                     // inside `__c("` → start of the name
            (10, 5), (11, 6),                   // the name `bc`
            (12, 7), (13, 7),                   // inside `")` → end of the name
            (14, 7), (15, 8), (16, 9),          // `(x.` shifted by 7
            (17, 10), (21, 10), (22, 10),       // second `__c("`, then `d`
            (23, 11), (24, 11),                 // `")` → end of `d`
            (25, 11), (26, 12), (27, 13), (30, 16),  // after both insertions, shifted by 14
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
        // "😀" is two UTF-16 units, "é" one; the insertion after them shifts by 7 as usual.
        let result = Preprocessor.rewrite("'😀é'; a.b()")
        XCTAssertEqual(result.originalPosition(line: 1, column: 8).column, 8)    // `a`
        XCTAssertEqual(result.originalPosition(line: 1, column: 15).column, 10)  // `b`
        XCTAssertEqual(result.originalPosition(line: 1, column: 18).column, 11)  // `(`
    }

    func testLinesCountedLikeJavaScriptCore() {
        // A raw U+2028 inside a string is not a line break for JSC; outside it is; CR alone is.
        let result = Preprocessor.rewrite("'x\u{2028}y'; a.b()\u{2028}c.d()\re.f()")
        XCTAssertEqual(result.originalPosition(line: 1, column: 8).column, 8)    // `a`
        XCTAssertEqual(result.originalPosition(line: 1, column: 15).column, 10)  // `b`
        XCTAssertEqual(result.originalPosition(line: 1, column: 18).column, 11)  // `(`
        for line in [2, 3] {
            XCTAssertEqual(result.originalPosition(line: line, column: 8).column, 3)   // `d`, `f`
            XCTAssertEqual(result.originalPosition(line: line, column: 11).column, 4)  // `(`
        }
    }

    func testRestoreCalls() {
        XCTAssertEqual(Preprocessor.restoreCalls(in: #"o.__c("a")().__c("b")"#), "o.a().b")
        XCTAssertEqual(Preprocessor.restoreCalls(in: #"'o?.__c("名前")()'"#), "'o?.名前()'")
        XCTAssertEqual(Preprocessor.restoreCalls(in: "no calls"), "no calls")
        XCTAssertEqual(Preprocessor.restoreCalls(in: #".__c("") .__c("a b" x .__c("a"#), #".__c("") .__c("a b" x .__c("a"#)
    }
}
