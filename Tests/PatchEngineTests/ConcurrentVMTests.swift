import Foundation
import XCTest
import PatchEngine
import PatchFixtures

/// Threads running patch code at the same time (issue 23: a VM per concurrently running thread;
/// docs/threads.md, "The LIFO coupling"). Each case runs in a child process on fresh threads held
/// at PFGate's gates; a deadlock is ended by the child's own bounded waits (or its deadline) and
/// fails the test instead of hanging the suite.
final class ConcurrentVMTests: PatchTestCase {
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
