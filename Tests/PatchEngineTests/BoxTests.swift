import Foundation
import XCTest
import PatchFixtures
@testable import PatchEngine

/// Boxes (`ValueBridge.box`, `BoxBits`, `BoxCache`): one live box per object, recognised however a
/// script treats it, never confused with an object a script builds, and gone with the object's
/// reference once JS drops it.
final class BoxTests: PatchTestCase {
    @discardableResult private func eval(_ script: String) throws -> Any? { try PatchEngine.evaluate(script, name: uniqueScriptName()) }

    func testAnObjectCrossesIntoJSAsTheSameBoxWhileJSHoldsIt() throws {
        try skipWithoutBoxCache()
        let result = try eval("""
        var o = require('NSObject').alloc().init();
        var list = require('NSMutableArray').array();
        list.addObject_(o); list.addObject_(o);
        [list.objectAtIndex_(0) === o, list.objectAtIndex_(1) === list.objectAtIndex_(0), list.lastObject() === o].join(',');
        """)
        XCTAssertEqual(result as? String, "true,true,true")
    }

    func testABoxAScriptAddedPropertiesToStillWorks() throws {
        try skipWithoutBoxCache()
        let result = try eval("""
        var list = require('NSMutableArray').array();
        list.tag = 'mine'; list.other = 2;
        list.addObject_(1); list.addObject_(list);
        var outer = require('NSArray').arrayWithObject_(list);
        [list.count(), outer.objectAtIndex_(0) === list, outer.objectAtIndex_(0).tag, list.objectAtIndex_(1) === list].join(',');
        """)
        XCTAssertEqual(result as? String, "2,true,mine,true")
    }

    func testObjectsAScriptBuildsAreNotBoxes() throws {
        // Same prototype, even the same shape as a box, but no handle of the engine's: no object.
        let forged = applyExpectingError("""
        var real = require('NSObject').alloc().init();
        var fake = Object.create(Object.getPrototypeOf(real));
        Object.defineProperty(fake, '__handle', { value: {} });
        fake.description();
        """)
        XCTAssertEqual(forged?.message.contains("not an Objective-C object"), true, forged?.message ?? "no error")
        let asArgument = try eval("""
        var real = require('NSObject').alloc().init();
        var fake = Object.create(Object.getPrototypeOf(real));
        Object.defineProperty(fake, '__handle', { value: 12 });
        var d = require('NSMutableDictionary').dictionary(); d.setObject_forKey_(fake, 'k');
        d.objectForKey_('k').isKindOfClass_(require('NSDictionary')) ? 'dictionary' : 'other';   // a plain object's conversion
        """)
        XCTAssertEqual(asArgument as? String, "dictionary")
        let pointer = applyExpectingError("""
        var p = malloc(16);
        Object.setPrototypeOf(p, Object.getPrototypeOf(require('NSObject').alloc().init()));
        p.description();
        """)
        XCTAssertEqual(pointer?.message.contains("not an Objective-C object"), true, pointer?.message ?? "no error")
    }

    func testAHandleTakenFromABoxStandsForItsObject() throws {
        try skipWithoutBoxCache()
        let result = try eval("""
        var o = require('NSObject').alloc().init();
        var list = require('NSArray').arrayWithObject_(o.__handle);
        list.objectAtIndex_(0) === o;
        """)
        XCTAssertEqual(result as? Bool, true)
    }

    /// A handle is opened by its structure and record (`BoxBits.handlePrivateData`); one a script
    /// added a property to has left that structure, and one whose class is another of the engine's
    /// has a record naming that class: the first still stands for its object, the second is none.
    func testAHandleAScriptChangedStillStandsForItsObjectAndAnotherClassIsNoHandle() throws {
        try skipWithoutBoxCache()
        let result = try eval("""
        var o = require('NSObject').alloc().init(), handle = o.__handle;
        handle.tag = 'mine';
        var list = require('NSArray').arrayWithObject_(handle);
        [list.objectAtIndex_(0) === o, handle.tag, o.isEqual_(handle)].join(',');
        """)
        XCTAssertEqual(result as? String, "true,mine,1")
        let pointer = applyExpectingError("""
        var real = require('NSObject').alloc().init();
        var fake = Object.create(Object.getPrototypeOf(real));
        Object.defineProperty(fake, '__handle', { value: malloc(16) });
        fake.description();
        """)
        XCTAssertEqual(pointer?.message.contains("not an Objective-C object"), true, pointer?.message ?? "no error")
    }

    /// In a child process: one of the 500 boxes kept by a stale conservative root leaves the count
    /// one short, and this thread's scrub can't reach every root of a process that ran the other
    /// suites (DeallocStateTests' long list stopped that way).
    func testADroppedBoxReleasesItsObjectAndANewCrossingMakesAFreshBox() throws {
        try skipWithoutBoxCache()
        try runCheckedInChildProcess("testADroppedBoxReleasesItsObjectAndANewCrossingMakesAFreshBox") { try droppedBoxCase() }
    }

    private func droppedBoxCase() throws {
        let before = pf_direct_live_tracked()
        try eval("""
        var F = require('PFDirectFixture');
        for (var i = 0; i < 500; i++) F.autoreleased();     // boxed, then dropped
        """)
        XCTAssertGreaterThan(pf_direct_live_tracked(), before, "boxes hold their objects until collected")
        pf_scrub_stack()    // a stale stack slot would keep one box, and the count one short
        PatchEngine.collectGarbage()
        XCTAssertEqual(pf_direct_live_tracked(), before)

        // An object native code keeps alive: its box is collected, the next crossing works with a
        // new box (the cache never hands out a collected one).
        let key = "boxtests-\(Self.nextNumber())"
        let object = pf_new("PFDirectBase")
        defer { pf_release(object) }
        pf_registry_set(key, object)   // the registry keeps it for the process
        XCTAssertEqual(try eval("var o = require('PFRegistry').objectForKey_('\(key)'); o.tag = 'old'; o.label().toJS()") as? String, "base")
        try eval("o = null;")
        pf_scrub_stack()
        PatchEngine.collectGarbage()
        let again = try eval("var o2 = require('PFRegistry').objectForKey_('\(key)'); [o2.tag === undefined, o2.label().toJS()].join(',')")
        XCTAssertEqual(again as? String, "true,base")
    }

    /// More live objects than the cache's first table holds: each keeps its one box through the
    /// rebuilds, and is told from its neighbours.
    func testThousandsOfLiveObjectsEachKeepTheirOneBox() throws {
        try skipWithoutBoxCache()
        let result = try eval("""
        var NSObject = require('NSObject'), kept = [], list = require('NSMutableArray').array();
        for (var i = 0; i < 3000; i++) { var o = NSObject.alloc().init(); o.n = i; kept.push(o); list.addObject_(o); }
        var wrong = 0;
        for (var j = 0; j < 3000; j++) { var back = list.objectAtIndex_(j); if (back !== kept[j] || back.n !== j) wrong++; }
        'wrong: ' + wrong;
        """)
        XCTAssertEqual(result as? String, "wrong: 0")
    }

    /// Boxes that died leave the table at its next rebuild: 40,000 objects, kept alive by native
    /// code while their boxes are dropped (so no address comes back to reuse an entry), boxed in
    /// rounds with collections between, leave it sized for the few boxes alive at a time. Without
    /// the purge it would hold an entry (and a JavaScriptCore weak reference) per object ever boxed.
    func testTheCacheStaysSizedForTheLiveBoxes() throws {
        try skipWithoutBoxCache()
        try eval("var boxTestsKeeper = require('NSMutableArray').array();")
        defer { _ = try? eval("boxTestsKeeper.removeAllObjects(); boxTestsKeeper = null;") }
        for _ in 0..<20 {
            try eval("for (var i = 0; i < 2000; i++) boxTestsKeeper.addObject_(require('NSObject').alloc().init());")
            PatchEngine.collectGarbage()
        }
        XCTAssertEqual(try eval("'' + boxTestsKeeper.count()") as? String, "40000")
        let table = Engine.shared.boxCache.occupancy
        XCTAssertLessThanOrEqual(table.capacity, 16_384, "\(table)")
        XCTAssertLessThan(table.used, 8_000, "\(table)")
    }

    /// An address that a freed object's box was cached under, reused by a new object: the new
    /// object gets a box of its own (nothing the script set on the old one), every time.
    func testANewObjectAtAFreedObjectsAddressGetsItsOwnBox() throws {
        try skipWithoutBoxCache()
        var freed = 0, reused = 0
        for _ in 0..<20 {
            let key = "boxtests-\(Self.nextNumber())"
            let live = pf_direct_live_tracked()
            let first = pf_new("PFDirectTracked")!
            let address = UInt(bitPattern: first)
            pf_registry_set(key, first)
            pf_release(first)                      // the registry's reference and the box's
            try eval("(function () { var r = require('PFRegistry').objectForKey_('\(key)'); r.tag = 'old'; })();")
            pf_registry_remove(key)
            // The box dies and its finalizer frees the object (a stale stack slot that still
            // points at the box can keep it one more collection).
            for _ in 0..<5 where pf_direct_live_tracked() > live {
                PatchEngine.collectGarbage()
                try eval("(function () { var a = []; for (var i = 0; i < 64; i++) a.push(i); })();")
            }
            guard pf_direct_live_tracked() == live else { continue }
            freed += 1
            // The allocator may hand the address out again at once or a few allocations later.
            var candidates: [UnsafeMutableRawPointer] = []
            defer { candidates.forEach { pf_release($0) } }
            repeat { candidates.append(pf_new("PFDirectTracked")!) } while UInt(bitPattern: candidates.last!) != address && candidates.count < 500
            guard UInt(bitPattern: candidates.last!) == address else { continue }
            reused += 1
            pf_registry_set(key, candidates.last!)
            let tag = try eval("(function () { var r = require('PFRegistry').objectForKey_('\(key)'); return r.tag === undefined ? 'none' : r.tag; })();")
            pf_registry_remove(key)
            XCTAssertEqual(tag as? String, "none")
        }
        XCTAssertGreaterThan(reused, 0, "freed \(freed) of 20, none of whose addresses came back: nothing was tested")
    }
}

extension BoxTests {
    /// One box per object is the box cache (JSWeak* and JSLock, private symbols) and a dropped box's
    /// release is seen through a collection now (JSSynchronousGarbageCollectForDebugging): without
    /// them each crossing makes a new box and collection is a hint (docs/private-symbols.md).
    func skipWithoutBoxCache() throws {
        if runsWithoutPrivateSymbols { throw XCTSkip("asserts the box cache, which needs JSWeak* and JSLock (private symbols)") }
    }
}
