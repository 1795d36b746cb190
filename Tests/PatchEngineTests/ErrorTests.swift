import Foundation
import XCTest
import PatchEngine
import PatchFixtures

/// Bad input is a clear error, never a crash: syntax errors with positions in the user's
/// source, unknown classes and selectors, wrong argument types, Objective-C exceptions,
/// JS exceptions inside patched methods (reported, with the original behaviour kept).
final class ErrorTests: PatchTestCase {
    // MARK: syntax errors and uncaught exceptions

    func testSyntaxErrorHasLineAndColumn() throws {
        let name = uniqueScriptName()
        let error = applyExpectingError("var a = 1;\nvar b = 2;\nvar c = ;\n", name: name)
        XCTAssertEqual(error?.kind, .syntax)
        XCTAssertEqual(error?.line, 3)
        XCTAssertNotNil(error?.column)
        XCTAssertEqual(error?.scriptName, name)
        XCTAssertFalse(error?.message.isEmpty ?? true)
    }

    func testCheckSyntaxReportsTheSamePosition() {
        XCTAssertThrowsError(try PatchEngine.checkSyntax("var a = 1;\n\nvar c = ;\n", name: "check.js")) { error in
            let patchError = error as? PatchError
            XCTAssertEqual(patchError?.kind, .syntax)
            XCTAssertEqual(patchError?.line, 3)
            XCTAssertEqual(patchError?.scriptName, "check.js")
        }
        XCTAssertNoThrow(try PatchEngine.checkSyntax("require('PFGreeter').alloc().init().greet('x')", name: "fine.js"))
    }

    func testErrorPositionIgnoresTheRewriteOfObjCCalls() {
        // Same layout: the first line calls Objective-C methods (rewritten by the
        // preprocessor), the second has the same characters inside a string. Both must
        // report the position of the same token in the user's source.
        let rewritten = applyExpectingError("var g = 1;\n  var s = X.alloc().init()  ; var z = ;\n")
        let untouched = applyExpectingError("var g = 1;\n  var s = \"X.alloc().init()\"; var z = ;\n")
        XCTAssertEqual(rewritten?.line, 2)
        XCTAssertEqual(untouched?.line, 2)
        XCTAssertNotNil(rewritten?.column)
        XCTAssertEqual(rewritten?.column, untouched?.column)
    }

    func testUncaughtExceptionHasMessageAndLine() {
        let name = uniqueScriptName()
        let error = applyExpectingError("var a = 1;\n\nthrow new Error('boom');\n", name: name)
        XCTAssertEqual(error?.kind, .evaluation)
        XCTAssertTrue(error?.message.contains("boom") == true, "\(String(describing: error))")
        XCTAssertEqual(error?.line, 3)
        XCTAssertEqual(error?.scriptName, name)
    }

    func testUncaughtExceptionLineAfterRewrittenCalls() {
        let error = applyExpectingError("""
        var g = require('PFGreeter').alloc().init();
        g.greet('x'); g.greet('y').toJS();
        throw new Error('after calls');
        """)
        XCTAssertEqual(error?.line, 3)
    }

    func testThrowingANonErrorValue() {
        let error = applyExpectingError("throw 'plain string value'")
        XCTAssertTrue(error?.message.contains("plain string value") == true, "\(String(describing: error))")
    }

    // MARK: unknown classes and selectors

    func testUnknownClassIsCatchableInJS() throws {
        let result = try apply("""
        try { require('PFNoSuchClass').alloc().init(); 'no error' } catch (e) { 'caught: ' + e.message }
        """)
        let text = result as? String ?? ""
        XCTAssertTrue(text.hasPrefix("caught: ") && text.contains("PFNoSuchClass"), text)
    }

    func testUnknownClassUncaughtIsAPatchError() {
        let error = applyExpectingError("require('PFNoSuchClass').alloc().init()")
        XCTAssertTrue(error?.message.contains("PFNoSuchClass") == true, "\(String(describing: error))")
    }

    func testUnknownSelectorIsCatchableInJS() throws {
        let result = try apply("""
        var g = require('PFGreeter').alloc().init();
        try { g.noSuchMethod_with(1, 2); 'no error' } catch (e) { 'caught: ' + e.message }
        """)
        let text = result as? String ?? ""
        XCTAssertTrue(text.hasPrefix("caught: ") && text.contains("noSuchMethod:with:"), text)
    }

    func testUnknownClassMethodIsCatchableInJS() throws {
        let result = try apply("""
        try { require('PFGreeter').noSuchClassMethod(); 'no error' } catch (e) { 'caught: ' + e.message }
        """)
        let text = result as? String ?? ""
        XCTAssertTrue(text.hasPrefix("caught: ") && text.contains("noSuchClassMethod"), text)
    }

    func testUnknownSelectorUncaughtIsAPatchError() {
        let error = applyExpectingError("require('PFGreeter').alloc().init().noSuchMethod(1)")
        XCTAssertTrue(error?.message.contains("noSuchMethod") == true, "\(String(describing: error))")
    }

    // MARK: wrong argument types

    func testWrongArgumentTypesAreCatchableErrors() throws {
        let result = try apply("""
        var g = require('PFGeometry').alloc().init();
        var t = require('PFTypes').alloc().init();
        var attempts = [
          function() { return g.echoRect(42) },
          function() { return g.echoPoint('not a point') },
          function() { return t.echoInt({a: 1}) },
          function() { return t.echoSelector(42) }
        ];
        attempts.map(function(attempt) {
          try { attempt(); return 'no error' } catch (e) { return (e && e.message) ? 'caught' : 'caught without message' }
        })
        """)
        XCTAssertEqual(render(result), "[\"caught\", \"caught\", \"caught\", \"caught\"]")
    }

    // MARK: Objective-C exceptions

    func testObjCExceptionIsCatchableInJS() throws {
        let result = try apply("""
        var f = require('PFFailing').alloc().init();
        try { f.explode('kaboom'); 'no error' } catch (e) { 'caught: ' + e.message }
        """)
        let text = result as? String ?? ""
        XCTAssertTrue(text.hasPrefix("caught: ") && text.contains("kaboom"), text)
        XCTAssertEqual(render(try apply("1 + 1")), "2", "the engine keeps working")
    }

    func testObjCExceptionUncaughtIsAPatchError() {
        let error = applyExpectingError("require('PFFailing').alloc().init().explodeWithValue()")
        XCTAssertTrue(error?.message.contains("value exploded") == true, "\(String(describing: error))")
    }

    // MARK: exceptions inside patched methods

    func testJSExceptionInsidePatchedMethodsFallsBackToTheOriginal() throws {
        let errors = captureErrors()
        let name = uniqueScriptName()
        try apply("""
        defineClass('PFFailing', {
          riskyValue: function() { throw new Error('value failed') },
          riskyName: function() { throw new Error('name failed') },
          riskyRect: function() { throw new Error('rect failed') },
          riskyDouble: function() { throw new Error('double failed') },
          riskyVoid: function() { throw new Error('void failed') }
        })
        """, name: name)
        var raised: Int32 = 0
        XCTAssertEqual(pf_failing_risky_value(&raised), 7)
        XCTAssertEqual(raised, 0)
        XCTAssertEqual(take(pf_failing_risky_name(&raised)), "\"safe\"")
        let rect = pf_failing_risky_rect(&raised)
        XCTAssertEqual([rect.x, rect.y, rect.width, rect.height], [1, 2, 3, 4])
        XCTAssertEqual(pf_failing_risky_double(&raised), 2.5)
        XCTAssertEqual(take(pf_failing_risky_void(&raised)), "orig-void")
        XCTAssertEqual(raised, 0)

        let reported = errors.errors
        for text in ["value failed", "name failed", "rect failed", "double failed", "void failed"] {
            let error = reported.first { $0.message.contains(text) }
            XCTAssertNotNil(error, "\(text) not reported; got \(reported.map(\.message))")
            XCTAssertEqual(error?.scriptName, name)
            XCTAssertEqual(error?.kind, .runtime)
        }
    }

    func testJSExceptionInsideAnAddedMethodGivesNil() throws {
        let errors = captureErrors()
        try apply("defineClass('PFGreeter', { explodingAddition: function() { throw new Error('added boom') } })")
        let greeter = pf_new("PFGreeter")
        defer { pf_release(greeter) }
        XCTAssertEqual(take(pf_send(greeter, "explodingAddition")), "nil")
        XCTAssertTrue(errors.errors.contains { $0.message.contains("added boom") }, "\(errors.errors)")
    }

    func testObjCExceptionInsidePatchedMethodFallsBack() throws {
        let errors = captureErrors()
        try apply("""
        defineClass('PFFailing', {
          riskyValue: function() { self.explode('inner kaboom'); return 99 }
        })
        """)
        var raised: Int32 = 0
        XCTAssertEqual(pf_failing_risky_value(&raised), 7)
        XCTAssertEqual(raised, 0, "the exception must not reach the native caller")
        XCTAssertTrue(errors.errors.contains { $0.message.contains("inner kaboom") }, "\(errors.errors)")
    }

    func testJSExceptionInsideABlockCalledByObjC() throws {
        let errors = captureErrors()
        var evaluateError: PatchError?
        do {
            try apply("""
            require('PFBlockHost').alloc().init().callStringIntBlock(block('NSString *, NSString *, int', function(s, n) {
              throw new Error('block boom')
            }))
            """)
        } catch let error as PatchError {
            evaluateError = error
        }
        let reported = (evaluateError.map { [$0] } ?? []) + errors.errors
        XCTAssertTrue(reported.contains { $0.message.contains("block boom") }, "neither thrown nor reported: \(reported)")
        XCTAssertEqual(render(try apply("'still running'")), "\"still running\"")
    }

    func testHostKeepsRunningAfterManyErrors() throws {
        _ = captureErrors()
        for script in ["var = ;", "throw new Error('x')", "require('PFNoSuchClass').alloc()",
                       "require('PFGreeter').alloc().init().nope()", "require('PFFailing').alloc().init().explode('e')"] {
            _ = applyExpectingError(script)
        }
        try apply("defineClass('PFGreeter', { greet: function(n) { return 'fine' } })")
        XCTAssertEqual(take(pf_greeter_greet("x")), "\"fine\"")
    }
}
