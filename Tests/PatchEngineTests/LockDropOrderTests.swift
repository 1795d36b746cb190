import Foundation
import XCTest
import PatchEngine
import PatchFixtures
import CPatchEngine
import PatchRuntime

/// Threads coming back from native calls made from JS in one VM (docs/threads.md, "The drop-order
/// tracker"): with `PatchEngine.maximumVMs = 1`, as when threads share a VM past the maximum, or
/// call blocks and handlers in the VM that made them (with more VMs the threads of these cases
/// run in VMs of their own and don't wait at all: ConcurrentVMTests).
/// JavaScriptCore takes its API lock back last dropped, first back: a thread whose native call
/// returned while a thread that entered later is still in its native call waits. It used to spin
/// inside JavaScriptCore while it waited (its CPU time, which the time limit counts, ran the whole
/// wait); it now waits blocked. Each case runs in a child process (threads held at gates; a hang
/// is ended by the child's deadline instead of hanging the suite) on fresh threads, whose CPU
/// clocks start at zero.
final class LockDropOrderTests: PatchTestCase {
    /// `pauseGate`: where thread B (gate 2) stops between JavaScriptCore's drop and its record.
    private func gatePatch(pauseGate: Int = -1) -> String { """
    var pauseGate = \(pauseGate)
    defineClass('PFGate', {
      run: function(gate) {
        var G = require('PFGate')
        G.armPause_(gate == 2 ? pauseGate : -1)   // the next callback is pass_'s
        return G.pass_(gate) + 100
      },
      outer: function(gate) { return self.runNested_(gate) + 1000 }
    })
    """ }

    /// Thread A's patched call makes a native call; thread B's patched call, entered after it,
    /// is in a long native call (1 s) when A's returns. A waits for B (JavaScriptCore's order)
    /// but blocked: its CPU time over the whole call stays near 0 (before: ≈ the 1 s wait, spent
    /// spinning in JavaScriptCore's grabAllLocks). Both callers get their patch's result.
    func testAThreadWhoseNativeCallReturnedWaitsWithoutSpinning() throws {
        let child = try runInChildProcess("testAThreadWhoseNativeCallReturnedWaitsWithoutSpinning") { PatchEngine.maximumVMs = 1; try spinningCase(nested: false) }
        guard let child else { return }
        XCTAssertEqual(child.line("lock-drop: "), "A 101 B 102 A-waited-for-B yes fallbacks 0", "exit \(child.status)\n\(child.output.suffix(2000))")
        let cpu = Double(child.line("lock-drop-cpu: ") ?? "") ?? .infinity
        XCTAssertLessThan(cpu, 0.25, "A's CPU time over a call that waited 1 s for B (spinning: ≈ 1 s)")
    }

    /// The same with native → JS → native on thread A: A's outer patched call is in a native
    /// method when B enters; that method then calls a patched method whose native call returns
    /// at once (A entered it after B: nothing to wait for), and A's outer native call then waits
    /// for B, blocked.
    func testANestedCallbackWaitsOnlyForThreadsThatEnteredAfterIt() throws {
        let child = try runInChildProcess("testANestedCallbackWaitsOnlyForThreadsThatEnteredAfterIt") { PatchEngine.maximumVMs = 1; try spinningCase(nested: true) }
        guard let child else { return }
        XCTAssertEqual(child.line("lock-drop: "), "A 1101 B 102 A-waited-for-B yes fallbacks 0", "exit \(child.status)\n\(child.output.suffix(2000))")
        let cpu = Double(child.line("lock-drop-cpu: ") ?? "") ?? .infinity
        XCTAssertLessThan(cpu, 0.25, "A's CPU time over a call that waited 1 s for B (spinning: ≈ 1 s)")
    }

    /// With a 0.3 s time limit: thread B's patched call is in a native method when A's patched
    /// call enters JS (so the watchdog's clock is started for A's entry); that native method then
    /// calls a patched method (nested in B's entry: the clock stays A's) whose native call lasts
    /// 1 s. A's native call returns meanwhile and waits for B: A's call is not ended, its script
    /// not reverted. This passed before the tracker too, although A spun 0.78 s of CPU on its own
    /// clock: B takes the lock back first and handles the watchdog's check, which restarts the
    /// clock for B's entry (docs/threads.md). It guards the wait against being charged to A.
    func testWithTheTimeLimitAWaitForALaterCallersNativeCallIsNotEnded() throws {
        let child = try runInChildProcess("testWithTheTimeLimitAWaitForALaterCallersNativeCallIsNotEnded") { PatchEngine.maximumVMs = 1; try limitCase() }
        guard let child else { return }
        XCTAssertEqual(child.line("lock-drop: "), "A 101 B 1102 A-waited-for-B yes fallbacks 0 errors 0 applied yes", "exit \(child.status)\n\(child.output.suffix(2000))")
    }

    /// Recorded in the other order than JavaScriptCore's: B drops the API lock first but is
    /// recorded after A (held between the two by the test seam). JavaScriptCore lets A go on at
    /// once; the tracker's wait for B is unproven, so it is bounded (20 ms) and A goes on while B
    /// is still in its native call — which here waits for A to finish: an unbounded wait would
    /// be a deadlock JavaScriptCore alone doesn't have.
    func testAWaitInAnUnprovenOrderIsBoundedSoItAddsNoDeadlock() throws {
        let child = try runInChildProcess("testAWaitInAnUnprovenOrderIsBoundedSoItAddsNoDeadlock") { PatchEngine.maximumVMs = 1; try unprovenOrderCase() }
        guard let child else { return }
        XCTAssertEqual(child.line("lock-drop: "), "A 101 B 102 A-done-while-B-inside yes fallbacks 1", "exit \(child.status)\n\(child.output.suffix(2000))")
    }

    // MARK: Child parts

    private func spinningCase(nested: Bool) throws {
        pf_gate_reset()
        try apply(gatePatch())
        let fallbacks = PELockDropOrderBoundedFallbacks()
        let a = Worker { nested ? pf_gate_outer(1) : pf_gate_run(1) }
        // A is in its (outer) native call.
        XCTAssertEqual(pf_gate_wait_reached(nested ? 11 : 1, 10), 1)
        let b = Worker { pf_gate_run(2) }
        XCTAssertEqual(pf_gate_wait_reached(2, 10), 1)
        if nested {
            pf_gate_open(11)   // A goes on natively into its nested patched call
            XCTAssertEqual(pf_gate_wait_reached(1, 10), 1)
        }
        pf_gate_open(1)        // A's native call returns; B stays in its own for 1 s
        Thread.sleep(forTimeInterval: 1.0)
        let waited = !a.isDone
        pf_gate_open(2)
        XCTAssertEqual(a.done.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(b.done.wait(timeout: .now() + 30), .success)
        print("lock-drop: A \(a.result) B \(b.result) A-waited-for-B \(waited ? "yes" : "no") fallbacks \(PELockDropOrderBoundedFallbacks() - fallbacks)")
        print("lock-drop-cpu: " + String(format: "%.3f", a.cpu))
    }

    private func limitCase() throws {
        pf_gate_reset()
        let name = uniqueScriptName()
        try apply(gatePatch(), name: name)
        let errors = captureErrors()
        PatchEngine.executionTimeLimit = 0.3
        let fallbacks = PELockDropOrderBoundedFallbacks()
        let b = Worker { pf_gate_outer(2) }
        XCTAssertEqual(pf_gate_wait_reached(12, 10), 1)   // B in -runNested:, natively
        let a = Worker { pf_gate_run(1) }
        XCTAssertEqual(pf_gate_wait_reached(1, 10), 1)
        pf_gate_open(12)                                  // B: -run: nested in its entry, then +pass:
        XCTAssertEqual(pf_gate_wait_reached(2, 10), 1)
        pf_gate_open(1)                                   // A's native call returns; B stays 1 s
        Thread.sleep(forTimeInterval: 1.0)
        let waited = !a.isDone
        pf_gate_open(2)
        XCTAssertEqual(a.done.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(b.done.wait(timeout: .now() + 30), .success)
        print("lock-drop: A \(a.result) B \(b.result) A-waited-for-B \(waited ? "yes" : "no") fallbacks \(PELockDropOrderBoundedFallbacks() - fallbacks) errors \(errors.errors.count) applied \(PatchEngine.appliedPatchNames.contains(name) ? "yes" : "no")")
        print("lock-drop-errors: \(errors.errors.prefix(2))")
        print("lock-drop-cpu: " + String(format: "%.3f", a.cpu))
    }

    private func unprovenOrderCase() throws {
        pf_gate_reset()
        try apply(gatePatch(pauseGate: 20))
        // Once through, so that first-use lookups (N.sendSelector) are done: B's next callback
        // after +armPause: is then pass_'s send.
        pf_gate_open(0)
        XCTAssertEqual(pf_gate_run(0), 100)
        PELockDropOrderSetBeforePushHook(pf_gate_before_push)
        defer { PELockDropOrderSetBeforePushHook(nil) }
        let fallbacks = PELockDropOrderBoundedFallbacks()
        // B drops the API lock for its native call and stops before it is recorded.
        let b = Worker { pf_gate_run(2) }
        XCTAssertEqual(pf_gate_wait_reached(20, 10), 1)
        // A enters JS after B's drop, drops it again, and is recorded first.
        let a = Worker { pf_gate_run(1) }
        XCTAssertEqual(pf_gate_wait_reached(1, 10), 1)
        pf_gate_open(20)
        XCTAssertEqual(pf_gate_wait_reached(2, 10), 1)
        // B's native call waits for A to finish (up to 5 s here).
        pf_gate_open(1)
        let finished = a.done.wait(timeout: .now() + 5) == .success
        pf_gate_open(2)
        if !finished { XCTAssertEqual(a.done.wait(timeout: .now() + 30), .success) }
        XCTAssertEqual(b.done.wait(timeout: .now() + 30), .success)
        print("lock-drop: A \(a.result) B \(b.result) A-done-while-B-inside \(finished ? "yes" : "no") fallbacks \(PELockDropOrderBoundedFallbacks() - fallbacks)")
    }
}
