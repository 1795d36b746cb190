import Foundation
import XCTest
@testable import PatchEngine
import PatchFixtures
import CPatchEngine

/// A script's top level runs with runtime.js's context of no method (no `self`, its definitions
/// recorded under its own name), swapped in over whatever method another thread left in the VM
/// while out in a native call, and swapped back for that thread. Where the API lock can't be held
/// across the engine's C API calls (the App Store configuration: no JSLock), that thread can come
/// back and finish its method between them.
final class TopLevelContextTests: PatchTestCase {
    private static let childName = "PatchEngineTests.TopLevelContextTests/testAThreadThatFinishesItsMethodDuringAnEvaluationLeavesNoStaleContext"

    /// Thread B's patched method is in a native call when an evaluation starts; B comes back and
    /// finishes before the evaluation swaps its context back (held there by the test seam). Then
    /// the VM is at rest: no method's script, no `self`. Before, the swap back put B's finished
    /// method in as every later call's context (and B's receiver as `self`): definitions made
    /// outside any method were recorded under B's script, and in `make stress` (App Store
    /// configuration) a later evaluation recorded its patch under a reverted script, so that
    /// reverting it left the method patched.
    func testAThreadThatFinishesItsMethodDuringAnEvaluationLeavesNoStaleContext() throws {
        if ProcessInfo.processInfo.environment["PATCHENGINE_TEST_CHILD"] == Self.childName { return try childPart() }
        guard ChildTestProcess.isSupported else { throw XCTSkip("re-running the test binary is set up for Linux's XCTest runner only") }
        let child = try ChildTestProcess.run(Self.childName, environment: ["PATCHENGINE_TEST_CHILD": Self.childName,
                                                                           "PATCHENGINE_PRIVATE_SYMBOLS": "absent"], timeout: 90)
        XCTAssertEqual(child.line("top-level: "), "B 101 script <runtime> self undefined", "exit \(child.status)\n\(child.output.suffix(2000))")
    }

    private final class Result: @unchecked Sendable { var value: Int32 = 0 }

    private func childPart() throws {
        PatchEngine.maximumVMs = 1
        pf_gate_reset()
        try PatchEngine.evaluate("defineClass('PFGate', { run: function(gate) { return require('PFGate').pass_(gate) + 100 } })",
                                 name: "TopLevelContext-method.js")
        let b = Result(), done = DispatchSemaphore(value: 0)
        Thread { b.value = pf_gate_run(1); _ = pf_gate_pass(2, 0); done.signal() }.start()
        guard pf_gate_wait_reached(1, 10) == 1 else { print("top-level: B never reached its native call"); return }
        // B comes back while the evaluation's context is still swapped in.
        PETopLevelSetBeforeLeaveHook { pf_gate_open(1); _ = pf_gate_wait_reached(2, 10) }
        defer { PETopLevelSetBeforeLeaveHook(nil) }
        try PatchEngine.evaluate("var topLevelContextProbe = 1", name: "TopLevelContext-evaluation.js")
        PETopLevelSetBeforeLeaveHook(nil)
        _ = done.wait(timeout: .now() + 10)
        let engine = Engine.shared
        let selfType = try engine.evaluateRaw("typeof self", sourceURL: "TopLevelContext-probe.js")
        print("top-level: B \(b.value) script \(engine.currentScript()) self \(JSC.toString(engine.ctx, selfType))")
    }
}
