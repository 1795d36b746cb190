import Foundation
import PatchEngine
import PatchFixtures
import PatchSupport
import XCTest

/// A script chooses the values converted to Swift (its completion value, its arguments to
/// extensions, a callback's result), so the conversion is bounded and runs its getters under the
/// limits: a value that contains itself took the app down (stack overflow), one of 2^50 values or
/// an array of length 2^32 − 1 never returned, and a getter that never returned hung the app.
final class SwiftValueTests: PatchTestCase {
    func testAValueThatContainsItselfReadsAsNilWhereItRecursAndIsLogged() throws {
        let log = captureLog()
        let name = uniqueScriptName()
        let object = try apply("var a = { n: 1 }; a.me = a; a.list = [a, 2]; a", name: name) as? [String: Any?]
        XCTAssertEqual(object?["n"] as? Double, 1)
        XCTAssertEqual(object?.keys.contains("me"), true)
        XCTAssertNil(object?["me"] ?? nil, "the object again, inside itself")
        let list = object?["list"] as? [Any?]
        XCTAssertEqual(list?.count, 2)
        XCTAssertNil(list?[0] ?? nil)
        XCTAssertEqual(list?[1] as? Double, 2)
        XCTAssertTrue(log.lines.contains { $0.hasPrefix("the completion value of \(name) was cut when converted to Swift") }, "\(log.lines)")
        XCTAssertEqual(render(try apply("var b = [1]; b.push(b); b")), "[1, nil]")
    }

    func testTheSameObjectTwiceIsNoCycleAndIsNotCut() throws {
        let log = captureLog()
        XCTAssertEqual(render(try apply("var o = { x: 1 }; [o, o, { p: o }]")), "[{x: 1}, {x: 1}, {p: {x: 1}}]")
        XCTAssertEqual(log.lines, [])
    }

    func testHugeValuesEndAtTheBound() throws {
        // 2^60 leaves by sharing.
        let shared = try apply("var a = [1]; for (var i = 0; i < 60; i++) a = [a, a]; a")
        XCTAssertNotNil(shared)
        XCTAssertLessThanOrEqual(leaves(shared), 100_000)
        // The longest array JS has, nearly all holes.
        let sparse = try apply("var s = []; s[4294967294] = 1; s") as? [Any?]
        XCTAssertEqual(sparse?.count, 99_999, "the array itself is the first of the 100,000 values")
        let keys = try apply("var k = {}; for (var i = 0; i < 200000; i++) k['p' + i] = i; k") as? [String: Any?]
        XCTAssertEqual(keys?.count, 99_999)
    }

    func testNestingDeeperThanTheBoundReadsAsNil() throws {
        var (depth, bottom) = nesting(try apply("var d = 'bottom'; for (var i = 0; i < 1000; i++) d = [d]; d"))
        XCTAssertEqual(depth, 100)
        XCTAssertNil(bottom)
        (depth, bottom) = nesting(try apply("var e = 'bottom'; for (var i = 0; i < 100; i++) e = [e]; e"))
        XCTAssertEqual(depth, 100)
        XCTAssertEqual(bottom as? String, "bottom", "100 levels of arrays are within the bound")
    }

    /// How many arrays `value` nests, and what is at the bottom.
    private func nesting(_ value: Any?) -> (Int, Any?) {
        var value = value, depth = 0
        while let array = value as? [Any?] { depth += 1; value = array.first ?? nil }
        return (depth, value)
    }

    private func leaves(_ value: Any?) -> Int {
        if let array = value as? [Any?] { return array.reduce(0) { $0 + leaves($1) } }
        return value == nil ? 0 : 1
    }
}

/// Getters and proxy traps a conversion runs are the script's code, under the limits.
final class SwiftValueLimitTests: TimeLimitTestCase {
    private let spin = "var t0 = Date.now(); while (Date.now() - t0 < 3000) {}"

    func testAGetterOfTheCompletionValueThatRunsAwayEndsTheEvaluation() throws {
        let name = uniqueScriptName()
        let started = threadCPUTime()
        let error = applyExpectingError("""
        defineClass('PFFailing', { riskyValue: function() { return 99 } });
        ({ get x() { \(spin) return 1 } })
        """, name: name)
        XCTAssertLessThan(threadCPUTime() - started, 2, "the limit must end the getter")
        XCTAssertEqual(error?.kind, .timeout)
        XCTAssertEqual(error?.message, "evaluation of \(name) exceeded the 0.2 s execution time limit")
        var raised: Int32 = 0
        XCTAssertEqual(pf_failing_risky_value(&raised), 7, "the evaluation was rolled back")
        XCTAssertEqual(render(try apply("1 + 1")), "2")
    }

    func testAProxyTrapOfTheCompletionValueThatRunsAwayEndsTheEvaluation() throws {
        let started = threadCPUTime()
        let error = applyExpectingError("new Proxy({}, { ownKeys: function () { \(spin) return [] } })")
        XCTAssertLessThan(threadCPUTime() - started, 2, "the limit must end the trap")
        XCTAssertEqual(error?.kind, .timeout)
    }

    /// A patched method's result is read after its JS returned: a struct's fields, an object's
    /// properties for an `NSString` (converted as a dictionary, then refused) are getters.
    func testAGetterOfAPatchedMethodsResultThatRunsAwayFallsBackAndIsReverted() throws {
        let errors = captureErrors()
        let name = uniqueScriptName()
        try apply("""
        defineClass('PFFailing', {
          riskyRect: function() { return { get x() { \(spin) return 1 }, y: 2, width: 3, height: 4 } },
          riskyName: function() { return { get a() { \(spin) return 'a' } } }
        })
        """, name: name)
        var raised: Int32 = 0
        var started = threadCPUTime()
        let rect = pf_failing_risky_rect(&raised)
        XCTAssertLessThan(threadCPUTime() - started, 2, "the limit must end the getter")
        XCTAssertEqual([rect.x, rect.y, rect.width, rect.height], [1, 2, 3, 4], "the original's result")
        XCTAssertEqual(errors.errors.first?.message, "-[PFFailing riskyRect] (patched by \(name)) exceeded the 0.2 s execution time limit")
        XCTAssertFalse(PatchEngine.appliedPatchNames.contains(name))

        try apply("defineClass('PFFailing', { riskyName: function() { return { get a() { \(spin) return 'a' } } } })", name: name)
        started = threadCPUTime()
        let text = take(pf_failing_risky_name(&raised))
        XCTAssertLessThan(threadCPUTime() - started, 2, "the limit must end the getter")
        XCTAssertEqual(text, "\"safe\"", "the original's result")
        XCTAssertEqual(errors.errors.last?.kind, .timeout)
    }

    /// A performSelectorInOC request's send runs after the method's JS returned, outside its entry;
    /// its argument list and arguments are read there (a proxy's traps, an argument's `valueOf`).
    func testScriptCodeAPerformSelectorInOCRequestsArgumentsRunIsUnderTheLimit() throws {
        let errors = captureErrors()
        let requests = [
            "'isEqual:', [{ get a() { \(spin) return 1 } }]",
            "'baseValue:', new Proxy([x], { get: function (t, k) { if (k === '0') { \(spin) } return t[k] } })",
        ]
        for request in requests {
            let name = uniqueScriptName()
            try apply("""
            defineClass('PFWorker', {
              compute: function(x) { return self.performSelectorInOC(\(request), function (r) { return r === false ? 50 : r + 1 }) }
            })
            """, name: name)
            let started = threadCPUTime()
            XCTAssertEqual(pf_worker_compute(4), 4, "the original's result: \(request)")
            XCTAssertLessThan(threadCPUTime() - started, 2, "the limit must end \(request)")
            XCTAssertEqual(errors.errors.last?.message, "-[PFWorker compute:] (patched by \(name)) exceeded the 0.2 s execution time limit")
            XCTAssertFalse(PatchEngine.appliedPatchNames.contains(name), "the script is reverted")
        }
        let name = uniqueScriptName()
        try apply("""
        defineClass('PFWorker', {
          compute: function(x) {
            var me = self;
            return me.performSelectorInOC('baseValue:', new Proxy([x], {}), function (r) {
              return me.performSelectorInOC('isEqual:', [{ get a() { return 1 } }], function (e) { return r + (e ? 0 : 1) })
            })
          }
        })
        """, name: name)
        XCTAssertEqual(pf_worker_compute(4), 41, "a proxy list and a getter still convert")
    }

    /// A JS block's result is read after the block's JS returned, for its native caller: an
    /// object returned for an `NSString` is read as a dictionary, running its getters.
    func testAGetterOfABlocksResultThatRunsAwayIsEnded() throws {
        let errors = captureErrors()
        let started = threadCPUTime()
        // The block's failure is reported and its native caller gets no string, as for any
        // failure of a block; the evaluation around it goes on.
        let result = try apply("""
        var got = require('PFBlockHost').alloc().init().callStringIntBlock(block('NSString *, NSString *, int', function (s, n) {
          return { get a() { \(spin) return 'a' } };
        }));
        got === false ? 'no string' : got.toJS()
        """)
        XCTAssertLessThan(threadCPUTime() - started, 2, "the limit must end the getter")
        XCTAssertEqual(render(result), "\"no string\"")
        XCTAssertTrue(errors.errors.contains { $0.kind == .timeout }, "\(errors.errors)")
        XCTAssertEqual(render(try apply("'still running'")), "\"still running\"")
    }

    func testAGetterOfACallbacksResultThatRunsAwayIsEndedAndReported() throws {
        let errors = captureErrors()
        let name = "peValueLimits\(Self.nextNumber())"
        let kept = LockedValue<ScriptCallback?>(nil)
        try PatchEngine.register(ScriptExtension(name: name, functions: [
            "keep": { call in kept.withLock { $0 = call.argument(0) as? ScriptCallback }; return nil },
        ]))
        let script = uniqueScriptName()
        try apply("\(name).keep(function () { return { get x() { \(spin) return 1 } }; })", name: script)
        let callback = try XCTUnwrap(kept.withLock { $0 })
        let started = threadCPUTime()
        XCTAssertNil(callback.call([], context: "test handler"))
        XCTAssertLessThan(threadCPUTime() - started, 2, "the limit must end the getter")
        XCTAssertEqual(errors.errors.first?.kind, .timeout)
        XCTAssertFalse(PatchEngine.appliedPatchNames.contains(script), "the script whose getter ran away is reverted")
    }
}
