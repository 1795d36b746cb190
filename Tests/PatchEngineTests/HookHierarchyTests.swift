import Foundation
import XCTest
import PatchRuntime
import PatchFixtures

/// What Aspects can't do (one hook per selector per hierarchy, #11 #48 #116 #180; removal breaking
/// other hooks, #155 and PR #100; class methods, #32 #157; the dynamic subclass): hooks at every
/// level of one hierarchy and on several instances, in any order, each running once per call.
final class HookHierarchyTests: ToolkitTestCase {

    /// The log of each call with before hooks at the given levels of `f` (Deep's, Leaf's, Mid's
    /// and Base's -step run for a Deep instance; Leaf implements nothing).
    private func expectedSteps(_ f: ToolkitFamily, hooked: Set<String>) -> [String: String] {
        func h(_ level: String) -> [String] { hooked.contains(level) ? ["h:\(level)"] : [] }
        let base = h("Base") + ["Base"]
        let mid = h("Mid") + ["Mid"] + base
        let leaf = h("Leaf") + mid
        let deep = h("Deep") + ["Deep"] + leaf
        return [f.deep: deep.joined(separator: " "), f.leaf: leaf.joined(separator: " "),
                f.mid: mid.joined(separator: " "), f.base: base.joined(separator: " "),
                f.sib: base.joined(separator: " ")]
    }

    private static let stepResults = ["Deep": "\"base>mid>deep\"", "Leaf": "\"base>mid\"", "Mid": "\"base>mid\"",
                                      "Base": "\"base\"", "Sib": "\"base\""]

    private func checkSteps(_ f: ToolkitFamily, _ objects: [String: UnsafeMutableRawPointer?], hooked: Set<String>,
                            _ context: String, file: StaticString = #filePath, line: UInt = #line) {
        let expected = expectedSteps(f, hooked: hooked)
        for (level, result) in Self.stepResults {
            let className = f.prefix + level
            XCTAssertEqual(step(objects[className] ?? nil), result, "\(context): \(className)", file: file, line: line)
            XCTAssertEqual(log(), expected[className], "\(context): \(className)", file: file, line: line)
        }
    }

    /// Before hooks on Base, Mid, Leaf (which only inherits -step) and Deep, added in all 24
    /// orders and removed in another order: after every change each remaining hook runs exactly
    /// once per call, every implementation once, and the results are unchanged.
    func testHooksOnEveryLevelInEveryOrderRunOnceEach() throws {
        for route in Self.routes {
            let f = try family(route)
            var objects: [String: UnsafeMutableRawPointer?] = [:]
            for level in ["Base", "Mid", "Leaf", "Deep", "Sib"] { objects[f.prefix + level] = make(f.prefix + level) }
            let levels = ["Base", "Mid", "Leaf", "Deep"]
            for (n, order) in permutations(levels).enumerated() {
                var tokens: [String: Int32] = [:]
                var hooked = Set<String>()
                for level in order {
                    tokens[level] = hook(f.prefix + level, "step", HookOption.before, "h:\(level)")
                    hooked.insert(level)
                    checkSteps(f, objects, hooked: hooked, "\(route), added \(order.prefix(hooked.count))")
                }
                let removal = permutations(levels)[(n * 7 + 5) % 24]
                for level in removal {
                    XCTAssertEqual(pf_tk_remove(tokens[level]!), 1)
                    hooked.remove(level)
                    checkSteps(f, objects, hooked: hooked, "\(route), added \(order), removed \(level) of \(removal)")
                }
            }
        }
    }

    /// Instead at the middle level wrapping the levels below it, After at the top, Before at
    /// a level that implements nothing.
    func testPositionsMixedAcrossLevels() throws {
        for route in Self.routes {
            let f = try family(route)
            let deep = make(f.deep)
            hook(f.base, "step", HookOption.after, "after:Base")
            hook(f.mid, "step", HookOption.instead, "instead:Mid", PFHookInvoke)
            hook(f.leaf, "step", HookOption.before, "before:Leaf")
            XCTAssertEqual(step(deep), "\"base>mid>deep\"", "\(route)")
            XCTAssertEqual(log(), "Deep before:Leaf instead:Mid Mid Base after:Base", "\(route)")
        }
    }

    /// Stinger's known problem and GCC's stale dispatch tables: a hook on a parent added after
    /// instances of its subclasses were used (so their method caches are built) still runs for
    /// them, and stops when removed.
    func testHookOnParentAfterSubclassesWereUsed() throws {
        for route in Self.routes {
            let f = try family(route)
            let leaf = make(f.leaf), sib = make(f.sib), deep = make(f.deep)
            pf_tk_ping(leaf); pf_tk_ping(sib); pf_tk_ping(deep)
            XCTAssertEqual(pf_tk_add(leaf, 1, 1), 2)
            _ = log()
            let ping = hook(f.base, "ping", HookOption.before, "h")
            let add = hook(f.base, "add:to:", HookOption.instead, "x10", PFHookAddTimesTen)
            pf_tk_ping(leaf); pf_tk_ping(sib); pf_tk_ping(deep)
            XCTAssertEqual(log(), "h ping h ping h ping", "\(route)")
            XCTAssertEqual(pf_tk_add(leaf, 1, 1), 20, "\(route)")
            XCTAssertEqual(pf_tk_add(sib, 2, 1), 30, "\(route)")
            XCTAssertEqual(pf_tk_remove(ping), 1)
            XCTAssertEqual(pf_tk_remove(add), 1)
            pf_tk_ping(leaf); pf_tk_ping(sib)
            XCTAssertEqual(pf_tk_add(deep, 1, 1), 2, "\(route)")
            XCTAssertEqual(log(), "add x10=20 add x10=30 ping ping add", "\(route)")
        }
    }

    /// A hook on a class that only inherits the method (Sib) affects that class only: the parent
    /// and the sibling (Mid's subtree) are untouched.
    func testHookOnInheritedMethodLeavesParentAndSiblingsAlone() throws {
        for route in Self.routes {
            let f = try family(route)
            let base = make(f.base), sib = make(f.sib), leaf = make(f.leaf)
            let token = hook(f.sib, "ping", HookOption.before, "sib")
            pf_tk_ping(base); pf_tk_ping(leaf); pf_tk_ping(sib)
            XCTAssertEqual(log(), "ping ping sib ping", "\(route)")
            hook(f.base, "ping", HookOption.after, "base")
            pf_tk_ping(base); pf_tk_ping(leaf); pf_tk_ping(sib)
            XCTAssertEqual(log(), "ping base ping base sib ping base", "\(route)")
            XCTAssertEqual(pf_tk_remove(token), 1)
            pf_tk_ping(sib)
            XCTAssertEqual(log(), "ping base", "\(route)")
        }
    }

    /// PR #100 and #155: several instances and several levels; removing one instance's hook, or a
    /// subclass's, or the superclass's, leaves every other hook working.
    func testInstancesAndLevelsRemovedOneByOne() throws {
        for route in Self.routes {
            let f = try family(route)
            let a = make(f.leaf), b = make(f.leaf), c = make(f.base)
            let tokenA = hook(a, "ping", HookOption.before, "a")
            let tokenB = hook(b, "ping", HookOption.before, "b")
            let tokenC = hook(c, "ping", HookOption.after, "c")
            let tokenMid = hook(f.mid, "ping", HookOption.before, "mid")
            let tokenBase = hook(f.base, "ping", HookOption.before, "base")
            func calls() -> String { pf_tk_ping(a); pf_tk_ping(b); pf_tk_ping(c); return log() }
            XCTAssertEqual(calls(), "a mid base ping b mid base ping base ping c", "\(route)")
            XCTAssertEqual(pf_tk_remove(tokenA), 1)
            XCTAssertEqual(calls(), "mid base ping b mid base ping base ping c", "\(route): a's hook gone, b's stays")
            XCTAssertEqual(pf_tk_remove(tokenMid), 1)
            XCTAssertEqual(calls(), "base ping b base ping base ping c", "\(route): subclass hook removed first")
            XCTAssertEqual(pf_tk_remove(tokenBase), 1)
            XCTAssertEqual(calls(), "ping b ping ping c", "\(route)")
            XCTAssertEqual(pf_tk_remove(tokenC), 1)
            XCTAssertEqual(pf_tk_remove(tokenB), 1)
            XCTAssertEqual(calls(), "ping ping ping", "\(route)")
            let again = hook(f.base, "ping", HookOption.before, "base2")
            let againMid = hook(f.mid, "ping", HookOption.after, "mid2")
            XCTAssertEqual(pf_tk_remove(again), 1, "superclass first this time")
            XCTAssertEqual(calls(), "ping mid2 ping mid2 ping", "\(route)")
            XCTAssertEqual(pf_tk_remove(againMid), 1)
        }
    }

    /// Instance hooks need no dynamic subclass: -class and the isa stay the object's class.
    func testInstanceHookKeepsTheClass() throws {
        for route in Self.routes {
            let f = try family(route)
            let object = make(f.mid)
            let before = take(pf_tk_class_report(object))
            XCTAssertEqual(before, "class=\(f.mid) isa=\(f.mid)")
            let token = hook(object, "step", HookOption.before, "h")
            XCTAssertEqual(take(pf_tk_class_report(object)), before, "\(route)")
            XCTAssertEqual(pf_is_kind_of(object, f.base), 1)
            XCTAssertEqual(pf_tk_remove(token), 1)
            XCTAssertEqual(take(pf_tk_class_report(object)), before, "\(route)")
        }
    }

    /// An object freed with instance hooks, and a new object allocated (at the same address when
    /// the allocator reuses it, which it normally does): the new object has none of the hooks.
    func testNewObjectAtAFreedObjectsAddressHasNoHooks() throws {
        for route in Self.routes {
            let f = try family(route)
            let old = pf_new(f.base)
            let oldAddress = old
            hook(old, "ping", HookOption.before, "old")
            hook(old, "step", HookOption.instead, "old-step", PFHookSetLabel)
            pf_tk_ping(old)
            XCTAssertEqual(log(), "old ping", "\(route)")
            release(old)
            XCTAssertEqual(log(), "dealloc", "\(route)")
            var reused: UnsafeMutableRawPointer?
            var keep: [UnsafeMutableRawPointer?] = []
            for _ in 0..<200 {
                let candidate = pf_new(f.base)
                if candidate == oldAddress { reused = candidate; break }
                keep.append(candidate)
            }
            for object in keep { release(object) }
            let fresh = reused ?? make(f.base)
            if reused != nil { addTeardownBlock { release(reused) } }
            _ = log()
            pf_tk_ping(fresh)
            XCTAssertEqual(step(fresh), "\"base\"", "\(route)")
            XCTAssertEqual(log(), "ping Base", "\(route) (address reused: \(reused != nil))")
        }
    }

    /// One live object with an instance hook: the -deallocs of a thousand other objects of its
    /// class (which now tracks its objects' deaths) don't look through the hooks for theirs, and
    /// the hooked object's own -dealloc still clears its hooks. (Before, one hooked object anywhere
    /// made every such -dealloc in the process walk every hooked method twice under the write lock:
    /// JSPatch's suite ran 5-20 times slower after the other suites left one hooked object alive.)
    func testDeallocsOfUnhookedObjectsDontLookForHooksWhileAnotherObjectIsHooked() throws {
        for route in Self.routes {
            let f = try family(route)
            let hooked = pf_new(f.base)
            hook(hooked, "ping", HookOption.before, "hooked")
            let scansBefore = PEHooksDeallocScanCount()
            for _ in 0..<1000 { release(pf_new(f.base)) }
            let scans = PEHooksDeallocScanCount() - scansBefore
            XCTAssertEqual(log(), String(repeating: "dealloc ", count: 1000).trimmingCharacters(in: .whitespaces),
                           "\(route): every -dealloc ran")
            // An address that shares the hooked object's bucket costs a look; a thousand don't.
            XCTAssertLessThan(scans, 50, "\(route): 1,000 -deallocs of unhooked objects looked for hooks \(scans) times")
            pf_tk_ping(hooked)
            XCTAssertEqual(log(), "hooked ping", "\(route)")
            release(hooked)
            XCTAssertEqual(log(), "dealloc", "\(route)")
            XCTAssertGreaterThan(PEHooksDeallocScanCount() - scansBefore, scans, "\(route): the hooked object's -dealloc looked")
            let fresh = make(f.base)
            pf_tk_ping(fresh)
            XCTAssertEqual(log(), "ping", "\(route): its hooks went with it")
        }
    }

    // MARK: - Class methods

    /// Aspects #32/#157: [object_getClass(cls) aspect_hookSelector:...] hooks the class method;
    /// so does the C API with the metaclass; parent and child class methods each run once.
    func testClassMethodHooksAtTwoLevels() throws {
        for route in Self.routes {
            let f = try family(route)
            for via: Int32 in [0, 1] {
                let mid = hookClassMethod(f.mid, "kind", HookOption.before, "cm:Mid", via: via)
                let base = hookClassMethod(f.base, "kind", HookOption.after, "cm:Base", via: via)
                XCTAssertEqual(take(pf_send_class(f.leaf, "kind")), "\"base>mid\"", "\(route) via \(via)")
                XCTAssertEqual(log(), "cm:Mid +Mid +Base cm:Base", "\(route) via \(via): Leaf inherits Mid's +kind")
                XCTAssertEqual(take(pf_send_class(f.sib, "kind")), "\"base\"")
                XCTAssertEqual(log(), "+Base cm:Base", "\(route) via \(via)")
                XCTAssertEqual(pf_tk_remove(mid), 1)
                XCTAssertEqual(take(pf_send_class(f.mid, "kind")), "\"base>mid\"")
                XCTAssertEqual(log(), "+Mid +Base cm:Base", "\(route) via \(via)")
                XCTAssertEqual(pf_tk_remove(base), 1)
                XCTAssertEqual(take(pf_send_class(f.mid, "kind")), "\"base>mid\"")
                XCTAssertEqual(log(), "+Mid +Base", "\(route) via \(via)")
            }
        }
    }

    /// A hook on the class object itself (an instance hook whose receiver is a class) fires for
    /// that class only, not for subclasses inheriting the class method.
    func testInstanceHookOnAClassObject() throws {
        for route in Self.routes {
            let f = try family(route)
            let token = hookClassMethod(f.mid, "kind", HookOption.before, "onlyMid", via: 2)
            XCTAssertEqual(take(pf_send_class(f.mid, "kind")), "\"base>mid\"")
            XCTAssertEqual(take(pf_send_class(f.leaf, "kind")), "\"base>mid\"")
            XCTAssertEqual(log(), "onlyMid +Mid +Base +Mid +Base", "\(route)")
            XCTAssertEqual(pf_tk_remove(token), 1)
            XCTAssertEqual(take(pf_send_class(f.mid, "kind")), "\"base>mid\"")
            XCTAssertEqual(log(), "+Mid +Base", "\(route)")
        }
    }

    func testClassMethodHookRefusesUnknownClassMethod() throws {
        let f = try family()
        var error: UnsafeMutablePointer<CChar>?
        XCTAssertEqual(pf_hook_class_method(f.base, "step", HookOption.before, "x", Int32(PFHookLog.rawValue), 0, &error), 0,
                       "-step is an instance method: the metaclass doesn't have it")
        XCTAssertEqual(take(error), "1: Unable to find selector +[\(f.base) step].")
        XCTAssertEqual(pf_hook_class_method(f.base, "step", HookOption.before, "x", Int32(PFHookLog.rawValue), 1, &error), 0)
        XCTAssertEqual(take(error), "1: Unable to find selector +[\(f.base) step].")
    }
}
