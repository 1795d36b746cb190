import Foundation
import PatchEngine
import PatchSupport
import XCTest

/// `ScriptExtension`: how an optional module (PatchRouterBindings' `routes`) gives scripts a
/// global of native functions without the engine depending on it.
final class ScriptExtensionTests: PatchTestCase {
    /// A name no other registration in this process used (the registry lives as long as the process).
    private func uniqueExtensionName() -> String { "peExtension\(Self.nextNumber())" }

    func testScriptsCallAnExtensionWithSwiftValuesAndItsChangesAreRevertedWithTheScript() throws {
        let name = uniqueExtensionName()
        let state = LockedValue<[String]>([])
        let kept = LockedValue<ScriptCallback?>(nil)
        try PatchEngine.register(ScriptExtension(name: name, functions: [
            "echo": { call in call.arguments },
            "add": { call in
                let item = call.argument(0) as? String ?? "?"
                state.withLock { $0.append(item) }
                call.recordUndo("add \(item)") { state.withLock { $0.removeAll { $0 == item } } }
                return ["script": call.script, "next": ScriptFunction { args in (args.first as? Double ?? 0) + 1 }]
            },
            "keep": { call in
                kept.withLock { $0 = call.argument(0) as? ScriptCallback }
                return nil
            },
        ]))
        let script = uniqueScriptName()
        let result = try apply("""
            var echoed = \(name).echo('a', 2, true, null, [1, 'b'], {k: 'v'});
            var added = \(name).add('x');
            \(name).keep(function (n) { return n * 2; });
            [JSON.stringify(echoed), added.script, added.next(41)]
            """, name: script)
        XCTAssertEqual(render(result), #"["["a",2,true,null,[1,"b"],{"k":"v"}]", "\#(script)", 42]"#)
        XCTAssertEqual(state.withLock { $0 }, ["x"])
        let callback = try XCTUnwrap(kept.withLock { $0 })
        XCTAssertEqual(callback.script, script)
        XCTAssertEqual(callback.call([21], context: "test") as? Double, 42, "a kept function is called later from Swift")
        XCTAssertTrue(callback.isTruthy(callingWith: [1], context: "test"))
        XCTAssertFalse(callback.isTruthy(callingWith: [0], context: "test"))

        try PatchEngine.revert(script)
        XCTAssertEqual(state.withLock { $0 }, [], "the recorded undo ran with the script's revert")
    }

    func testAnExtensionsErrorIsAJSErrorAndAFailingCallbackIsReportedNotThrown() throws {
        let errors = captureErrors()
        let name = uniqueExtensionName()
        let kept = LockedValue<ScriptCallback?>(nil)
        struct Refused: Error, CustomStringConvertible { var description: String { "no, thank you" } }
        try PatchEngine.register(ScriptExtension(name: name, functions: [
            "refuse": { _ in throw Refused() },
            "keep": { call in kept.withLock { $0 = call.argument(0) as? ScriptCallback }; return nil },
        ]))
        let script = uniqueScriptName()
        let result = try apply("""
            var caught = '';
            try { \(name).refuse(); } catch (e) { caught = String(e); }
            \(name).keep(function () { throw new Error('handler broke'); });
            caught
            """, name: script)
        XCTAssertEqual(result as? String, "Error: no, thank you")
        let callback = try XCTUnwrap(kept.withLock { $0 })
        XCTAssertNil(callback.call([], context: "test handler"))
        XCTAssertFalse(callback.isTruthy(callingWith: [], context: "test handler"))
        XCTAssertEqual(errors.errors.count, 2)
        XCTAssertTrue(errors.errors.first?.message.contains("handler broke") ?? false, "\(errors.errors)")
        XCTAssertEqual(errors.errors.first?.scriptName, script)
    }

    func testANameThatIsNoIdentifierOrTakenIsRefusedAndAnEngineGlobalIsNotShadowed() throws {
        let log = captureLog()
        for bad in ["", "1st", "a-b", "a.b", "é"] {
            XCTAssertThrowsError(try PatchEngine.register(ScriptExtension(name: bad, functions: [:]))) {
                XCTAssertEqual("\($0)", "script extension name '\(bad)' is not a JavaScript identifier")
            }
        }
        let name = uniqueExtensionName()
        try PatchEngine.register(ScriptExtension(name: name, functions: ["one": { _ in 1.0 }]))
        XCTAssertThrowsError(try PatchEngine.register(ScriptExtension(name: name, functions: [:]))) {
            XCTAssertEqual("\($0)", "a script extension named '\(name)' is registered already")
        }
        XCTAssertEqual(try apply("\(name).one()") as? Double, 1)

        // `require` is runtime.js's: an extension of that name would take it from every script.
        let registered = (try? PatchEngine.register(ScriptExtension(name: "require", functions: ["x": { _ in nil }]))) != nil
        XCTAssertEqual(try apply("typeof require + ' ' + typeof require.x") as? String, "function undefined")
        if registered {
            XCTAssertTrue(log.lines.contains("script extension 'require' not installed: scripts have a global of that name already"),
                          "\(log.lines)")
        }
    }
}
