import Foundation
import XCTest
import PatchEngine
import PatchFixtures

/// Threads running patch code at the same time don't wait for each other (issue 23; docs/threads.md,
/// "The LIFO coupling"). With one JavaScriptCore VM, a patched call whose native call has
/// returned cannot resume JS until every thread that called out from JS later is back, and two
/// such calls deadlock. A thread entering JS while another thread is inside the engine's VM gets a
/// VM of its own, so neither waits. Each case runs in a child process on fresh threads held at
/// PFGate's gates; a deadlock is ended by the child's own bounded waits (or its deadline) and fails
/// the test instead of hanging the suite.
final class ConcurrentVMTests: PatchTestCase {
    /// Thread A's patched method is in a native call (gate 1); thread B's patched method, entered
    /// meanwhile, calls a native method that waits for gate 3, which A's JS opens right after its
    /// native call returns. The test then lets A's native call return: both calls must return
    /// their JS results within 5 s. With one VM, A waits for B (B called out later) and B for A:
    /// stuck until B's native wait gives up after 8 s (B then gets -1 + 200).
    func testTwoThreadsWaitingForEachOthersJSDoNotDeadlock() throws {
        let child = try runInChildProcess("testTwoThreadsWaitingForEachOthersJSDoNotDeadlock") { try pairCase() }
        guard let child else { return }
        XCTAssertEqual(child.line("concurrent-vm: "), "A 101 B 203 both-within-5s yes", "exit \(child.status)\n\(child.output.suffix(2000))")
    }

    /// Thread A's native call (made from its patched method) returns while thread B, which called
    /// out from JS after A, is held in a native call: A's patched call returns to its native
    /// caller while B is still held in its native call (the test releases B only once A is back,
    /// or after 10 s). With one VM it waits for B (blocked, by the drop-order tracker).
    func testAPatchedCallContinuesAtOnceWhileALaterCallerIsInANativeCall() throws {
        let child = try runInChildProcess("testAPatchedCallContinuesAtOnceWhileALaterCallerIsInANativeCall") { try continuesCase() }
        guard let child else { return }
        // Whether A returned while B was still held is the behaviour (with one VM, A waits until the
        // test releases B); the seconds it took are printed, not bounded: a busy machine stretches them.
        XCTAssertEqual(child.line("concurrent-vm: "), "A 101 B 102 A-returned-while-B-inside yes", "exit \(child.status)\n\(child.output.suffix(2000))")
    }

    /// Issue 36: with both limits off (no watchdog in any VM), thread A's patched -run: is in a
    /// native call; thread B's patched -outer: (another method), entered meanwhile, is in a native
    /// call too; A's native call returns. A's patched call returns to its native caller with its
    /// JS result, without waiting for B (B is in another VM), and B's does when released.
    func testWithBothLimitsOffAPatchedCallReturnsWhileAnotherMethodsCallIsInside() throws {
        let child = try runInChildProcess("testWithBothLimitsOffAPatchedCallReturnsWhileAnotherMethodsCallIsInside") { try limitsOffCase() }
        guard let child else { return }
        XCTAssertEqual(child.line("concurrent-vm: "), "A 101 B 202 A-returned-while-B-inside yes B-returned yes",
                       "exit \(child.status)\n\(child.output.suffix(2000))")
    }

    /// 4 threads × 5,000 patched calls whose JS calls the original natively and returns a value
    /// made from `self` and the argument, while a fifth thread sits inside a patched method's
    /// native call for the whole run (so the 4 run in JS while another thread is inside the
    /// engine: with a VM per concurrently running thread, in VMs other than that thread's).
    /// Every native caller gets its own object's value, with no error. This passes with one VM
    /// too (every call then nested in the fifth thread's entry): a regression check for the split.
    func testValuesStayRightWhileAnotherThreadIsInsideAPatchedCall() throws {
        let child = try runInChildProcess("testValuesStayRightWhileAnotherThreadIsInsideAPatchedCall", timeout: 300) { try loadCase() }
        guard let child else { return }
        XCTAssertEqual(child.line("concurrent-vm: "), "wrong 0 of 20000 holder 105 inside-throughout yes errors 0 applied yes",
                       "exit \(child.status)\n\(child.output.suffix(2000))")
    }

    // MARK: Child parts

    private func seconds(_ from: DispatchTime, _ to: DispatchTime) -> String {
        String(format: "%.3f", Double(Int64(to.uptimeNanoseconds) - Int64(from.uptimeNanoseconds)) / 1e9)
    }

    private func pairCase() throws {
        pf_gate_reset()
        try apply("""
        defineClass('PFGate', {
          run: function(gate) {
            var G = require('PFGate')
            if (gate == 1) { var passed = G.pass_(1); G.open_(3); return passed + 100 }
            return G.pass_within_(3, 8) + 200
          }
        })
        """)
        let a = Worker { pf_gate_run(1) }
        XCTAssertEqual(pf_gate_wait_reached(1, 10), 1)   // A in its native call
        let b = Worker { pf_gate_run(2) }
        XCTAssertEqual(pf_gate_wait_reached(3, 10), 1)   // B in its native call, waiting for A's JS
        let released = DispatchTime.now()
        pf_gate_open(1)
        let deadline = released + .seconds(5)
        let aInTime = a.done.wait(timeout: deadline) == .success
        let bInTime = b.done.wait(timeout: deadline) == .success
        if !aInTime { XCTAssertEqual(a.done.wait(timeout: .now() + 30), .success) }
        if !bInTime { XCTAssertEqual(b.done.wait(timeout: .now() + 30), .success) }
        print("concurrent-vm: A \(a.result) B \(b.result) both-within-5s \(aInTime && bInTime ? "yes" : "no")")
        print("concurrent-vm-seconds: A \(seconds(released, a.finishedAt)) B \(seconds(released, b.finishedAt))")
    }

    private func continuesCase() throws {
        pf_gate_reset()
        try apply("defineClass('PFGate', { run: function(gate) { return require('PFGate').pass_(gate) + 100 } })")
        let a = Worker { pf_gate_run(1) }
        XCTAssertEqual(pf_gate_wait_reached(1, 10), 1)   // A in its native call
        let b = Worker { pf_gate_run(2) }
        XCTAssertEqual(pf_gate_wait_reached(2, 10), 1)   // B called out after A
        let released = DispatchTime.now()
        pf_gate_open(1)                                  // A's native call returns; B is still held
        // B stays in its native call until A is back or 10 s have passed (room for a busy machine).
        let returnedWhileBInside = a.done.wait(timeout: released + .seconds(10)) == .success && !b.isDone
        pf_gate_open(2)
        if !returnedWhileBInside { XCTAssertEqual(a.done.wait(timeout: .now() + 30), .success) }
        XCTAssertEqual(b.done.wait(timeout: .now() + 30), .success)
        print("concurrent-vm: A \(a.result) B \(b.result) A-returned-while-B-inside \(returnedWhileBInside ? "yes" : "no")")
        print("concurrent-vm-seconds: \(seconds(released, a.finishedAt))")
    }

    private func limitsOffCase() throws {
        PatchEngine.executionTimeLimit = nil
        PatchEngine.heapGrowthLimit = nil
        try apply("""
        defineClass('PFGate', {
          run: function(gate) { return require('PFGate').pass_(gate) + 100 },
          outer: function(gate) { return require('PFGate').pass_(gate) + 200 }
        })
        """)
        // The interleaving again and again (the first round makes B's VM): it must hold every time.
        var outcome = "A 101 B 202 A-returned-while-B-inside yes B-returned yes"
        for round in 0..<100 {
            pf_gate_reset()
            let a = Worker { pf_gate_run(1) }
            XCTAssertEqual(pf_gate_wait_reached(1, 10), 1)   // A in its native call
            let b = Worker { pf_gate_outer(2) }
            XCTAssertEqual(pf_gate_wait_reached(2, 10), 1)   // B in its native call, called out after A
            pf_gate_open(1)
            // A deadline with room for a busy machine: the wrong outcome is never returning.
            let returnedWhileBInside = a.done.wait(timeout: .now() + 10) == .success && !b.isDone
            pf_gate_open(2)
            let bReturned = b.done.wait(timeout: .now() + 10) == .success
            if !returnedWhileBInside { _ = a.done.wait(timeout: .now() + 20) }
            let seen = "A \(a.result) B \(b.result) A-returned-while-B-inside \(returnedWhileBInside ? "yes" : "no") B-returned \(bReturned ? "yes" : "no")"
            if seen != outcome { outcome = seen + " (round \(round))"; break }
        }
        print("concurrent-vm: \(outcome)")
    }

    private func loadCase() throws {
        pf_gate_reset()
        let errors = captureErrors()
        try apply("defineClass('PFGate', { run: function(gate) { return require('PFGate').pass_(gate) + 100 } })")
        let name = uniqueScriptName()
        try apply("defineClass('PFAccumulator', { mix: function(x) { return self.ORIGmix_(x * 2) + self.objectId() * 7 } })", name: name)
        let holder = Worker { pf_gate_run(5) }
        XCTAssertEqual(pf_gate_wait_reached(5, 10), 1)   // the fifth thread inside -run:'s native call
        // Two objects per thread, alternating, so that a `self` from another call shows.
        let objects = (1...8).map { pf_accumulator_new(Int32($0))! }
        defer { objects.forEach { pf_release($0) } }
        let started = DispatchTime.now()
        let workers = (0..<4).map { thread in
            let pair = (SendablePointer(raw: objects[2 * thread]), SendablePointer(raw: objects[2 * thread + 1]))
            return Worker {
                var wrong: Int32 = 0
                for call in 0..<5_000 {
                    let (object, id) = call % 2 == 0 ? (pair.0, 2 * thread + 1) : (pair.1, 2 * thread + 2)
                    let x = Int32(call)
                    if pf_accumulator_mix(object.raw, x) != Int32(id) * 100_000 + 2 * x + 7 * Int32(id) { wrong += 1 }
                }
                return wrong
            }
        }
        let allReturned = workers.map { $0.done.wait(timeout: .now() + 240) == .success }.allSatisfy { $0 }
        let finished = DispatchTime.now()
        let insideThroughout = !holder.isDone
        pf_gate_open(5)
        XCTAssertEqual(holder.done.wait(timeout: .now() + 30), .success)
        let wrong = workers.reduce(0) { $0 + Int($1.result) }
        print("concurrent-vm: \(allReturned ? "" : "NOT ALL RETURNED ")wrong \(wrong) of 20000 holder \(holder.result) inside-throughout \(insideThroughout ? "yes" : "no") errors \(errors.errors.count) applied \(PatchEngine.appliedPatchNames.contains(name) ? "yes" : "no")")
        print("concurrent-vm-errors: \(errors.errors.prefix(2))")
        print("concurrent-vm-seconds: \(seconds(started, finished))")
    }
}
