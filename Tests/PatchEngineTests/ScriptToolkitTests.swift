import Foundation
import PatchEngine
import PatchFixtures
import PatchRouter
import PatchRouterBindings
import PatchRuntime
import XCTest

/// The toolkit from patch scripts: hooks (`hook`, `hookClass`), routes (`routes.*`) and
/// `defineCFunction`, each seen from native callers and reverted with its script.
final class ScriptToolkitTests: ToolkitTestCase {
    private let logAppend = "var L = require('PFToolkitLog'); function log(s) { L.append(s); }\n"

    func testBeforeAndAfterHooksFromScriptRunAroundTheOriginal() throws {
        for route in Self.routes {
            let f = try family(route)
            try apply(logAppend + """
            hook(require('\(f.base)'), 'add:to:', 'before', function(info, a, b) { log('jsBefore:' + a + ',' + b); });
            hook(require('\(f.base)'), 'add:to:', 'after', function(info) { log('jsAfter'); });
            """)
            XCTAssertEqual(pf_tk_add(make(f.base), 2, 3), 5, "\(route)")
            XCTAssertEqual(log(), "jsBefore:2,3 add jsAfter", "\(route)")
        }
    }

    func testInsteadHookReturnValueReplacesTheMethodsAndCanCallTheOriginal() throws {
        let f = try family(PERouteClosure)
        try apply(logAppend + """
        hook(require('\(f.base)'), 'add:to:', 'instead', function(info, a, b) {
          var original = info.invokeOriginal();
          log('instead:' + original);
          return original * 100;
        });
        """)
        XCTAssertEqual(pf_tk_add(make(f.base), 2, 3), 500)
        XCTAssertEqual(log(), "add instead:5")
    }

    func testInstanceHookFromScriptAffectsOnlyThatObject() throws {
        let f = try family(PERouteClosure)
        let hooked = try XCTUnwrap(try apply(logAppend + """
        var o = require('\(f.base)').alloc().init();
        hook(o, 'add:to:', 'after', function(info) { log('onlyMe'); });
        o
        """) as? ObjCObject)
        XCTAssertEqual(pf_tk_add(hooked.pointer, 1, 1), 2)
        XCTAssertEqual(log(), "add onlyMe")
        XCTAssertEqual(pf_tk_add(make(f.base), 1, 1), 2)
        XCTAssertEqual(log(), "add")
    }

    func testClassMethodHookAndOnceOption() throws {
        let f = try family(PERouteClosure)
        try apply(logAppend + """
        hookClass(require('\(f.base)'), 'kind', 'before', function(info) { log('once'); }, {once: true});
        """)
        XCTAssertEqual(take(pf_send_class_str(f.base, "kind", nil)), "\"base\"")
        XCTAssertEqual(take(pf_send_class_str(f.base, "kind", nil)), "\"base\"")
        XCTAssertEqual(log(), "once +Base +Base")
    }

    func testTokenRemovesAndRevertRemovesTheRest() throws {
        let f = try family(PERouteClosure)
        let name = uniqueScriptName()
        let removed = try apply(logAppend + """
        var a = hook(require('\(f.base)'), 'ping', 'before', function(info) { log('a'); });
        var b = hook(require('\(f.base)'), 'ping', 'after', function(info) { log('b'); });
        [a.remove(), a.remove()]
        """, name: name)
        XCTAssertEqual(render(removed), "[true, false]")
        let object = make(f.base)
        pf_tk_ping(object)
        XCTAssertEqual(log(), "ping b")
        try PatchEngine.revert(name)
        pf_tk_ping(object)
        XCTAssertEqual(log(), "ping", "reverting the script removes its remaining hook")
    }

    func testHookErrorsAreClearJSErrors() throws {
        let f = try family(PERouteClosure)
        let result = try apply("""
        var errors = [];
        try { hook(require('\(f.base)'), 'ping', 'around', function() {}); } catch (e) { errors.push(String(e)); }
        try { hook(require('\(f.base)'), 'noSuchThing', 'before', function() {}); } catch (e) { errors.push(String(e)); }
        try { hook(require('\(f.base)'), 'retain', 'before', function() {}); } catch (e) { errors.push(String(e)); }
        errors
        """)
        let errors = try XCTUnwrap(result as? [Any?]).compactMap { $0 as? String }
        XCTAssertEqual(errors.count, 3)
        XCTAssertTrue(errors[0].contains("position must be 'before', 'instead' or 'after'"), errors[0])
        XCTAssertTrue(errors[1].contains("does not respond to noSuchThing"), errors[1])
        XCTAssertTrue(errors[2].contains("blacklisted"), errors[2])
    }

    func testRoutesReplaceRemoveAndRevertRestoreTheAppsRoutes() throws {
        try PatchRouterBindings.register()
        let router = Router.routes(forScheme: "shoptest")
        router.removeAllRoutes()
        addTeardownBlock { Router.unregisterRouteScheme("shoptest") }
        var nativeCalls: [String] = []
        try router.addRoute("/product/:id") { params in
            nativeCalls.append("native:\(params["id"] ?? "")"); return true
        }
        let name = uniqueScriptName()
        try apply("""
        var seen = [];
        routes.replace('/product/:id', function(params) { seen.push('js:' + params.id + ':' + params.JLRouteScheme); return true; },
                       {scheme: 'shoptest'});
        routes.add('/cart', function(params) { seen.push('cart'); return true; }, {scheme: 'shoptest'});
        """, name: name)
        XCTAssertTrue(Router.routeURL(URL(string: "shoptest://product/42")!))
        XCTAssertTrue(Router.routeURL(URL(string: "shoptest://cart")!))
        XCTAssertEqual(nativeCalls, [], "the app's broken handler was replaced")
        XCTAssertEqual(render(try PatchEngine.evaluate("seen", name: name)), "[\"js:42:shoptest\", \"cart\"]")

        try PatchEngine.revert(name)
        XCTAssertTrue(Router.routeURL(URL(string: "shoptest://product/7")!))
        XCTAssertEqual(nativeCalls, ["native:7"], "revert puts the app's own route back")
        XCTAssertFalse(Router.canRouteURL(URL(string: "shoptest://cart")!), "revert removes the added route")
    }

    func testRoutesRemoveFromScriptAndBadPatterns() throws {
        try PatchRouterBindings.register()
        let router = Router.routes(forScheme: "shoptest2")
        addTeardownBlock { Router.unregisterRouteScheme("shoptest2") }
        try router.addRoute("/broken") { _ in true }
        let name = uniqueScriptName()
        let result = try apply("""
        var removed = routes.remove('/broken', {scheme: 'shoptest2'});
        var error = '';
        try { routes.add('/a/(b', function() { return true; }); } catch (e) { error = String(e); }
        [removed, error]
        """, name: name)
        let values = try XCTUnwrap(result as? [Any?])
        XCTAssertEqual(values[0] as? Double, 1)
        XCTAssertTrue((values[1] as? String)?.contains("routes.add('/a/(b')") ?? false, "\(values[1] ?? "")")
        XCTAssertFalse(Router.canRouteURL(URL(string: "shoptest2://broken")!))
        try PatchEngine.revert(name)
        XCTAssertTrue(Router.canRouteURL(URL(string: "shoptest2://broken")!))
    }

    /// C functions taking structs, with or without libffi: an NSRange (two integer registers),
    /// an NSPoint (two floating-point registers), an NSRect (four; on x86-64 a copy on the stack).
    func testCFunctionsTakeStructArguments() throws {
        PatchEngine.allowedCFunctions = ["NSStringFromRange", "NSStringFromPoint", "NSStringFromRect"]
        addTeardownBlock { PatchEngine.allowedCFunctions = [] }
        let result = try apply("""
        defineCFunction('NSStringFromRange', 'NSString *, NSRange');
        defineCFunction('NSStringFromPoint', 'NSString *, NSPoint');
        defineCFunction('NSStringFromRect', 'NSString *, NSRect');
        [NSStringFromRange({location: 2, length: 3}).toJS(), NSStringFromPoint({x: 1.5, y: -2}).toJS(),
         NSStringFromRect({origin: {x: 1, y: 2}, size: {width: 3.25, height: 4}}).toJS()]
        """)
        #if os(Linux)
        let expected = #"["{location=2, length=3}", "{x = 1.5; y = -2}", "{x = 1; y = 2; width = 3.25; height = 4}"]"#  // GNUstep's forms
        #else
        let expected = #"["{2, 3}", "{1.5, -2}", "{{1, 2}, {3.25, 4}}"]"#
        #endif
        XCTAssertEqual(render(result), expected)
    }

    /// Defining a C function again with the same types (scripts do it in loops) gives the same
    /// function — until a struct the types name changes: once the script that defined it is
    /// reverted, the same definition is refused as it would have been before.
    func testACFunctionDefinedAgainFollowsTheStructsItsTypesName() throws {
        PatchEngine.allowedCFunctions = ["NSStringFromRange"]
        addTeardownBlock { PatchEngine.allowedCFunctions = [] }
        let name = uniqueClassName("PFRangeLike")
        let structs = uniqueScriptName()
        try apply("defineStruct({name: '\(name)', types: 'QQ', keys: ['location', 'length']})", name: structs)
        let result = try apply("""
        var f = defineCFunction('NSStringFromRange', 'NSString *, \(name)');
        for (var i = 0; i < 1000; i++) { if (defineCFunction('NSStringFromRange', 'NSString *, \(name)') !== f) throw 'another function'; }
        NSStringFromRange({location: 2, length: 3}).toJS()
        """)
        #if os(Linux)
        XCTAssertEqual(result as? String, "{location=2, length=3}")   // GNUstep's form
        #else
        XCTAssertEqual(result as? String, "{2, 3}")
        #endif
        try PatchEngine.revert(structs)
        let refused = applyExpectingError("defineCFunction('NSStringFromRange', 'NSString *, \(name)')")
        XCTAssertTrue(refused?.message.contains("defineCFunction NSStringFromRange") ?? false, "\(String(describing: refused))")
    }

    func testCFunctionsNeedTheAppsPermission() throws {
        PatchEngine.allowedCFunctions = ["strlen", "pow"]
        addTeardownBlock { PatchEngine.allowedCFunctions = [] }
        // With or without libffi: registers carry both calls (pow's doubles in floating-point ones).
        let result = try apply("""
        defineCFunction('strlen', 'size_t, const char *');
        defineCFunction('pow', 'double, double, double');
        [strlen('hello'), pow(2, 10)]
        """)
        XCTAssertEqual(render(result), "[5, 1024]")

        let refused = applyExpectingError("defineCFunction('abort', 'void')")
        XCTAssertTrue(refused?.message.contains("abort is not in PatchEngine.allowedCFunctions") ?? false, "\(String(describing: refused))")
        PatchEngine.allowedCFunctions.insert("no_such_function_here")
        let unknown = applyExpectingError("defineCFunction('no_such_function_here', 'int')")
        XCTAssertTrue(unknown?.message.contains("no C function named no_such_function_here") ?? false, "\(String(describing: unknown))")
    }
}
