import Foundation
import XCTest
import PatchFixtures
import PatchRuntime
@testable import PatchEngine

/// Autorelease pools around calls from JS (`PEPools.h`): what a call autoreleases is released
/// within a batch of calls, never later than the JS's return to native code, and native code
/// between two entries into JS keeps its own pools.
final class BridgePoolTests: PatchTestCase {
    func testObjectsAutoreleasedByCallsFromJSLiveAtMostABatchOfCalls() throws {
        let before = pf_direct_live_tracked()
        let result = try PatchEngine.evaluate("""
        var F = require('PFDirectFixture'), most = 0;
        for (var i = 0; i < 3000; i++) most = Math.max(most, F.makeAutoreleased());
        most;
        """, name: uniqueScriptName()) as? Double
        let most = Int(result ?? -1) - Int(before)
        XCTAssertGreaterThan(most, 0)
        XCTAssertLessThanOrEqual(most, Int(PE_POOL_BATCH_CALLS) + 2, "autoreleased objects outlived their batch")
        XCTAssertEqual(pf_direct_live_tracked(), before, "released once the evaluation returned")
        XCTAssertEqual(PEPoolDepthOnThisThread(), 0)
    }

    func testAPatchedMethodCalledNativelyReleasesWhatItsJSAutoreleasedBeforeReturning() throws {
        let cls = uniqueClassName("BPTPatched")
        try apply("""
        defineClass('\(cls) : NSObject', {
          churn: function () { var F = require('PFDirectFixture'); for (var i = 0; i < 600; i++) F.makeAutoreleased(); return 1; }
        });
        """)
        let before = pf_direct_live_tracked()
        XCTAssertEqual(take(pf_new_send(cls, "churn")), "1")
        XCTAssertEqual(pf_direct_live_tracked(), before)
        XCTAssertEqual(PEPoolDepthOnThisThread(), 0)
    }

    func testNativeCodeBetweenTwoEntriesIntoJSKeepsItsOwnPool() throws {
        // JS → native (+callInOwnPool:selector: pushes a pool) → patched method (JS, whose sends
        // open a batch above that pool) → native pops its pool → JS goes on sending: neither
        // side may drain the other's pool, over many batches.
        let cls = uniqueClassName("BPTNested")
        try apply("""
        defineClass('\(cls) : NSObject', {
          inner: function () { var F = require('PFDirectFixture'); for (var i = 0; i < 40; i++) F.makeAutoreleased(); return require('NSString').stringWithString_('ok'); }
        });
        """)
        let before = pf_direct_live_tracked()
        let result = try PatchEngine.evaluate("""
        var F = require('PFDirectFixture'), o = require('\(cls)').alloc().init(), out = 0;
        for (var i = 0; i < 300; i++) {
          F.makeAutoreleased();
          if (F.callInOwnPool_selector_(o, 'inner').toJS() === 'ok') out++;
          F.makeAutoreleased();
        }
        out;
        """, name: uniqueScriptName())
        XCTAssertEqual(result as? Double, 300)
        XCTAssertEqual(pf_direct_live_tracked(), before)
        XCTAssertEqual(PEPoolDepthOnThisThread(), 0)
    }

    func testABatchIsNotDrainedWhileACallStillConvertsItsArguments() throws {
        // A getter run while a call's arguments are converted (a JS object becoming a dictionary)
        // makes calls of its own: they must not drain what the outer call made so far.
        let result = try PatchEngine.evaluate("""
        var F = require('PFDirectFixture');
        var arg = { get a() { for (var i = 0; i < 600; i++) F.makeAutoreleased(); return 'x'; }, b: 'y' };
        var d = require('NSDictionary').dictionaryWithDictionary_(arg);
        [d.objectForKey_('a').toJS(), d.objectForKey_('b').toJS(), d.count()].join(',');
        """, name: uniqueScriptName())
        XCTAssertEqual(result as? String, "x,y,2")
    }
}
