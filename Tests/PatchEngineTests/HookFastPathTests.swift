import Foundation
import XCTest
import PatchRuntime
import PatchFixtures

/// Before and After hooks over a class's own register-only method run from a precomputed plan on
/// the closure route (PEHookPlan.m), not through the generic pipeline. Whatever a hook does
/// through its info object must reach the native caller the same way on that path as on the
/// generic one and on the forwarding route, so every case runs on both routes.
final class HookFastPathTests: ToolkitTestCase {

    /// The fast path is taken: on the closure route a call with only Before and After hooks runs
    /// from the plan, and one with an Instead hook does not; the forwarding route never has a plan.
    func testBeforeAndAfterHooksRunFromThePlanOnTheClosureRoute() throws {
        for route in Self.routes {
            let f = try family(route)
            let object = make(f.base)
            hook(f.base, "add:to:", HookOption.before, "before")
            hook(f.base, "add:to:", HookOption.after, "after")
            var start = PEDispatchPlanCallCountOnThisThread()
            XCTAssertEqual(pf_tk_add(object, 3, 4), 7, "\(route)")
            XCTAssertEqual(pf_tk_add(object, 5, 6), 11, "\(route)")
            XCTAssertEqual(log(), "before add after before add after", "\(route)")
            XCTAssertEqual(PEDispatchPlanCallCountOnThisThread() - start, route == PERouteClosure ? 2 : 0,
                           "\(route): calls that ran from the plan")

            let instead = hook(f.base, "add:to:", HookOption.instead, "instead", PFHookCountInvoke)
            start = PEDispatchPlanCallCountOnThisThread()
            XCTAssertEqual(pf_tk_add(object, 3, 4), 7, "\(route)")
            XCTAssertEqual(PEDispatchPlanCallCountOnThisThread() - start, 0, "\(route): an Instead hook needs the generic pipeline")
            XCTAssertEqual(pf_tk_remove(instead), 1)
            _ = log()
            start = PEDispatchPlanCallCountOnThisThread()
            XCTAssertEqual(pf_tk_add(object, 3, 4), 7, "\(route)")
            XCTAssertEqual(PEDispatchPlanCallCountOnThisThread() - start, route == PERouteClosure ? 1 : 0,
                           "\(route): the plan is back once the Instead hook is gone")
            XCTAssertEqual(log(), "before add after", "\(route)")
        }
    }

    func testBeforeHookChangesAnArgumentTheOriginalReceives() throws {
        for route in Self.routes {
            let f = try family(route)
            let object = make(f.base)
            let handle = hook(f.base, "add:to:", HookOption.before, "double", PFHookDoubleFirstArgument)
            XCTAssertEqual(pf_tk_add(object, 3, 4), 10, "\(route): the original adds 2 × 3 + 4")
            XCTAssertEqual(log(), "double add", "\(route)")
            XCTAssertEqual(pf_tk_remove(handle), 1)
            XCTAssertEqual(pf_tk_add(object, 3, 4), 7, "\(route)")
            XCTAssertEqual(log(), "add", "\(route)")
        }
    }

    /// A hook on a subclass that inherits the method: layers added above it later (on the class
    /// that defines the method, on one in between) run in every call, and once they go, the
    /// inherited method runs alone again.
    func testHookOnASubclassSeesLayersAddedAndRemovedAbove() throws {
        for route in Self.routes {
            let f = try family(route)
            let leaf = make(f.leaf)
            hook(f.leaf, "add:to:", HookOption.before, "leaf")
            XCTAssertEqual(pf_tk_add(leaf, 1, 2), 3)
            XCTAssertEqual(log(), "leaf add", "\(route)")
            let onBase = hook(f.base, "add:to:", HookOption.after, "base", PFHookResultTimesTen)
            XCTAssertEqual(pf_tk_add(leaf, 1, 2), 30, "\(route)")
            XCTAssertEqual(log(), "leaf add base=30", "\(route)")
            let onMid = hook(f.mid, "add:to:", HookOption.before, "mid")
            XCTAssertEqual(pf_tk_add(leaf, 1, 2), 30, "\(route)")
            XCTAssertEqual(log(), "leaf mid add base=30", "\(route)")
            XCTAssertEqual(pf_tk_remove(onBase), 1)
            XCTAssertEqual(pf_tk_add(leaf, 1, 2), 3, "\(route)")
            XCTAssertEqual(log(), "leaf mid add", "\(route)")
            XCTAssertEqual(pf_tk_remove(onMid), 1)
            XCTAssertEqual(pf_tk_add(leaf, 1, 2), 3, "\(route)")
            XCTAssertEqual(log(), "leaf add", "\(route)")
            let sibling = make(f.sib)
            XCTAssertEqual(pf_tk_add(sibling, 1, 2), 3, "\(route)")
            XCTAssertEqual(log(), "add", "\(route): the sibling never had a hook")
        }
    }

    /// A narrow argument written with a one-byte store reaches the original as that value, whatever
    /// the rest of the register held (a negative char fills it with ones).
    func testBeforeHookChangesANarrowArgument() throws {
        for route in Self.routes {
            let f = try family(route)
            let object = make(f.base)
            hook(f.base, "negate:", HookOption.before, "seven", PFHookSetCharArgument7)
            XCTAssertEqual(pf_tk_negate(object, -1), -7, "\(route)")
            XCTAssertEqual(pf_tk_negate(object, -128), -7, "\(route)")
            XCTAssertEqual(pf_tk_negate(object, 100), -7, "\(route)")
            XCTAssertEqual(log(), "seven negate seven negate seven negate", "\(route)")
        }
    }

    func testAfterHookReplacesTheResultOnTheHookedObjectOnly() throws {
        for route in Self.routes {
            let f = try family(route)
            let hooked = make(f.base), other = make(f.base)
            hook(hooked, "add:to:", HookOption.after, "x10", PFHookResultTimesTen)
            XCTAssertEqual(pf_tk_add(hooked, 3, 4), 70, "\(route)")
            XCTAssertEqual(pf_tk_add(other, 3, 4), 7, "\(route)")
            XCTAssertEqual(log(), "add x10=70 add", "\(route)")
        }
    }

    /// A BOOL and a signed char result set by an After hook: the caller reads the narrow value the
    /// hook wrote, sign included.
    func testAfterHookSetsNarrowResults() throws {
        for route in Self.routes {
            let f = try family(route)
            let object = make(f.base)
            XCTAssertEqual(pf_tk_is_even(object, 3), 0, "\(route)")
            XCTAssertEqual(pf_tk_negate(object, 5), -5, "\(route)")
            hook(f.base, "isEven:", HookOption.after, "flip", PFHookFlipBool)
            hook(f.base, "negate:", HookOption.after, "set", PFHookSetCharMinus100)
            XCTAssertEqual(pf_tk_is_even(object, 3), 1, "\(route)")
            XCTAssertEqual(pf_tk_is_even(object, 4), 0, "\(route)")
            XCTAssertEqual(pf_tk_negate(object, 5), -100, "\(route)")
            XCTAssertEqual(log(), "isEven negate isEven flip isEven flip negate set", "\(route)")
        }
    }

    /// An info object a hook keeps is not handed to the next call (that one gets its own), and
    /// once its call has returned, its invocation refuses instead of reaching a dead frame.
    func testInfoKeptByAHookOutlivesItsCallWithoutReachingIt() throws {
        for route in Self.routes {
            let f = try family(route)
            let keeper = make(f.base), other = make(f.base)
            hook(keeper, "ping", HookOption.before, "keep", PFHookKeepInfo)
            hook(f.base, "ping", HookOption.after, "after", PFHookLogInfo)
            pf_tk_ping(keeper)
            pf_tk_ping(other)
            XCTAssertEqual(log(), "keep ping after:\(f.base):ping:same ping after:\(f.base):ping:same", "\(route)")
            XCTAssertEqual(take(pf_hook_kept_info_report(keeper)),
                           "same:the hooked call has returned; its invocation can no longer be used", "\(route)")
        }
    }

    /// The original raises under a Before and an After hook: the caller gets the exception, the
    /// After hook doesn't run, and the next calls (and removing the hooks) work as before.
    func testExceptionFromTheOriginalReachesTheCallerAndHooksKeepWorking() throws {
        for route in Self.routes {
            let f = try family(route)
            let object = make(f.base)
            let before = hook(f.base, "fail", HookOption.before, "before")
            hook(f.base, "fail", HookOption.after, "after")
            for _ in 0..<3 {
                XCTAssertEqual(take(pf_tk_send_void(object, "fail")), "!PFTkFailure: failed on purpose", "\(route)")
                XCTAssertEqual(log(), "before fail", "\(route)")
            }
            hook(f.base, "ping", HookOption.before, "ping-hook")
            pf_tk_ping(object)
            XCTAssertEqual(log(), "ping-hook ping", "\(route)")
            XCTAssertEqual(pf_tk_remove(before), 1)
            XCTAssertEqual(take(pf_tk_send_void(object, "fail")), "!PFTkFailure: failed on purpose", "\(route)")
            XCTAssertEqual(log(), "fail", "\(route): the After hook is skipped when the original raises")
        }
    }

    /// A hook that stops qualifying for the plan (Instead, automatic removal) and goes away again:
    /// each call runs exactly the hooks present.
    func testHooksThatNeedTheGenericPipelineComeAndGo() throws {
        for route in Self.routes {
            let f = try family(route)
            let object = make(f.base)
            hook(f.base, "add:to:", HookOption.before, "b")
            hook(f.base, "add:to:", HookOption.after, "a")
            XCTAssertEqual(pf_tk_add(object, 1, 2), 3)
            XCTAssertEqual(log(), "b add a", "\(route)")
            hook(f.base, "add:to:", HookOption.before | HookOption.automaticRemoval, "once")
            XCTAssertEqual(pf_tk_add(object, 1, 2), 3)
            XCTAssertEqual(pf_tk_add(object, 1, 2), 3)
            XCTAssertEqual(log(), "b once add a b add a", "\(route)")
            let instead = hook(f.base, "add:to:", HookOption.instead, "i", PFHookAddTimesTen)
            XCTAssertEqual(pf_tk_add(object, 1, 2), 30)
            XCTAssertEqual(log(), "b add i=30 a", "\(route)")
            XCTAssertEqual(pf_tk_remove(instead), 1)
            XCTAssertEqual(pf_tk_add(object, 1, 2), 3)
            XCTAssertEqual(log(), "b add a", "\(route)")
        }
    }

    /// Plans (closure route) are replaced while three threads call: a call runs either the old or the new set
    /// of hooks, never a freed block; once the hooks are gone, nothing runs but the original.
    func testCallsWhileBeforeAndAfterHooksAreReplaced() throws {
        for route in [PERouteClosure] {
            let f = try family(route)
            let shared = make(f.base)
            let tally = Tally()
            let before = pf_hook_counter()
            let calls = CallCount()
            DispatchQueue.concurrentPerform(iterations: 4) { index in
                PEThreadRegister()
                if index == 0 {
                    for round in 0..<300 {
                        var error: UnsafeMutablePointer<CChar>?
                        var handles = [
                            pf_hook_class(f.base, "add:to:", HookOption.before, "c", Int32(PFHookCount.rawValue), &error),
                            pf_hook_object(shared, "add:to:", HookOption.after, "o", Int32(PFHookCount.rawValue), &error),
                        ]
                        if round % 4 == 0 {
                            handles.append(pf_hook_class(f.base, "add:to:", HookOption.after, "x", Int32(PFHookCount.rawValue), &error))
                        }
                        if let message = take(error) { tally.add("refused", message) }
                        // One call of its own while this round's hooks are all there: it runs each once.
                        if pf_tk_add(shared, 1, 2) != 3 { tally.add("wrong", "1+2 on the hooking thread") }
                        for handle in (round % 2 == 0 ? handles : handles.reversed()) where handle > 0 {
                            if pf_tk_remove(handle) != 1 { tally.add("not removed") }
                        }
                    }
                    tally.add("replaced")
                } else {
                    // Calls overlap every replacement: they go on until the hooks are all replaced.
                    var call: Int32 = 0
                    while call < 3000 || tally["replaced"] == 0 {
                        let a = Int32(index * 100_000), b = call % 50_000
                        let result = pf_tk_add(shared, a, b)
                        if result != a + b { tally.add("wrong", "\(a)+\(b) gave \(result)") }
                        call += 1
                    }
                    calls.add(Int(call))
                }
            }
            XCTAssertEqual(tally["wrong"], 0, "\(route): \(tally.sample)")
            XCTAssertEqual(tally["refused"], 0, "\(route): \(tally.sample)")
            XCTAssertEqual(tally["not removed"], 0, "\(route)")
            _ = log()
            let counted = pf_hook_counter()
            // The hooking thread's own calls ran 2 counting hooks each round, 3 in every fourth;
            // no call runs more than the 3 counting hooks there can be at once.
            XCTAssertGreaterThanOrEqual(counted - before, 300 * 2 + 75, "\(route): every round's hooks ran")
            XCTAssertLessThanOrEqual(counted - before, 3 * (calls.total + 300), "\(route): no hook ran twice in a call")
            XCTAssertEqual(pf_tk_add(shared, 20, 22), 42, "\(route)")
            XCTAssertEqual(pf_hook_counter(), counted, "\(route): no hook is left")
            XCTAssertEqual(log(), "add", "\(route)")
        }
    }
}

/// Calls made on several threads, added up.
final class CallCount: @unchecked Sendable {
    private let lock = NSLock()
    private var sum = 0
    func add(_ count: Int) { lock.lock(); sum += count; lock.unlock() }
    var total: Int { lock.lock(); defer { lock.unlock() }; return sum }
}
