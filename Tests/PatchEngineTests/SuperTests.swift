import Foundation
import XCTest
import PatchEngine
import PatchFixtures

/// self.super() resolved from the class that defines the JS method, never from the
/// receiver's class: chains of JS over Objective-C, Objective-C over JS, mixes with
/// ORIG, several patched levels (no loops), late patches, many threads.
final class SuperTests: PatchTestCase {
    func testJSClassesOverObjCClass() throws {
        let a1 = uniqueClassName("PFJSSuperA1_")
        let a2 = uniqueClassName("PFJSSuperA2_")
        let result = try apply(jsToString + """
        defineClass('\(a1) : PFSuperA', { method: function() { return S(self.super().method()) + '1' } });
        defineClass('\(a2) : \(a1)', { method: function() { return S(self.super().method()) + '2' } });
        S(require('\(a2)').alloc().init().method())
        """)
        XCTAssertEqual(render(result), "\"A12\"")
        XCTAssertEqual(take(pf_new_send(a2, "method")), "\"A12\"")
        XCTAssertEqual(take(pf_new_send(a1, "method")), "\"A1\"")
    }

    func testJSClassesOverObjCSubclassCallingSuper() throws {
        let b2 = uniqueClassName("PFJSSuperB2_")
        let b3 = uniqueClassName("PFJSSuperB3_")
        try apply(jsToString + """
        defineClass('\(b2) : PFSuperB1', { method: function() { return S(self.super().method()) + '2' } });
        defineClass('\(b3) : \(b2)', { method: function() { return S(self.super().method()) + '3' } })
        """)
        XCTAssertEqual(take(pf_new_send(b2, "method")), "\"B12\"")
        XCTAssertEqual(take(pf_new_send(b3, "method")), "\"B123\"")
    }

    func testPatchedObjCClassMixingOriginalAndSuper() throws {
        // PFSuperC1's original is [super method] + "1"; its patch appends super again.
        // PFSuperC2 (native) calls [super method] + "2" and must see the patch: "C1C2".
        try apply("""
        defineClass('PFSuperC1', {
          method: function() { return self.ORIGmethod().toJS() + self.super().method().toJS() }
        })
        """)
        XCTAssertEqual(take(pf_new_send("PFSuperC1", "method")), "\"C1C\"")
        XCTAssertEqual(take(pf_new_send("PFSuperC2", "method")), "\"C1C2\"")
        XCTAssertEqual(take(pf_new_send("PFSuperC", "method")), "\"C\"")
    }

    func testSuperIsResolvedFromTheDefiningClass() throws {
        // Only PFChainMid is patched; a PFChainLeaf receiver reaches it through its own
        // native [super method]. super inside the patch means PFChainBase.
        try apply(jsToString + "defineClass('PFChainMid', { method: function() { return S(self.super().method()) + '>js' } })")
        XCTAssertEqual(take(pf_new_send("PFChainLeaf", "method")), "\"base>js>leaf\"")
        XCTAssertEqual(take(pf_new_send("PFChainMid", "method")), "\"base>js\"")
    }

    func testParentAndChildBothPatchedDoNotLoop() throws {
        try apply(jsToString + """
        defineClass('PFLoopMid', { method: function() { return S(self.super().method()) + '>jsmid' } });
        defineClass('PFLoopLeaf', { method: function() { return S(self.super().method()) + '>jsleaf' } })
        """)
        XCTAssertEqual(take(pf_new_send("PFLoopLeaf", "method")), "\"base>jsmid>jsleaf\"")
        XCTAssertEqual(take(pf_new_send("PFLoopMid", "method")), "\"base>jsmid\"")
        XCTAssertEqual(take(pf_new_send("PFLoopBase", "method")), "\"base\"")
    }

    func testThreePatchedLevels() throws {
        try apply(jsToString + """
        defineClass('PFDeepBase', { method: function() { return 'js' + S(self.ORIGmethod()) } });
        defineClass('PFDeepMid', { method: function() { return S(self.super().method()) + '>m' } });
        defineClass('PFDeepLeaf', { method: function() { return S(self.super().method()) + '>l' } })
        """)
        XCTAssertEqual(take(pf_new_send("PFDeepLeaf", "method")), "\"jsbase>m>l\"")
        XCTAssertEqual(take(pf_new_send("PFDeepMid", "method")), "\"jsbase>m\"")
        XCTAssertEqual(take(pf_new_send("PFDeepBase", "method")), "\"jsbase\"")
    }

    func testChildPatchedFirstParentPatchedLater() throws {
        try apply(jsToString + "defineClass('PFLateLeaf', { method: function() { return S(self.super().method()) + '>jsleaf' } })")
        XCTAssertEqual(take(pf_new_send("PFLateLeaf", "method")), "\"base>mid>jsleaf\"")
        try apply(jsToString + "defineClass('PFLateMid', { method: function() { return S(self.super().method()) + '>jsmid' } })")
        XCTAssertEqual(take(pf_new_send("PFLateLeaf", "method")), "\"base>jsmid>jsleaf\"")
        XCTAssertEqual(take(pf_new_send("PFLateMid", "method")), "\"base>jsmid\"")
    }

    func testSuperPassesArguments() throws {
        let name = uniqueClassName("PFJSGreeterSub")
        try apply(jsToString + """
        defineClass('\(name) : PFGreeter', {
          greet: function(who) { return S(self.super().greet(who)) + '?' }
        })
        """)
        let object = pf_new(name)
        defer { pf_release(object) }
        XCTAssertEqual(take(pf_send_str(object, "greet:", "x")), "\"Hello, x?\"")
    }

    func testSuperChainsFromManyThreads() throws {
        try apply(jsToString + """
        defineClass('PFThreadMid', { method: function() { return S(self.super().method()) + '>jsmid' } });
        defineClass('PFThreadLeaf', { method: function() { return S(self.super().method()) + '>jsleaf' } })
        """)
        let lock = NSLock()
        nonisolated(unsafe) var wrong: [String] = []
        let group = DispatchGroup()
        for _ in 0..<8 {
            DispatchQueue.global().async(group: group) {
                for index in 0..<200 {
                    let className = index % 2 == 0 ? "PFThreadLeaf" : "PFThreadMid"
                    let expected = index % 2 == 0 ? "\"base>jsmid>jsleaf\"" : "\"base>jsmid\""
                    let got = take(pf_new_send(className, "method")) ?? "nil"
                    if got != expected {
                        lock.lock(); wrong.append("\(className): \(got)"); lock.unlock()
                    }
                }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 120), .success, "calls did not finish (deadlock?)")
        lock.lock(); defer { lock.unlock() }
        XCTAssertEqual(wrong.count, 0, "first wrong results: \(wrong.prefix(5))")
    }
}
