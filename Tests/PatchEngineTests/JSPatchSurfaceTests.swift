import Foundation
import XCTest
import PatchEngine

/// JSPatch's engine object and extensions (`require('JPEngine')`, jspatch.js) as scripts see them,
/// what a revert undoes, and the defences around them. JSPatch's own suite (JSPatchSuiteTests)
/// runs the rest.
final class JSPatchSurfaceTests: PatchTestCase {
    func testExtensionGlobalsAreRevertedWithTheScriptThatAddedThem() throws {
        let extensionName = uniqueClassName("XSurfaceExtension")
        let global = uniqueClassName("xSurfaceHelper")
        PatchEngine.registerExtension(extensionName, script: "global.\(global) = function (x) { return x * 2; };")
        let name = uniqueScriptName()
        try apply("require('JPEngine').addExtensions(['\(extensionName)'])", name: name)
        XCTAssertEqual(render(try apply("\(global)(21)")), "42")
        try PatchEngine.revert(name)
        XCTAssertEqual(render(try apply("typeof \(global)")), "\"undefined\"")
    }

    func testAnUnknownExtensionIsAnErrorThatRollsTheScriptBack() {
        let error = applyExpectingError("require('JPEngine').addExtensions(['NoSuchExtension'])")
        XCTAssertEqual(error?.line, 1)
        XCTAssertTrue(error?.message.contains("no extension named NoSuchExtension") ?? false, error?.message ?? "")
    }

    func testDefineJSClassAndItsGlobalAreRevertedWithTheScript() throws {
        let cls = uniqueClassName("XJSOnly")
        let name = uniqueScriptName()
        try apply("""
            defineJSClass('\(cls)', { init: function () { this.v = 'a'; return this; }, value: function () { return this.v; } },
                          { make: function () { return 'made'; } });
            defineJSClass('\(cls)Sub : \(cls)', { value: function () { return this.super().value() + 'b'; } });
            """, name: name)
        XCTAssertEqual(render(try apply("[\(cls)Sub.alloc().init().value(), \(cls).make()]")), "[\"ab\", \"made\"]")
        try PatchEngine.revert(name)
        XCTAssertEqual(render(try apply("[typeof \(cls), typeof \(cls)Sub]")), "[\"undefined\", \"undefined\"]")
    }

    func testAutoConvertOCTypeConvertsUntilItsScriptIsReverted() throws {
        let name = uniqueScriptName()
        try apply("autoConvertOCType(1)", name: name)
        XCTAssertEqual(render(try apply("var s = require('NSString').stringWithString('abc'); [typeof s, s]")), "[\"string\", \"abc\"]")
        try PatchEngine.revert(name)
        XCTAssertEqual(render(try apply("typeof require('NSString').stringWithString('abc')")), "\"object\"")
    }

    /// A block from malloc() knows its size: memset and memcpy past its end are refused.
    func testMemoryFunctionsStayInsideTheirBlock() throws {
        let setup = "require('JPEngine').addExtensions(['JPMemory']); var p = malloc(4), q = malloc(8);"
        XCTAssertEqual(render(try apply(setup + "memset(p, 65, 4); pvalBool(p)")), "true")
        let over = applyExpectingError(setup + "memset(p, 65, 5)")
        XCTAssertTrue(over?.message.contains("5 bytes do not fit") ?? false, over?.message ?? "")
        let copy = applyExpectingError(setup + "memcpy(p, q, 8)")
        XCTAssertTrue(copy?.message.contains("8 bytes do not fit") ?? false, copy?.message ?? "")
        let scalar = applyExpectingError(setup + "var b = malloc(2); assignScalarTypePointer(b, 1, 'd')")
        XCTAssertTrue(scalar?.message.contains("8 bytes do not fit") ?? false, scalar?.message ?? "")
    }

    func testNumbersKeptAsObjects() throws {
        XCTAssertEqual(render(try apply("""
            require('JPEngine').addExtensions(['JPNumber']);
            var n = OCNumber('NSNumber', 'numberWithInt:', [7]);
            [n.intValue(), n.compare(7), toJSNumber(toOCNumber(2.5))]
            """)), "[7, 0, 2.5]")
        let refused = applyExpectingError("require('JPEngine').addExtensions(['JPNumber']); OCNumber('NSString', 'string', [])")
        XCTAssertTrue(refused?.message.contains("is not NSNumber or a subclass") ?? false, refused?.message ?? "")
    }

    /// The flat rect is canonical and reads JSPatch's nested one; a nested definition gives both.
    func testStructShapesAndSizes() throws {
        let nested = uniqueClassName("XNestedRect")
        XCTAssertEqual(render(try apply("""
            require('JPEngine').addExtensions(['JPStructPointer']);
            var p = newStruct('CGRect', {origin: {x: 1, y: 2}, size: {width: 3, height: 4}});
            var flat = JSON.stringify(pvalStruct('CGRect', p)); free(p);
            require('JPEngine').defineStruct({name: '\(nested)', types: '{CGPoint}{CGSize}', keys: ['origin', 'size']});
            var q = newStruct('\(nested)', {x: 5, y: 6, width: 7, height: 8});
            var r = pvalStruct('\(nested)', q); free(q);
            [flat, r.origin.x, r.size.height, r.x, r.height,
             sizeof('\(nested)'), sizeof('CGVector'), sizeof('UIEdgeInsets'), sizeof('CGAffineTransform')]
            """)), #"["{"x":1,"y":2,"width":3,"height":4}", 5, 8, 5, 8, 32, 16, 32, 48]"#)
    }

    func testDefineStructTakesJSPatchLetters() throws {
        let name = uniqueClassName("XLetters")
        XCTAssertEqual(render(try apply("""
            require('JPEngine').defineStruct({name: '\(name)', types: 'FNi', keys: ['f', 'n', 'i']});
            sizeof('\(name)')
            """)), "24")
    }

    /// A JS-defined method gets every argument a call from JS passes, through JS and through
    /// Objective-C (a hook keeps the call from staying in JS); a native method still takes only its own.
    func testEveryArgumentReachesAJSDefinedMethod() throws {
        let cls = uniqueClassName("XExtraArgs")
        XCTAssertEqual(render(try apply("""
            defineClass('\(cls)', {}, { both: function (a, b) { return String(a) + '/' + String(b); } });
            var direct = String(\(cls).both('x', 42));
            hookClass(\(cls), 'both:', 'before', function () {});
            var crossing = String(\(cls).both('x', 42));
            [direct, crossing]
            """)), "[\"x/42\", \"x/42\"]")
        let native = applyExpectingError("require('NSMutableArray').alloc().init().addObject(1, 2)")
        XCTAssertTrue(native?.message.contains("takes 1 argument, got 2") ?? false, native?.message ?? "")
    }

    func testSuperOutsideAMethodStartsAboveTheReceiversClass() throws {
        let a = uniqueClassName("XSuperOutA")
        XCTAssertEqual(render(try apply("""
            defineClass('\(a)', { name: function () { return 'A'; } });
            defineClass('\(a)B : \(a)', { name: function () { return 'B'; } });
            var b = \(a)B.alloc().init();
            [String(b.name()), String(b.super().name()), b.__obj === b]
            """)), "[\"B\", \"A\", true]")
    }

    /// An error inside an included file names that file, line and column, with JavaScript's message.
    func testIncludeErrorsAreReportedWhereTheyHappen() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(uniqueClassName("XInclude"))
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try "var ok = 1;\n\n  undefinedFunction();\n".write(to: folder.appendingPathComponent("lib.js"), atomically: true, encoding: .utf8)
        let main = folder.appendingPathComponent("main.js")
        try "var before = 1;\ninclude('lib.js');\n".write(to: main, atomically: true, encoding: .utf8)
        addTeardownBlock { try? PatchEngine.revert(main.path) }
        XCTAssertThrowsError(try PatchEngine.evaluate(contentsOf: main)) { error in
            let patchError = error as? PatchError
            XCTAssertEqual(patchError?.scriptName, folder.appendingPathComponent("lib.js").standardizedFileURL.path)
            XCTAssertEqual(patchError?.line, 3)
            XCTAssertNotNil(patchError?.column)
            XCTAssertEqual(patchError?.message, "ReferenceError: Can't find variable: undefinedFunction")
        }
    }

    /// Type lists take struct names and JSPatch's {Name}, and class names without *.
    func testTypeListsTakeStructAndClassNames() throws {
        let proto = uniqueClassName("XNamesProtocol")
        try apply("""
            defineProtocol('\(proto)', {
              take_and: { paramsType: 'NSString, UIEdgeInsets', returnType: '{CGAffineTransform}' },
              encoded: { typeEncode: 'v24@0:8@16' }
            });
            block('NSString, NSArray', function () { return 'x'; });
            """)
    }
}
