import Foundation
import XCTest
import PatchFixtures
@testable import PatchEngine

/// Boxes (`ValueBridge.box`, `BoxBits`, `BoxCache`): one live box per object, recognised however a
/// script treats it, never confused with an object a script builds, and gone with the object's
/// reference once JS drops it.
final class BoxTests: PatchTestCase {
    private func eval(_ script: String) throws -> Any? { try PatchEngine.evaluate(script, name: uniqueScriptName()) }

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

    func testADroppedBoxReleasesItsObjectAndANewCrossingMakesAFreshBox() throws {
        try skipWithoutBoxCache()
        let before = pf_direct_live_tracked()
        try eval("""
        var F = require('PFDirectFixture');
        for (var i = 0; i < 500; i++) F.autoreleased();     // boxed, then dropped
        """)
        XCTAssertGreaterThan(pf_direct_live_tracked(), before, "boxes hold their objects until collected")
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
        PatchEngine.collectGarbage()
        let again = try eval("var o2 = require('PFRegistry').objectForKey_('\(key)'); [o2.tag === undefined, o2.label().toJS()].join(',')")
        XCTAssertEqual(again as? String, "true,base")
    }
}

extension BoxTests {
    /// One box per object is the box cache (JSWeakObjectMap*, private symbols) and a dropped box's
    /// release is seen through a collection now (JSSynchronousGarbageCollectForDebugging): without
    /// them each crossing makes a new box and collection is a hint (docs/private-symbols.md).
    func skipWithoutBoxCache() throws {
        if runsWithoutPrivateSymbols { throw XCTSkip("asserts the box cache, which needs JSWeakObjectMap* (private symbols)") }
    }
}
