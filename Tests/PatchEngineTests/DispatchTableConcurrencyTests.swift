import Foundation
import XCTest
import PatchEngine
import PatchRuntime
import PatchFixtures

/// Installing and removing a slot changes a method's implementation, which the runtime must
/// publish to every dispatch table that answers the selector, subclasses included, while other
/// threads keep sending messages through those tables. GCC's runtime rebuilds a class's tables by
/// freeing them: done that way, the messages below crashed within a few hundred rounds.
final class DispatchTableConcurrencyTests: ToolkitTestCase {
    func testMessagesToSubclassesWhileTheParentsMethodChangesAgainAndAgain() throws {
        for route in Self.routes {
            let f = try family(route)
            let shared = make(f.leaf)
            let tally = Tally()
            // A fresh object now and then: +alloc and -init go through the tables too.
            let (leaf, mid) = (f.leaf, f.mid)
            let callers = AddCallers(receiver: shared, tally: tally) { call in
                call % 16 == 0 ? pf_new(call % 32 == 0 ? leaf : mid) : nil
            }
            for round in 0..<1500 {
                // Each hook added installs a slot on the parent (a new IMP); each removal gives the
                // parent its own IMP back. The subclasses inherit the method.
                var error: UnsafeMutablePointer<CChar>?
                let handle = pf_hook_class(f.base, "add:to:", HookOption.before, "c", Int32(PFHookCount.rawValue), &error)
                if let message = take(error) { tally.add("refused", message) }
                if handle <= 0 || pf_tk_remove(handle) < 0 { tally.add("not removed", "round \(round)") }
            }
            XCTAssertEqual(callers.stop(), .success, "\(route): callers finished")
            XCTAssertEqual(tally["wrong"], 0, "\(route): \(tally.sample)")
            XCTAssertEqual(tally["refused"] + tally["not removed"], 0, "\(route): \(tally.sample)")
            let counted = pf_hook_counter()
            XCTAssertEqual(pf_tk_add(shared, 20, 22), 42, "\(route): the original after the last removal")
            XCTAssertEqual(pf_hook_counter(), counted, "\(route): no hook left behind")
        }
    }

    /// The first hook on a class that only inherits the method gives the class a method of its
    /// own, while other threads message that class: each round a new subclass, already in use.
    /// Found two faults: on the forwarding route a call could reach the forwarding IMP before the
    /// new slot counted as installed ("does not recognize add:to:"); and class_addMethod's table
    /// rebuild crashed (1 run in 5 at 2,000 rounds; 600 here keep the suite fast).
    func testMessagesToAClassWhileItGetsAMethodOfItsOwn() throws {
        for route in Self.routes {
            let f = try family(route)
            let tally = Tally()
            var made: [UnsafeMutableRawPointer] = []
            let callers = AddCallers(receiver: nil, tally: tally)
            for round in 0..<600 {
                let name = "\(f.base)Sub\(round)"
                guard pf_s4_make_subclass(f.base, name) == 1, let object = pf_new(name) else {
                    tally.add("no class", name); break
                }
                made.append(object)
                callers.receiver = object
                // Let the callers reach the new class before its method changes.
                for _ in 0..<200 where pf_tk_add(object, 1, 1) == 2 {}
                var error: UnsafeMutablePointer<CChar>?
                let handle = pf_hook_class(name, "add:to:", HookOption.before, "c", Int32(PFHookCount.rawValue), &error)
                if let message = take(error) { tally.add("refused", message) }
                if handle <= 0 || pf_tk_remove(handle) < 0 { tally.add("not removed", name) }
            }
            XCTAssertEqual(callers.stop(), .success, "\(route): callers finished")
            let raised = Set(log().split(separator: " ").filter { $0.hasPrefix("!") })
            XCTAssertEqual(tally["wrong"], 0, "\(route): \(tally.sample), exceptions: \(raised)")
            XCTAssertEqual(tally["no class"] + tally["refused"] + tally["not removed"], 0, "\(route): \(tally.sample)")
            if let last = made.last { XCTAssertEqual(pf_tk_add(last, 20, 22), 42, "\(route): the original after the last removal") }
            made.forEach { pf_release($0) }
        }
    }
}

/// Three threads sending `add:to:` until stopped, each sum checked; wrong ones go to the tally.
/// They send to `receiver` (none: they wait), or to a fresh object when `fresh` makes one for a
/// call number (released after the call).
private final class AddCallers: @unchecked Sendable {
    private let lock = NSLock()
    private var running = true
    private var target: UnsafeMutableRawPointer?
    private let group = DispatchGroup()

    var receiver: UnsafeMutableRawPointer? {
        get { lock.lock(); defer { lock.unlock() }; return target }
        set { lock.lock(); target = newValue; lock.unlock() }
    }

    init(receiver: UnsafeMutableRawPointer?, tally: Tally,
         fresh: (@Sendable (Int32) -> UnsafeMutableRawPointer?)? = nil) {
        target = receiver
        for index in Int32(1)...3 {
            DispatchQueue.global().async(group: group) { [self] in
                PEThreadRegister()
                var call: Int32 = 0
                while true {
                    lock.lock(); let go = running; let shared = target; lock.unlock()
                    if !go { break }
                    call = (call + 1) % 1000
                    let made = fresh?(call)
                    guard let object = made ?? shared else { continue }
                    let result = pf_tk_add(object, index, call)
                    if result != index + call { tally.add("wrong", "\(index)+\(call) gave \(result)") }
                    if let made { pf_release(made) }
                }
            }
        }
    }

    /// Stops the callers and waits for them.
    func stop() -> DispatchTimeoutResult {
        lock.lock(); running = false; lock.unlock()
        return group.wait(timeout: .now() + 30)
    }
}
