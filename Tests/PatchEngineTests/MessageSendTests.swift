import Foundation
import XCTest
import CJavaScriptCore
import PatchFixtures
@testable import PatchEngine

/// JS → Objective-C sends on the fast path (`N.send`, `MessageSends.swift`): what a call site
/// caches must never hide a later patch, hook or revert, and receivers must stay right when
/// several threads run patched code.
final class MessageSendTests: PatchTestCase {
    func testALaterPatchAndItsRevertAreSeenByTheSameCallSite() throws {
        let cls = uniqueClassName("MSTPatched"), global = "__mst\(Self.nextNumber())"
        try apply("""
        defineClass('\(cls) : NSObject', { value: function () { return 1; } });
        var o = \(cls).alloc().init();
        globalThis.\(global) = function () { return o.value(); };
        """)
        // Warm the call site (selector number and class cache).
        for _ in 0..<50 { XCTAssertEqual(try PatchEngine.evaluate("\(global)()") as? Double, 1) }
        let patch = uniqueScriptName()
        try apply("defineClass('\(cls)', { value: function () { return 2; } });", name: patch)
        XCTAssertEqual(try PatchEngine.evaluate("\(global)()") as? Double, 2)
        try PatchEngine.revert(patch)
        XCTAssertEqual(try PatchEngine.evaluate("\(global)()") as? Double, 1)
    }

    func testAHookAddedLaterRunsThroughTheSameCallSite() throws {
        let cls = uniqueClassName("MSTHooked"), global = "__mst\(Self.nextNumber())"
        try apply("""
        defineClass('\(cls) : NSObject', { value: function () { return 1; } });
        var o = \(cls).alloc().init();
        globalThis.\(global) = { seen: 0, call: function () { return o.value(); } };
        """)
        for _ in 0..<20 { _ = try PatchEngine.evaluate("\(global).call()") }
        let hook = uniqueScriptName()
        try apply("hook(\(cls), 'value', 'before', function () { \(global).seen++; });", name: hook)
        _ = try PatchEngine.evaluate("\(global).call(); \(global).call()")
        XCTAssertEqual(try PatchEngine.evaluate("\(global).seen") as? Double, 2)
        try PatchEngine.revert(hook)
        _ = try PatchEngine.evaluate("\(global).call()")
        XCTAssertEqual(try PatchEngine.evaluate("\(global).seen") as? Double, 2, "the reverted hook still ran")
    }

    func testTheSameSelectorOnAnotherClassUsesThatClassesTypes() throws {
        // One selector number, two classes whose -value return different types: the per-selector
        // class cache must not hand one class's signature to the other.
        let a = uniqueClassName("MSTIntValue"), b = uniqueClassName("MSTObjectValue")
        let result = try apply("""
        defineProtocol('\(a)Value', { value: { paramsType: '', returnType: 'int' } });
        defineClass('\(a) : NSObject <\(a)Value>', { value: function () { return 7.9; } });
        defineClass('\(b) : NSObject', { value: function () { return 'text'; } });
        var objects = [\(a).alloc().init(), \(b).alloc().init()], out = [];
        for (var i = 0; i < 6; i++) { var v = objects[i % 2].value(); out.push(typeof v === 'number' ? v : v.toJS()); }
        out.join(',');
        """)
        XCTAssertEqual(result as? String, "7,text,7,text,7,text")
    }

    func testReceiversStayRightWhenThreadsInterleave() throws {
        let cls = uniqueClassName("MSTThreads"), global = "__mst\(Self.nextNumber())"
        // Each loop nests sends in argument lists, and each thread's JS takes turns with the others.
        try apply("""
        defineClass('\(cls) : NSObject', ['ident'], {
          combine_with: function (a, b) { return self.ident() * 10000 + a * 100 + b; },
          // Sleeps in native code first, which lets the other threads' JS run right here.
          slowIdent: function () { require('NSThread').sleepForTimeInterval(0.0001); return self.ident(); }
        });
        function make(i) { var o = \(cls).alloc().init(); o.setIdent(i); return o; }
        globalThis.\(global) = { bad: 0, done: 0, loop: function (base, count) {
          var x = make(base), y = make(base + 1), z = make(base + 2);
          var expected = base * 10000 + (base + 1) * 100 + base + 2;
          for (var i = 0; i < count; i++) { if (x.combine_with(y.slowIdent(), z.ident()) !== expected) this.bad++; }
          this.done++;
        } };
        for (var t = 0; t < 3; t++) (function (t) {
          dispatch_async_global_queue(function () { \(global).loop(t * 3 + 1, 400); });
        })(t);
        \(global).loop(20, 400);
        """)
        XCTAssertTrue(waitUntil(timeout: 60) { (try? PatchEngine.evaluate("\(global).done") as? Double) == 4 })
        XCTAssertEqual(try PatchEngine.evaluate("\(global).bad") as? Double, 0)
    }

    func testJSOnOtherThreadsWaitsWhileOneThreadIsInNativeCodeCalledFromJS() throws {
        // JavaScriptCore drops its API lock around a native function called from JS but takes the
        // drops back last-in first-out: a thread that went into native code earlier (the
        // dispatched loop, between ticks) resumes JS only after this one has resumed.
        let global = "__mst\(Self.nextNumber())"
        let result = try apply("""
        globalThis.\(global) = { ticks: 0, started: false };
        dispatch_async_global_queue(function () {
          \(global).started = true;
          for (var i = 0; i < 200; i++) { \(global).ticks++; require('NSThread').sleepForTimeInterval(0.001); }
        });
        var NSThread = require('NSThread'), waited = 0;
        while (!\(global).started && waited++ < 50) NSThread.sleepForTimeInterval(0.001);
        var before = \(global).ticks;
        NSThread.sleepForTimeInterval(0.05);
        \(global).ticks - before;
        """)
        XCTAssertEqual(result as? Double, 0, "JS ran on another thread while this one was in native code")
        XCTAssertTrue(waitUntil(timeout: 10) { (try? PatchEngine.evaluate("\(global).ticks") as? Double) == 200 })
    }

    /// Call sites load their name's record from the global `__pe` (Preprocessor). A script can't
    /// replace it, and one that declares its own `__pe` still calls the methods it names.
    func testCallSitesSurviveAScriptsOwnPE() throws {
        let result = try apply("""
        var __pe = null;
        __pe = {};
        var b = require('PFDirectBase').alloc().init();
        function shadowed() { var __pe = {}; return b.twice_(4); }
        [b.twice_(1), shadowed(), __pe === null || Object.keys(__pe).length === 0, b.__c('twice_')(5)].join()
        """)
        XCTAssertEqual(result as? String, "2,8,false,10")
    }

    func testSendsFromSeveralThreadsAtOnceRegisterAndCacheSelectorsSafely() throws {
        // Native callbacks from JS run on several threads at once (JavaScriptCore drops its lock
        // around them): selector numbers handed out and call sites cached by one thread's sends
        // while another thread's sends read them. Each call sends messages no one sent before.
        let cls = uniqueClassName("MSTSelectors"), tag = "t\(Self.nextNumber())"
        try apply("""
        var counter = 0;
        defineClass('\(cls) : NSObject', {
          churn: function () {
            var base = counter++, sum = 0, b = require('PFDirectBase').alloc().init();
            for (var i = 0; i < 40; i++) {
              try { b.__c('\(tag)Missing' + base + '_' + i)(1); } catch (e) { sum += 1; }
              sum += b.twice_(i) - 2 * i;                  // 0 unless a send reached the wrong method
              require('NSThread').sleepForTimeInterval(0);  // other threads' JS runs meanwhile
            }
            return sum;
          }
        });
        """)
        let group = DispatchGroup()
        let tally = Tally()
        for _ in 0..<4 {
            DispatchQueue.global().async(group: group) {
                for _ in 0..<25 {
                    let result = take(pf_new_send(cls, "churn")) ?? "nil"
                    tally.add(result == "40" ? "right" : "wrong", result)
                }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 60), .success)
        XCTAssertEqual(tally["right"], 100, "\(tally.sample)")
    }

    func testSendErrorsNameTheMethodAndTheScriptGoesOn() throws {
        let result = try apply("""
        var a = require('NSMutableArray').alloc().init(), messages = [];
        try { a.noSuchMethodHere(); } catch (e) { messages.push(String(e.message || e)); }
        try { a.addObject(function () {}); } catch (e) { messages.push(String(e.message || e)); }
        a.addObject('kept');
        messages.push(a.count());
        messages.join(' | ');
        """) as? String ?? ""
        // GNUstep answers with its concrete class (GSMutableArray), Apple's Foundation with its own.
        XCTAssertTrue(result.contains("unrecognized selector -["), result)
        XCTAssertTrue(result.contains("Array noSuchMethodHere]"), result)
        XCTAssertTrue(result.contains("Array addObject:] got a JS function"), result)
        XCTAssertTrue(result.hasSuffix("| 1"), result)
    }

    func testUnsignedLongResultsFromAnyNumberNeverTrap() throws {
        // NaN and numbers below -2^63 returned for an unsigned long used to trap in the conversion.
        let cls = uniqueClassName("MSTUnsigned")
        let result = try apply("""
        defineProtocol('\(cls)Value', { valueOf_: { paramsType: 'id', returnType: 'unsigned long' } });
        defineClass('\(cls) : NSObject <\(cls)Value>', { valueOf_: function (x) { return x; } });
        var o = \(cls).alloc().init(), out = [];
        [NaN, -1e30, -Infinity, Infinity, 1e30, 5].forEach(function (x) { out.push(o.valueOf_(x)); });
        out.join(',');
        """) as? String ?? ""
        let values = result.split(separator: ",").map(String.init)
        XCTAssertEqual(values.count, 6, result)
        XCTAssertEqual(values.first, "0", result)
        XCTAssertEqual(values.last, "5", result)
    }

    func testJSValueEncodingIsVerifiedAgainstJavaScriptCore() {
        // The bit reading is only used when JavaScriptCore's own values have the layout it
        // expects; on this platform they must, or the fast path silently fell back.
        let ctx = JSGlobalContextCreate(nil)!
        defer { JSGlobalContextRelease(ctx) }
        let bits = JSValueBits(verifyingIn: ctx)
        XCTAssertTrue(bits.isUsable)
        XCTAssertEqual(bits.int32(JSValueMakeNumber(ctx, 12345)), 12345)
        XCTAssertEqual(bits.int32(JSValueMakeNumber(ctx, -1)), -1)
        XCTAssertNil(bits.int32(JSValueMakeNumber(ctx, 0.5)))
        XCTAssertNil(bits.int32(JSValueMakeUndefined(ctx)))
        XCTAssertNil(bits.cell(JSValueMakeBoolean(ctx, false)))
        XCTAssertNil(bits.cell(JSValueMakeNumber(ctx, 3)))
        let object = JSObjectMake(ctx, nil, nil)!
        XCTAssertEqual(bits.cell(object), object)
    }
}
