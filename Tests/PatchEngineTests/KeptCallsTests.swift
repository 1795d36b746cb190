import Foundation
import XCTest
@testable import PatchEngine
import CPatchEngine
import CJavaScriptCore
import PatchFixtures

/// `o.name()` from a script reuses the function `__c` made for the same name and receiver
/// (runtime.js, `nativeCall`; KeptCalls.swift): every call still reaches its own receiver, and a
/// receiver is not kept alive by a name past the entry that used it — however that entry was made.
final class KeptCallsTests: TimeLimitTestCase {
    /// One name sent to two objects in turn, in a loop and nested in its own arguments: each call
    /// answers for its own receiver.
    func testEverySendReachesItsOwnReceiver() throws {
        let result = try apply("""
        (function () {
          var a = require('PFDisposable').new(), b = require('PFDisposable').new();
          var ha = a.hash(), hb = b.hash(), wrong = 0;
          for (var i = 0; i < 2000; i++) {
            if (a.hash() !== ha) wrong++;
            if (b.hash() !== hb) wrong++;
          }
          var turns = [a, b, b, a, b].map(function (o) { return o.hash(); }).join(',');
          // The outer call's function is asked for before its argument sends the same name to b.
          var nested = a.isEqual(b.isEqual(b) ? a : b) + '/' + b.isEqual(a.isEqual(b) ? b : a);
          return [ha !== hb, wrong, turns === [ha, hb, hb, ha, hb].join(','), nested].join(' ');
        })()
        """)
        XCTAssertEqual(result as? String, "true 0 true 1/0")   // BOOL results arrive as numbers (JSPatch)
    }

    /// A script's top level forgets what its names kept: the object it sent messages to is
    /// deallocated by the next collection, without `collectGarbage()`'s own forgetting.
    func testAReceiverIsNotKeptPastTheEvaluationThatUsedIt() throws {
        try requireSynchronousCollection()
        pf_probe_reset()
        try apply("(function () { var d = require('PFDisposable').new(); d.hash(); d.hash(); d.description(); })(); 1")
        collectWithoutForgetting()
        XCTAssertEqual(disposableDeallocations(), 1, "the disposable object was kept after the evaluation ended")
    }

    /// A JS block called by native code is no runtime.js entry: the engine has the names forget
    /// when the block's entry ends.
    func testAReceiverIsNotKeptPastABlockCallThatUsedIt() throws {
        try requireSynchronousCollection()
        try apply("""
        var h = require('PFBlockHost').alloc().init();
        h.keepIntBlock(block('int, int', function (x) {
          var d = require('PFDisposable').new();
          return d.isEqual(d) ? x + 1 : -1;
        }));
        """)
        addTeardownBlock { pf_blocks_forget_kept() }
        pf_probe_reset()
        var missing: Int32 = 1
        XCTAssertEqual(pf_blocks_call_kept(41, &missing), 42)
        XCTAssertEqual(missing, 0)
        XCTAssertEqual(Engine.shared.keptCalls.pointee, 0, "the block's entry ended with every kept call forgotten")
        collectWithoutForgetting()
        XCTAssertEqual(disposableDeallocations(), 1, "the disposable object was kept after the block returned")
    }

    /// An entry ended by the time limit (a thrown end by default; JavaScriptCore's termination,
    /// which skips `finally` blocks, with the watchdog's end): its kept calls are forgotten as it
    /// ends, and the receiver goes at the next collection.
    func testAReceiverOfAnEndedEntryIsForgottenAsTheEntryEnds() throws {
        try requireSynchronousCollection()
        pf_probe_reset()
        XCTAssertThrowsError(try apply("(function () { var d = require('PFDisposable').new(); d.hash(); while (true) {} })()")) { error in
            XCTAssertEqual((error as? PatchError)?.kind, .timeout, "\(error)")
        }
        XCTAssertEqual(Engine.shared.keptCalls.pointee, 0, "the ended entry's kept calls were forgotten as it ended")
        collectWithoutForgetting()
        XCTAssertEqual(disposableDeallocations(), 1, "the ended entry's receiver outlived the next collection")
    }

    /// JS that native code runs outside the engine's entries (a getter a C API call ran) has no
    /// entry end: what it kept is forgotten by `collectGarbage()`, the call for memory warnings.
    func testCollectGarbageForgetsWhatJSOutsideEveryEntryKept() throws {
        try requireSynchronousCollection()
        try apply("this.keptCallsOutsideEntries = function () { var d = require('PFDisposable').new(); d.hash(); return 1; }")
        let engine = Engine.shared
        let function = try XCTUnwrap(JSValueToObject(engine.ctx, JSC.get(engine.ctx, JSContextGetGlobalObject(engine.ctx), "keptCallsOutsideEntries"), nil))
        pf_probe_reset()
        var exception: JSValueRef?
        let result = engine.apiLock.withLock(engine.ctx) { JSObjectCallAsFunction(engine.ctx, function, nil, 0, nil, &exception) }
        XCTAssertNil(exception)
        XCTAssertEqual(result.map { JSValueToNumber(engine.ctx, $0, nil) }, 1)
        XCTAssertEqual(engine.keptCalls.pointee, 1, "kept, with no entry end to forget it")
        collectWithoutForgetting()
        XCTAssertEqual(disposableDeallocations(), 0, "still kept: the name holds its receiver")
        PatchEngine.collectGarbage(droppingCompiledCode: false)
        XCTAssertEqual(disposableDeallocations(), 1, "collectGarbage() forgot the kept call and collected its receiver")
        XCTAssertEqual(engine.keptCalls.pointee, 0)
    }

    // MARK: Helpers

    private func requireSynchronousCollection() throws {
        if runsWithoutPrivateSymbols {
            throw XCTSkip("asserts deallocations after a collection, which is synchronous only with JSSynchronousGarbageCollectForDebugging (a private symbol)")
        }
    }

    /// A full collection of every VM, as `collectGarbage()` makes, but leaving runtime.js's kept
    /// calls as they are.
    private func collectWithoutForgetting() {
        for vm in Engine.shared.allVMs { vm.collectGarbageNow() }
        Engine.shared.drainReleases()
    }
}
