import Foundation
import XCTest
import PatchFixtures
import PatchRuntime
@testable import PatchEngine

/// Calls of methods defined in JS, made from JS (`DirectCalls.swift`): they stay in JS unless a
/// native layer sits on the method, and what the caller sees is what the round trip through
/// Objective-C gave: values, errors, hooks, swizzles, native overrides, later patches and reverts,
/// and objects whose class changes (KVO).
final class DirectCallTests: PatchTestCase {
    /// Native entries into JS patches on this thread while `body` runs.
    private func nativeEntries(_ body: () throws -> Void) rethrows -> UInt64 {
        let before = PEDispatchPatchedCallCountOnThisThread()
        try body()
        return PEDispatchPatchedCallCountOnThisThread() - before
    }

    private func eval(_ script: String) throws -> Any? { try PatchEngine.evaluate(script, name: "DirectCallTests-eval.js") }

    /// A JS-defined class with `value` (41) and `plusOne` (calls self.value()), an instance in `global`.
    private func defineCounter() throws -> (cls: String, global: String) {
        let cls = uniqueClassName("DCTCounter"), global = "__dct\(Self.nextNumber())"
        try apply("""
        defineClass('\(cls) : NSObject', {
          value: function () { return 41; },
          plusOne: function () { return self.value() + 1; },
          sumTo: function (n) { var s = 0; for (var i = 0; i < n; i++) s += self.value(); return s; }
        });
        globalThis.\(global) = \(cls).alloc().init();
        """)
        return (cls, global)
    }

    func testAJSDefinedMethodCalledFromJSDoesNotCrossIntoObjectiveC() throws {
        let (cls, global) = try defineCounter()
        XCTAssertEqual(try eval("\(global).plusOne()") as? Double, 42)   // resolves once
        let entries = try nativeEntries {
            for _ in 0..<20 { XCTAssertEqual(try eval("\(global).plusOne()") as? Double, 42) }
            XCTAssertEqual(try eval("\(global).sumTo(1000)") as? Double, 41_000)
        }
        XCTAssertEqual(entries, 0, "a call from JS of a method defined in JS went through Objective-C")
        // Native callers still reach it, through the dispatcher.
        let viaNative = nativeEntries { XCTAssertEqual(take(pf_new_send(cls, "plusOne")), "42") }
        XCTAssertEqual(viaNative, 1, "a native -plusOne enters JS once; its self.value() stays in JS")
    }

    func testAHookOnTheMethodIsRunFromJSAndAfterItsRemovalTheCallIsDirectAgain() throws {
        let (cls, global) = try defineCounter()
        XCTAssertEqual(try eval("\(global).plusOne()") as? Double, 42)
        let hookScript = uniqueScriptName()
        try apply("globalThis.\(global)seen = 0; hook(\(cls), 'value', 'before', function () { \(global)seen++; });", name: hookScript)
        let hooked = try nativeEntries { XCTAssertEqual(try eval("\(global).plusOne()") as? Double, 42) }
        XCTAssertEqual(try eval("\(global)seen") as? Double, 1, "the hook did not run for a call from JS")
        XCTAssertEqual(hooked, 1, "the hooked method must be entered natively")
        try PatchEngine.revert(hookScript)
        let unhooked = try nativeEntries { XCTAssertEqual(try eval("\(global).plusOne()") as? Double, 42) }
        XCTAssertEqual(unhooked, 0)
        XCTAssertEqual(try eval("\(global)seen") as? Double, 1)
    }

    func testASwizzleAddedNativelyRunsForCallsFromJS() throws {
        // Swizzles run below the patch: the patch reaches them through ORIG.
        try apply("defineClass('PFDirectBase', { value: function () { return self.ORIGvalue() + 4; }, plusOne: function () { return self.value() + 1; } });")
        let global = "__dct\(Self.nextNumber())"
        try apply("globalThis.\(global) = require('PFDirectBase').alloc().init();")
        XCTAssertEqual(try eval("\(global).plusOne()") as? Double, 6)
        XCTAssertEqual(try nativeEntries { _ = try eval("\(global).plusOne()") }, 0)
        XCTAssertEqual(pf_direct_native_value_of_new("PFDirectBase"), 5)
        var error: UnsafeMutablePointer<CChar>?
        let handle = pf_direct_swizzle_value(1000, &error)
        guard handle != 0 else { return XCTFail("swizzle: \(take(error) ?? "?")") }
        XCTAssertEqual(try eval("\(global).plusOne()") as? Double, 1006, "the swizzle did not run for a call from JS")
        XCTAssertEqual(try nativeEntries { _ = try eval("\(global).plusOne()") }, 1, "the swizzled -value must be entered natively")
        XCTAssertEqual(pf_tk_remove(handle), 1)
        XCTAssertEqual(try eval("\(global).plusOne()") as? Double, 6)
        XCTAssertEqual(try nativeEntries { _ = try eval("\(global).plusOne()") }, 0)
    }

    func testANativeOverrideInASubclassIsWhatASubclassInstanceRuns() throws {
        let script = uniqueScriptName()
        try apply("""
        defineClass('PFDirectBase', { value: function () { return 7; } });
        defineClass('PFDirectFixture', {}, { probe: function (o) { return o.value(); } });
        """, name: script)
        let result = try eval("""
        [PFDirectFixture.probe(require('PFDirectBase').alloc().init()),
         PFDirectFixture.probe(require('PFDirectNative').alloc().init()),
         PFDirectFixture.probe(require('PFDirectPlain').alloc().init())].join(',')
        """)
        XCTAssertEqual(result as? String, "7,100,7")
    }

    func testAnObjectWhoseClassChangesIsSeenWithItsNewClass() throws {
        try apply("defineClass('PFDirectBase', { label: function () { return 'js'; } });")
        let result = try eval("""
        var o = require('PFDirectBase').alloc().init(), seen = [];
        for (var i = 0; i < 3; i++) seen.push(o.label().toJS());    // direct calls, state kept
        require('PFDirectFixture').becomeNative_(o);                  // object_setClass, natively
        for (var i = 0; i < 3; i++) { var l = o.label(); seen.push(typeof l === 'string' ? l : l.toJS()); }
        seen.join(',');
        """)
        XCTAssertEqual(result as? String, "js,js,js,native,native,native")
    }

    func testAKVOObserverAddedAfterDirectCallsSeesTheSettersCalledFromJS() throws {
        pf_direct_reset_notifications()
        try apply("defineClass('PFDirectBase', { setName_: function (n) { self.ORIGsetName_(n + '!'); } });")
        let result = try eval("""
        var o = require('PFDirectBase').alloc().init();
        o.setName_('a'); o.setName_('b');                            // direct: nothing observes yet
        require('PFDirectFixture').observe_(o);                        // KVO subclasses the object
        o.setName_('c');
        o.name().toJS();
        """)
        XCTAssertEqual(result as? String, "c!")
        XCTAssertEqual(pf_direct_notifications(), 1, "a setter called from JS skipped the KVO subclass's override")
    }

    func testALaterPatchARedefinitionAndARevertAreSeenByTheSameCaller() throws {
        let cls = uniqueClassName("DCTRedefined"), global = "__dct\(Self.nextNumber())"
        try apply("""
        defineClass('\(cls) : NSObject', { value: function () { return 1; }, read: function () { return self.value(); } });
        globalThis.\(global) = \(cls).alloc().init();
        """)
        for _ in 0..<5 { XCTAssertEqual(try eval("\(global).read()") as? Double, 1) }
        let second = uniqueScriptName()
        try apply("defineClass('\(cls)', { value: function () { return 2; } });", name: second)
        XCTAssertEqual(try eval("\(global).read()") as? Double, 2)
        try PatchEngine.revert(second)
        XCTAssertEqual(try eval("\(global).read()") as? Double, 1)
    }

    func testAChangeOfAnotherClassKeepsTheCallerAndARedefinitionReplacesIt() throws {
        let (cls, global) = try defineCounter()
        XCTAssertEqual(try eval("\(global).plusOne(); globalThis.\(global)f = \(global).__c('value'); 1") as? Double, 1)
        let unrelated = uniqueScriptName()
        try apply("defineClass('\(uniqueClassName("DCTUnrelated")) : NSObject', { x: function () { return 1; } });", name: unrelated)
        try PatchEngine.revert(unrelated)
        XCTAssertEqual(try eval("\(global).plusOne(); \(global).__c('value') === \(global)f") as? Bool, true,
                       "a change elsewhere gave the call site a new caller for the same method")
        try apply("defineClass('\(cls)', { value: function () { return 99; } });")
        XCTAssertEqual(try eval("[\(global).plusOne(), \(global).__c('value') === \(global)f].join()") as? String, "100,false")
    }

    func testAPatchOfANativeMethodRevertedFallsBackToTheNativeImplementation() throws {
        let patch = uniqueScriptName()
        try apply("defineClass('PFDirectBase', { twice_: function (x) { return 3 * x; } });", name: patch)
        let global = "__dct\(Self.nextNumber())"
        try apply("globalThis.\(global) = require('PFDirectBase').alloc().init();")
        XCTAssertEqual(try eval("\(global).twice_(5)") as? Double, 15)
        try PatchEngine.revert(patch)
        XCTAssertEqual(try eval("\(global).twice_(5)") as? Double, 10)
    }

    func testArgumentsAndResultsAreWhatTheRoundTripGives() throws {
        let cls = uniqueClassName("DCTValues")
        // A method with native types (an int argument, an int result) and new id-typed ones.
        try apply("""
        defineProtocol('\(cls)Types', { half_: { paramsType: 'int', returnType: 'int' } });
        defineClass('\(cls) : NSObject <\(cls)Types>', {
          half_: function (x) { return x / 2; },
          echo_: function (v) { return v; },
          kind_: function (v) { return typeof v; },
          text: function () { return 'abc'; },
          list: function () { return [1, 2]; }
        });
        """)
        let result = try eval("""
        var o = require('\(cls)').alloc().init(), out = [];
        out.push(o.half_(7));                          // int argument 7, result 3.5 → 3
        out.push(o.half_(7.9));                        // argument truncated to 7 first
        out.push(o.kind_('s'), o.kind_(undefined), o.kind_(5), o.kind_(true), o.kind_(o));
        out.push(o.echo_(null) === false, o.echo_(o) === o);
        var t = o.text(); out.push(typeof t, t.toJS(), t.length());
        out.push(o.list().toJS().join('+'));
        out.join(',');
        """)
        // A JS string becomes an NSString box on the way in and out, as through Objective-C;
        // undefined and null arrive as nil (false); a box comes back as the same box.
        XCTAssertEqual(result as? String, "3,3,object,boolean,number,boolean,object,true,true,object,abc,3,1+2")
    }

    func testAWrongArgumentIsTheSendsError() throws {
        let cls = uniqueClassName("DCTWrong")
        try apply("""
        defineProtocol('\(cls)Types', { twice_: { paramsType: 'int', returnType: 'int' } });
        defineClass('\(cls) : NSObject <\(cls)Types>', { twice_: function (x) { return 2 * x; } });
        globalThis.__dctWrong = require('\(cls)').alloc().init();
        """)
        XCTAssertEqual(try eval("__dctWrong.twice_(4)") as? Double, 8)
        let error = applyExpectingError("__dctWrong.twice_({})")
        XCTAssertEqual(error?.message.contains("argument 1 of -[\(cls) twice:] expects int, got object"), true,
                       error?.message ?? "no error")
        // More arguments than the method takes: another selector, sent as before (no such method).
        let extra = applyExpectingError("__dctWrong.twice_(1, 2)")
        XCTAssertEqual(extra?.message.contains("-[\(cls) twice::]"), true, extra?.message ?? "no error")
    }

    func testAThrowingMethodIsReportedAndTheCallerGetsTheOriginalsResult() throws {
        let errors = captureErrors()
        let script = uniqueScriptName()
        try apply("""
        defineClass('PFDirectBase', {
          value: function () { throw new Error('broken value'); },
          label: function () { return nothing.here; }
        });
        """, name: script)
        let result = try eval("var o = require('PFDirectBase').alloc().init(); [o.value(), o.value(), o.label().toJS()].join(',')")
        XCTAssertEqual(result as? String, "1,1,base", "the caller gets the original implementation's result")
        XCTAssertEqual(errors.errors.count, 3, "\(errors.errors)")
        XCTAssertEqual(errors.errors.first?.message, "-[PFDirectBase value]: Error: broken value")
        XCTAssertEqual(errors.errors.first?.scriptName, script)
        XCTAssertEqual(errors.errors.last?.message.hasPrefix("-[PFDirectBase label]: ReferenceError"), true,
                       errors.errors.last?.message ?? "")
    }

    func testPerformSelectorInOCFromADirectlyCalledMethodRuns() throws {
        let cls = uniqueClassName("DCTInOC")
        try apply("""
        defineClass('\(cls) : NSObject', {
          later: function () { return self.performSelectorInOC('description', [], function (d) { return 'got ' + d.toJS().length; }); }
        });
        """)
        let result = try eval("var r = require('\(cls)').alloc().init().later(); typeof r === 'string' ? r : r.toJS()")
        XCTAssertEqual((result as? String)?.hasPrefix("got "), true, "\(String(describing: result))")
    }

    func testSuperAndSelfInsideADirectlyCalledMethod() throws {
        let base = uniqueClassName("DCTBase"), sub = uniqueClassName("DCTSub")
        try apply("""
        defineClass('\(base) : NSObject', { name: function () { return 'base'; } });
        defineClass('\(sub) : \(base)', {
          name: function () { return 'sub<' + self.super().name() + '>'; },
          both: function (other) { return [self.name(), other.name(), self === globalThis.__dctSelf].join('|'); }
        });
        """)
        let result = try eval("""
        var s = require('\(sub)').alloc().init(), b = require('\(base)').alloc().init();
        globalThis.__dctSelf = s;
        var r = s.both(b); [r, self === undefined].join(' ');
        """)
        XCTAssertEqual(result as? String, "sub<base>|base|true true", "self must be the receiver inside, restored after")
    }

    /// `self.m()` takes a caller that stores no `self` (the receiver is `self` already): a method
    /// that assigns `self` must still leave its caller's `self` as it was, and a `self` that
    /// changes between `__c` and the call (among the arguments) must not reach the callee.
    func testSelfCallsKeepSelfWhenACalleeAssignsItOrTheArgumentsChangeIt() throws {
        let cls = uniqueClassName("DCTSelf"), other = uniqueClassName("DCTSelfOther")
        try apply("""
        defineClass('\(other) : NSObject', { tag: function () { return 'other'; } });
        defineClass('\(cls) : NSObject', {
          tag: function () { return 'mine'; },
          clobber: function () { self = require('\(other)').alloc().init(); return 1; },
          whoAmI: function (x) { return self.tag(); },
          afterClobber: function (n) {
            var tags = [];
            for (var i = 0; i < n; i++) { self.clobber(); tags.push(self.tag()); }
            return tags.join(',');
          },
          argumentsChangeSelf: function () {
            var me = self, o = require('\(other)').alloc().init();
            self.whoAmI(0);   // resolved: the next call takes the cached caller
            var seen = self.whoAmI((self = o, 0));
            return [seen, self === o, me.whoAmI(0)].join(',');
          }
        });
        """)
        XCTAssertEqual(try eval("var r = require('\(cls)').alloc().init().afterClobber(3); typeof r === 'string' ? r : r.toJS()") as? String, "mine,mine,mine",
                       "a callee's assignment to self leaked into its caller")
        XCTAssertEqual(try eval("var r = require('\(cls)').alloc().init().argumentsChangeSelf(); typeof r === 'string' ? r : r.toJS()") as? String, "mine,true,mine",
                       "a self call ran with the self its arguments assigned")
    }

    func testWithAnExecutionTimeLimitCallsStayDirect() throws {
        let (_, global) = try defineCounter()
        let previous = PatchEngine.executionTimeLimit
        PatchEngine.executionTimeLimit = 5
        defer { PatchEngine.executionTimeLimit = previous }
        XCTAssertEqual(try eval("\(global).plusOne()") as? Double, 42)
        let entries = try nativeEntries { XCTAssertEqual(try eval("\(global).plusOne()") as? Double, 42) }
        XCTAssertEqual(entries, 0, "with a time limit JS methods are still called directly")
    }

    func testCallsFromSeveralThreadsWhileHooksComeAndGo() throws {
        let (cls, global) = try defineCounter()
        try apply("globalThis.\(global)hooks = 0;")
        let stop = LockedFlag()
        let group = DispatchGroup()
        let tally = Tally()
        for _ in 0..<3 {
            DispatchQueue.global().async(group: group) {
                while !stop.value {
                    let result = try? PatchEngine.evaluate("\(global).plusOne() + \(global).sumTo(3)", name: "DCTThreads.js")
                    tally.add(result as? Double == 165 ? "right" : "wrong", "\(String(describing: result))")
                }
            }
        }
        for i in 0..<30 {
            let hook = "DCTThreadsHook-\(Self.nextNumber()).js"
            try PatchEngine.evaluate("hook(\(cls), 'value', \(i % 2 == 0 ? "'before'" : "'after'"), function () { \(global)hooks++; });", name: hook)
            usleep(2000)
            try PatchEngine.revert(hook)
        }
        stop.set()
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(tally["wrong"], 0, "\(tally.sample)")
        XCTAssertGreaterThan(tally["right"], 0)
        XCTAssertGreaterThan(try eval("\(global)hooks") as? Double ?? 0, 0, "no hook ran while calls were made")
    }

    /// Other code replacing a JS-patched method (method_setImplementation, an exchange: analytics
    /// SDKs do this) changes no slot: JS callers must see it at their next call, as native callers do.
    func testAMethodReplacedByOtherCodeIsWhatTheNextCallFromJSRuns() throws {
        let cls = uniqueClassName("DCTReplaced"), global = "__dct\(Self.nextNumber())"
        try apply("""
        defineProtocol('\(cls)Types', { value: { returnType: 'int' }, other: { returnType: 'int' } });
        defineClass('\(cls) : NSObject <\(cls)Types>', {
          value: function () { return 41; },
          other: function () { return 5; },
          plusOne: function () { return self.value() + 1; }
        });
        globalThis.\(global) = require('\(cls)').alloc().init();
        """)
        XCTAssertEqual(try eval("\(global).plusOne()") as? Double, 42)
        XCTAssertEqual(try nativeEntries { _ = try eval("\(global).plusOne()") }, 0)
        let patched = pf_direct_replace_value(cls, 7)
        XCTAssertEqual(take(pf_new_send(cls, "plusOne")), "8", "a native caller")
        XCTAssertEqual(try eval("\(global).plusOne()") as? Double, 8, "a JS caller kept running the replaced patch")
        XCTAssertEqual(try eval("require('\(cls)').alloc().init().plusOne()") as? Double, 8, "on a fresh object")
        pf_direct_set_imp(cls, "value", patched)
        XCTAssertEqual(try eval("\(global).plusOne()") as? Double, 42)
        XCTAssertEqual(try nativeEntries { _ = try eval("\(global).plusOne()") }, 0, "direct again once the patch is back")
        // An exchange of two patched methods: JS callers get what native callers get.
        pf_direct_exchange(cls, "value", "other")
        let native = take(pf_new_send(cls, "plusOne"))
        XCTAssertEqual((try eval("\(global).plusOne()") as? Double).map { String(Int($0)) }, native)
        pf_direct_exchange(cls, "value", "other")
        XCTAssertEqual(try eval("\(global).plusOne()") as? Double, 42)
    }


    /// Other code adding a method to a subclass (class_addMethod, overriding the superclass
    /// method a script patched) changes no slot and no IMP word the call checks: native callers
    /// get the subclass's method at once; a JS caller on an object that already called the method
    /// gets it from the next change the engine makes, whichever class it changes (issue 36: before,
    /// it kept the patched superclass method).
    func testAMethodAddedToASubclassByOtherCodeIsSeenFromTheNextEngineChange() throws {
        let base = uniqueClassName("DCTAddBase"), sub = uniqueClassName("DCTAddSub"), other = uniqueClassName("DCTAddOther")
        let global = "__dct\(Self.nextNumber())"
        try apply("""
        defineProtocol('\(base)Types', { value: { returnType: 'int' } });
        defineClass('\(base) : NSObject <\(base)Types>', { value: function () { return 41; } });
        defineClass('\(sub) : \(base)', { plusOne: function () { return self.value() + 1; } });
        defineClass('\(other) : NSObject', { x: function () { return 1; } });
        globalThis.\(global) = require('\(sub)').alloc().init();
        """)
        XCTAssertEqual(try eval("\(global).plusOne()") as? Double, 42)
        XCTAssertEqual(try nativeEntries { _ = try eval("\(global).plusOne()") }, 0, "direct before the addition")
        XCTAssertEqual(pf_direct_add_int_method(sub, "value", 7), 1)
        XCTAssertEqual(take(pf_new_send(sub, "plusOne")), "8", "a native caller of the JS method")
        try apply("defineClass('\(other)', { y: function () { return 2; } });")
        XCTAssertEqual(try eval("\(global).value()") as? Double, 7, "a JS caller after the next engine change")
        XCTAssertEqual(try eval("\(global).plusOne()") as? Double, 8)
        XCTAssertEqual(try eval("require('\(sub)').alloc().init().plusOne()") as? Double, 8, "a fresh object")
    }

    /// Dispatch generations are per class: a change to another class leaves a caller's state (and
    /// the call site JavaScriptCore compiled around it) alone; a change to a superclass does not.
    func testAChangeOfAnotherClassLeavesTheStateAndASuperclassChangeDoesNot() throws {
        let base = uniqueClassName("DCTGenBase"), sub = uniqueClassName("DCTGenSub"), other = uniqueClassName("DCTGenOther")
        let global = "__dct\(Self.nextNumber())"
        try apply("""
        defineClass('\(base) : NSObject', { tag: function () { return 'base'; } });
        defineClass('\(sub) : \(base)', { value: function () { return 41; } });
        defineClass('\(other) : NSObject', { x: function () { return 1; } });
        globalThis.\(global) = require('\(sub)').alloc().init();
        """)
        XCTAssertEqual(try eval("\(global).value(); globalThis.\(global)f = \(global).__c('value'); \(global).__c('value') === \(global)f") as? Bool, true)
        for position in ["before", "after", "instead"] {
            let hook = uniqueScriptName()
            try apply("hook(require('\(other)'), 'x', '\(position)', function () {});", name: hook)
            try PatchEngine.revert(hook)
        }
        try apply("defineClass('\(other)', { y: function () { return 2; } });")
        XCTAssertEqual(try eval("\(global).__c('value') === \(global)f") as? Bool, true,
                       "a change to another class sent the call back through resolution")
        let hook = uniqueScriptName()
        try apply("hook(require('\(base)'), 'tag', 'before', function () {});", name: hook)
        XCTAssertEqual(try eval("\(global).__c('value') === \(global)f") as? Bool, false, "a change to the superclass must be asked again")
        XCTAssertEqual(try eval("\(global).value()") as? Double, 41)
        try PatchEngine.revert(hook)
        XCTAssertEqual(try eval("\(global).value()") as? Double, 41)
    }

}
