import Foundation
import XCTest
import PatchEngine
import PatchFixtures

/// What `evaluate` returns (the completion value converted to Swift), and plain
/// JavaScript that calls no Objective-C behaving exactly as in any JS engine.
final class EvaluateResultTests: PatchTestCase {
    func testScalars() throws {
        XCTAssertEqual(try apply("'abc'") as? String, "abc")
        XCTAssertEqual(try apply("4.5") as? Double, 4.5)
        XCTAssertEqual(try apply("1 + 1") as? Double, 2)
        XCTAssertEqual(try apply("true") as? Bool, true)
        XCTAssertEqual(try apply("false") as? Bool, false)
    }

    func testNullAndUndefinedAreNil() throws {
        XCTAssertNil(try apply("null"))
        XCTAssertNil(try apply("undefined"))
        XCTAssertNil(try apply("var nothingHere = 1;"))
    }

    func testArraysAndObjects() throws {
        XCTAssertEqual(render(try apply("[1, 'a', null, true, [2]]")), "[1, \"a\", nil, true, [2]]")
        XCTAssertEqual(render(try apply("({a: 1, b: {c: [1, 'x']}, d: null})")), "{a: 1, b: {c: [1, \"x\"]}, d: nil}")
    }

    func testObjectiveCObjectIsAHandle() throws {
        let result = try apply("require('PFValueBox').alloc().init().makeObjectOfKind('dict')")
        XCTAssertEqual(describe(result), "{num: 42, str: \"stringFromOC\"}")
    }

    func testStructResultIsADictionary() throws {
        let result = try apply("require('PFGeometry').alloc().init().echoRect({x: 1, y: 2, width: 3, height: 4})")
        XCTAssertEqual(render(result), "{height: 4, width: 3, x: 1, y: 2}")
    }

    func testPlainJavaScriptKeepsWorking() throws {
        XCTAssertEqual(render(try apply("[1, 2, 3].map(function(x) { return x * 2 }).join(',')")), "\"2,4,6\"")
        XCTAssertEqual(render(try apply("var o = {f: function(x) { return x + 1 }}; o.f(1)")), "2")
        XCTAssertEqual(render(try apply("JSON.stringify({a: [1, 'b']})")), #""{"a":[1,"b"]}""#)
        XCTAssertEqual(render(try apply("new Date(0).getTime()")), "0")
        XCTAssertEqual(render(try apply("'a-b-c'.split('-').reverse().join('')")), "\"cba\"")
        XCTAssertEqual(render(try apply("function Point(x) { this.x = x }; Point.prototype.twice = function() { return this.x * 2 }; new Point(4).twice()")), "8")
        XCTAssertEqual(render(try apply("var ns = {Maker: function(v) { this.v = v }}; new ns.Maker(5).v")), "5")
    }

    func testRewriteLeavesStringsCommentsAndRegexAlone() throws {
        XCTAssertEqual(render(try apply("var text = 's.noArgs() stays'; text")), "\"s.noArgs() stays\"")
        XCTAssertEqual(render(try apply("// x.foo(1)\n/* y.bar(2) */ 'ok'")), "\"ok\"")
        XCTAssertEqual(render(try apply("/a.b(c)/.test('axbc')")), "true")
        XCTAssertEqual(render(try apply("var v = 3; `t.x(${v})`")), "\"t.x(3)\"")
    }

    func testYesAndNoGlobals() throws {
        XCTAssertEqual(render(try apply("[YES, NO]")), "[1, 0]")
    }

    func testRequireSeveralClassesAtOnce() throws {
        let result = try apply("""
        require('PFGreeter, PFFactory');
        [PFFactory.twice(2), PFGreeter.alloc().init().greet('x').toJS()]
        """)
        XCTAssertEqual(render(result), "[4, \"Hello, x\"]")
    }
}
