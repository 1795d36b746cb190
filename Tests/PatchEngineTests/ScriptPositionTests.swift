import Foundation
import XCTest
import PatchEngine
import PatchFixtures

/// Errors point at the user's script: its name and line, never runtime.js or a bare `?`.
final class ScriptPositionTests: PatchTestCase {
    func testStackOverflowAtEvaluation() {
        let name = uniqueScriptName()
        let error = applyExpectingError("var a = 1;\nfunction f() { return f() + 1 }\nf();\n", name: name)
        XCTAssertEqual(error?.kind, .evaluation)
        XCTAssertTrue(error?.message.contains("Maximum call stack size exceeded") == true, "\(String(describing: error))")
        XCTAssertEqual(error?.scriptName, name)
        XCTAssertEqual(error?.line, 2)
        XCTAssertEqual(render(try? apply("3 + 4")), "7")
    }

    func testStackOverflowInsideAPatchedMethod() throws {
        let errors = captureErrors()
        let name = uniqueScriptName()
        try apply("""
        function deep(n) { return deep(n + 1) + 1 }
        defineClass('PFFailing', {
          riskyValue: function() { return deep(0) }
        })
        """, name: name)
        var raised: Int32 = 0
        XCTAssertEqual(pf_failing_risky_value(&raised), 7)
        let error = errors.errors.first
        XCTAssertNotNil(error)
        XCTAssertTrue(error?.message.contains("Maximum call stack size exceeded") == true, "\(String(describing: error))")
        XCTAssertFalse(error?.message.contains("?") == true && error?.message.count ?? 0 < 40, "\(String(describing: error))")
        XCTAssertEqual(error?.scriptName, name)
        XCTAssertEqual(error?.line, 1)
        XCTAssertEqual(pf_failing_risky_value(&raised), 7, "later calls work")
    }

    func testStackOverflowThroughObjectiveCRecursion() throws {
        // The patched method calls itself through Objective-C: JS and native frames alternate.
        let errors = captureErrors()
        let name = uniqueScriptName()
        try apply("""
        defineClass('PFFailing', {
          riskyValue: function() { return self.riskyValue() + 1 }
        })
        """, name: name)
        var raised: Int32 = 0
        // The innermost call falls back to the original (7); each enclosing JS call adds 1.
        XCTAssertGreaterThanOrEqual(pf_failing_risky_value(&raised), 7)
        XCTAssertEqual(raised, 0)
        let error = errors.errors.last
        XCTAssertTrue(error?.message.contains("Maximum call stack size exceeded") == true, "\(errors.errors.prefix(3))")
        XCTAssertFalse(errors.errors.contains { $0.message.hasSuffix("?") }, "\(errors.errors.prefix(3))")
        XCTAssertEqual(error?.scriptName, name)
        XCTAssertEqual(error?.line, 2)
        XCTAssertEqual(render(try apply("5 + 5")), "10")
    }

    func testUnknownSuperclassNamesTheScriptAndLine() {
        let name = uniqueScriptName()
        let error = applyExpectingError("var x = 1;\n\ndefineClass('\(uniqueClassName("PFPos")) : PFNoSuchSuperclass', {})\n", name: name)
        XCTAssertEqual(error?.scriptName, name)
        XCTAssertEqual(error?.line, 3)
        XCTAssertTrue(error?.message.contains("PFNoSuchSuperclass") == true, "\(String(describing: error))")
    }

    func testUnknownProtocolNamesTheScriptAndLine() {
        let name = uniqueScriptName()
        let error = applyExpectingError("var x = 1;\ndefineClass('\(uniqueClassName("PFPos")) : NSObject <PFNoSuchProtocol>', {})\n", name: name)
        XCTAssertEqual(error?.scriptName, name)
        XCTAssertEqual(error?.line, 2)
        XCTAssertTrue(error?.message.contains("PFNoSuchProtocol") == true, "\(String(describing: error))")
    }

    func testInvalidMethodNamesTheScriptAndLine() {
        let name = uniqueScriptName()
        let error = applyExpectingError("\n\n\ndefineClass('PFFailing', { riskyValue: 42 })\n", name: name)
        XCTAssertEqual(error?.scriptName, name)
        XCTAssertEqual(error?.line, 4)
    }

    func testHookErrorNamesTheHooksScript() {
        let name = uniqueScriptName()
        let error = applyExpectingError("var a;\nhook(require('PFFailing'), 'noSuchSelector', 'before', function() {})\n", name: name)
        XCTAssertEqual(error?.scriptName, name)
        XCTAssertEqual(error?.line, 2)
        XCTAssertTrue(error?.message.contains("noSuchSelector") == true, "\(String(describing: error))")
    }
}
