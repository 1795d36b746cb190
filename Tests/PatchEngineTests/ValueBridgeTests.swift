import Foundation
import XCTest
import PatchEngine
import PatchFixtures

/// Objects crossing the bridge: NSNumber → number; NSString / NSArray / NSDictionary
/// boxed, unboxed with .toJS(); JS values → Foundation objects; nil / null / NSNull;
/// identity preserved both ways.
final class ValueBridgeTests: PatchTestCase {
    private let box = "var b = require('PFValueBox').alloc().init();\n"

    func testNSStringArrivesBoxed() throws {
        let result = try apply(box + """
        var s = b.makeObjectOfKind('string');
        [typeof s.toJS(), s.toJS(), s.length(), s.uppercaseString().toJS()]
        """)
        XCTAssertEqual(render(result), "[\"string\", \"stringFromOC\", 12, \"STRINGFROMOC\"]")
    }

    func testNSNumberArrivesAsNumber() throws {
        let result = try apply(box + """
        var n = b.makeObjectOfKind('number');
        [typeof n, n, b.makeObjectOfKind('double'), b.echoNumber(0) === 0, b.echoNumber(1) === 1]
        """)
        XCTAssertEqual(render(result), "[\"number\", 42, 4.5, true, true]")
    }

    func testDictionaryToJS() throws {
        let result = try apply(box + """
        var d = b.makeObjectOfKind('dict').toJS();
        [d.str, d.num, typeof d.str]
        """)
        XCTAssertEqual(render(result), "[\"stringFromOC\", 42, \"string\"]")
    }

    func testToJSIsRecursive() throws {
        let result = try apply(box + """
        var d = b.makeObjectOfKind('nested').toJS();
        [d.name, d.list.length, d.list[0], d.list[1], d.list[2].inner, Array.isArray(d.list)]
        """)
        XCTAssertEqual(render(result), "[\"top\", 3, 1, \"two\", \"deep\", true]")
    }

    func testArrayToJSKeepsOtherObjectsBoxed() throws {
        let result = try apply(box + """
        var a = b.makeObjectOfKind('array').toJS();
        [a.length, a[0], a[1], b.classOf(a[2]).toJS()]
        """)
        XCTAssertEqual(render(result), "[3, \"stringFromOC\", 42, \"NSObject\"]")
    }

    func testJSValuesBecomeFoundationObjects() throws {
        let result = try apply(box + """
        [b.describe({a: 1, b: 'x', c: [1, 'two', {d: 4.5}]}).toJS(),
         b.object_isKindOf({}, 'NSDictionary') ? 1 : 0,
         b.object_isKindOf([], 'NSMutableArray') ? 1 : 0,
         b.object_isKindOf('s', 'NSString') ? 1 : 0,
         b.object_isKindOf(3, 'NSNumber') ? 1 : 0,
         b.object_isKindOf(true, 'NSNumber') ? 1 : 0]
        """)
        XCTAssertEqual(render(result), #"["{a: 1, b: "x", c: [1, "two", {d: 4.5}]}", 1, 1, 1, 1, 1]"#)
    }

    /// A JS object or array passed to Objective-C whose property read throws (a getter; or
    /// JavaScriptCore ending the script, when the C API answers NULL) is the script's error, not a
    /// crash of the app: before, a NULL read was force-unwrapped (seen in the JSPatch suite's
    /// performance scripts under load: the process died of SIGILL).
    func testAThrowingPropertyReadInAConvertedObjectIsAnErrorNotACrash() throws {
        let object = applyExpectingError(box + "b.describe({ a: 1, get bad() { throw new Error('boom in getter') } })")
        XCTAssertEqual(object?.kind, .evaluation)
        XCTAssertTrue(object?.message.contains("boom in getter") == true, "\(String(describing: object))")
        let array = applyExpectingError(box + """
        var arr = [1, 2]; Object.defineProperty(arr, 1, { get: function () { throw new Error('boom at index') } });
        b.describe(arr)
        """)
        XCTAssertTrue(array?.message.contains("boom at index") == true, "\(String(describing: array))")
        // An evaluation's value with such a getter comes back without it (its read threw).
        XCTAssertEqual(render(try apply("({ a: 1, get bad() { throw new Error('boom') } })")), "{a: 1, bad: nil}")
        XCTAssertEqual(render(try apply("var a = [1, 2]; Object.defineProperty(a, 1, { get: function () { throw 1 } }); a")), "[1, nil]")
        XCTAssertEqual(render(try apply(box + "b.describe({a: 1}).toJS()")), #""{a: 1}""#, "the bridge works after")
    }

    /// A thrown value whose position properties throw in turn (here: itself) reads as an exception
    /// without a position: reading them must neither crash on the NULL the C API answers nor
    /// describe the exception they throw, which throws again, without end.
    func testAThrownValueWhosePropertiesThrowIsAnErrorNotACrash() throws {
        let error = applyExpectingError("""
        var e = { toString: function () { return 'hostile' } };
        ['line', 'column', 'sourceURL', 'stack'].forEach(function (k) { Object.defineProperty(e, k, { get: function () { throw e } }) });
        throw e
        """)
        XCTAssertEqual(error?.kind, .evaluation)
        XCTAssertTrue(error?.message.contains("hostile") == true, "\(String(describing: error))")
        XCTAssertEqual(render(try apply("6 * 7")), "42", "the engine works after")
    }

    func testBoxedObjectsInsideJSArrayPassedToObjC() throws {
        let result = try apply(box + """
        var arr = [b.makeObjectOfKind('string'), b.makeObjectOfKind('dict'), b.makeObjectOfKind('array')];
        b.describe(arr).toJS()
        """)
        XCTAssertEqual(render(result), #""["stringFromOC", {num: 42, str: "stringFromOC"}, ["stringFromOC", 42, <NSObject>]]""#)
    }

    func testPatchedMethodReturningAJSDictionary() throws {
        try apply("defineClass('PFValueBox', { jsDictionary: function() { return {str: 'js_string', n: 2} } })")
        XCTAssertEqual(take(pf_values_js_dictionary()), "NSDictionary {n: 2, str: \"js_string\"}")
    }

    func testPatchedMethodReceivesBoxedObjects() throws {
        try apply(jsToString + """
        defineClass('PFValueBox', {
          wrap_label: function(object, label) { return S(label) + '=' + S(self.describe(object)) }
        })
        """)
        XCTAssertEqual(take(pf_values_wrap("L")), "L=[\"x\", 1]")
    }

    func testIdentityThroughPatchedMethod() throws {
        try apply("defineClass('PFValueBox', { identityOf: function(object) { return object } })")
        for kind in ["dict", "array", "string", "mutableString", "object"] {
            XCTAssertEqual(pf_values_identity(kind), 1, kind)
        }
        XCTAssertEqual(take(pf_values_identity_of_nil()), "nil")
    }

    func testIdentityInsideScript() throws {
        let result = try apply(box + """
        var d = b.makeObjectOfKind('dict');
        var o = require('NSObject').alloc().init();
        [b.isSame_as(d, b.echo(d)) ? 1 : 0, b.isSame_as(o, b.echo(o)) ? 1 : 0, b.isSame_as(o, d) ? 1 : 0]
        """)
        XCTAssertEqual(render(result), "[1, 1, 0]")
    }

    func testNativeObjectComesBackAsTheSamePointer() throws {
        let object = pf_make_sample("object")
        defer { pf_release(object); pf_registry_remove("bridge.object") }
        pf_registry_set("bridge.object", object)
        let result = try apply("require('PFRegistry').objectForKey('bridge.object')")
        let handle = try XCTUnwrap(result as? ObjCObject)
        XCTAssertEqual(handle.pointer, object)
    }

    func testNilNullAndNSNullArguments() throws {
        let result = try apply(box + """
        [b.describeNil_dict_str_num(null, {k: 'JSPatch'}, 'JSPatch', 4.2).toJS(),
         b.isNil(null) ? 1 : 0, b.isNil(undefined) ? 1 : 0, b.isNil(false) ? 1 : 0,
         b.isNSNull(nsnull) ? 1 : 0, b.isNil(nsnull) ? 1 : 0, b.isNSNull(null) ? 1 : 0,
         b.object_isKindOf(nsnull, 'NSNull') ? 1 : 0]
        """)
        XCTAssertEqual(render(result), #"["nil|{k: "JSPatch"}|"JSPatch"|4.2", 1, 1, 1, 1, 0, 0, 1]"#)
    }

    func testNilResultIsFalsyAndSafeToMessage() throws {
        let result = try apply(box + """
        var o = b.returnsNil();
        [!o, !o.anyMethod().chained()]
        """)
        XCTAssertEqual(render(result), "[true, true]")
    }

    func testPatchedMethodReturningNullGivesNil() throws {
        try apply("defineClass('PFValueBox', { identityOf: function(object) { return null } })")
        XCTAssertEqual(pf_values_identity("dict"), -1)
        try apply("defineClass('PFValueBox', { identityOf: function(object) { return undefined } })")
        XCTAssertEqual(pf_values_identity("dict"), -1)
    }

    func testMutableContainers() throws {
        let result = try apply("""
        var arr = require('NSMutableArray').alloc().init();
        arr.addObject('ctn');
        var dict = require('NSMutableDictionary').alloc().init();
        dict.setObject_forKey('ctn', 'k');
        var str = require('NSMutableString').alloc().init();
        str.appendString('JS');
        str.appendString('Patch');
        [arr.objectAtIndex(0).toJS(), dict.objectForKey('k').toJS(), str.toJS(), arr.count()]
        """)
        XCTAssertEqual(render(result), "[\"ctn\", \"ctn\", \"JSPatch\", 1]")
    }

    func testVariadicStringWithFormat() throws {
        let script = "require('NSString').stringWithFormat('%@ %@', 'a', 'b').toJS()"
        XCTAssertEqual(render(try apply(script)), "\"a b\"")
    }

    /// Variadic arguments past the registers go on the stack (without libffi, in 8-byte slots,
    /// which every platform's variadic callee reads): fifteen objects and the list's nil.
    func testVariadicArgumentsPastTheRegisters() throws {
        let items = (1...15).map { "'\($0)'" }.joined(separator: ", ")
        let result = try apply("require('NSArray').arrayWithObjects(\(items)).componentsJoinedByString('+').toJS()")
        XCTAssertEqual(render(result), "\"" + (1...15).map(String.init).joined(separator: "+") + "\"")
    }

    func testWeakAndStrongKeepIdentity() throws {
        let result = try apply(box + """
        var o = require('NSObject').alloc().init();
        var w = __weak(o);
        var s = __strong(w);
        [b.isSame_as(o, w) ? 1 : 0, b.isSame_as(o, s) ? 1 : 0, b.classOf(w).toJS()]
        """)
        XCTAssertEqual(render(result), "[1, 1, \"NSObject\"]")
    }
}

/// `__weak` references become nil when their object goes away (GCC's runtime has no zeroing weak
/// references; the engine zeroes them after -dealloc).
final class WeakReferenceTests: PatchTestCase {
    /// In a child process: the array goes when its box is collected, and in a process that ran the
    /// other suites a stale root out of this thread's reach can keep a box for good
    /// (DeallocStateTests' long list, ToolkitConcurrencyTests' recycled objects).
    func testWeakReferenceBecomesNilWhenTheObjectIsFreed() throws {
        if runsWithoutPrivateSymbols {
            throw XCTSkip("needs a collection now (JSSynchronousGarbageCollectForDebugging); without it JSGarbageCollect only hints one")
        }
        try runCheckedInChildProcess("testWeakReferenceBecomesNilWhenTheObjectIsFreed") { try freedCase() }
    }

    private func freedCase() throws {
        let name = uniqueScriptName()
        try apply("""
        var weakRef;
        (function () {
          var o = require('NSMutableArray').alloc().init();
          weakRef = __weak(o);
          weakRef.addObject('x');
        })();
        weakRef.count()
        """, name: name)
        // The strong box made inside the function dies with the next collection; then the array does.
        var answer: Any?
        for _ in 0..<20 where !(answer is Bool) {
            PatchEngine.collectGarbage()
            answer = try PatchEngine.evaluate("weakRef.count()", name: name)
        }
        XCTAssertEqual(answer as? Bool, false, "a message to a freed weak reference answers false, like nil")
        XCTAssertEqual(try PatchEngine.evaluate("weakRef ? (weakRef.count() === false ? 'nil' : 'alive') : 'falsy'", name: name) as? String, "nil")
    }

    func testStrongFromWeakKeepsTheObject() throws {
        let result = try apply("""
        var o = require('NSMutableArray').alloc().init();
        var w = __weak(o);
        var s = __strong(w);
        s.addObject('kept');
        w.count()
        """)
        XCTAssertEqual(result as? Double, 1)
    }
}
