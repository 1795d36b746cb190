import Foundation
import XCTest
@testable import PatchEngine
import PatchFixtures
import CJavaScriptCore

/// `PatchEngine.collectGarbage()` drops JavaScriptCore's compiled code (`Engine.deleteCompiledCode`):
/// the memory the optimizing tiers hold goes back with the garbage, and what ran hot still runs
/// right after, recompiled.
final class CompiledCodeReleaseTests: PatchTestCase {
    /// JavaScriptCore's test-runner reading (TestRunnerUtils.h, exported): how many times a
    /// function's code went through the DFG tier; 0 once the function has no compiled code.
    private typealias DFGCompiles = @convention(c) (JSContextRef?, JSValueRef?) -> JSValueRef?

    func testCollectGarbageDropsAHotFunctionsOptimizedCode() throws {
        if runsWithoutPrivateSymbols { throw XCTSkip("dropping compiled code needs JSC::VM::deleteAllCode (a private symbol); without it the code stays") }
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "_ZN3JSC19numberOfDFGCompilesEPK15OpaqueJSContextPK13OpaqueJSValue") else {
            throw XCTSkip("this JavaScriptCore exports no numberOfDFGCompiles to read a function's tier with")
        }
        let dfgCompiles = unsafeBitCast(symbol, to: DFGCompiles.self)
        let engine = Engine.shared
        // The function read has its own loop, called only from top-level code: a function
        // called from a hot caller can be inlined into the caller's optimized code every time and
        // never be compiled on its own (its count stayed 0 for 30 s in one run of ten under load).
        _ = try engine.evaluateRaw("""
        var compiledCodeProbe = function (n) { var s = 0; for (var i = 0; i < n; i++) s += (i * 7 + 3) % 11; return s };
        """, sourceURL: "CompiledCodeRelease-setup.js")
        func compiles() throws -> Double {
            let function = try engine.evaluateRaw("compiledCodeProbe", sourceURL: "CompiledCodeRelease-read.js")
            return engine.apiLock.withLock(engine.ctx) { JSValueToNumber(engine.ctx, dfgCompiles(engine.ctx, function), nil) }
        }
        // The DFG compiles on a thread of its own: run the function until it has (bounded).
        let deadline = Date().addingTimeInterval(30)
        while try compiles() == 0 && Date() < deadline {
            _ = try engine.evaluateRaw("compiledCodeProbe(20000)", sourceURL: "CompiledCodeRelease-warm.js")
        }
        XCTAssertGreaterThan(try compiles(), 0, "the function never reached JavaScriptCore's DFG tier in 30 s")

        PatchEngine.collectGarbage()
        XCTAssertEqual(try compiles(), 0, "collectGarbage() left the function's compiled code in place")
        let sum = try engine.evaluateRaw("compiledCodeProbe(1000)", sourceURL: "CompiledCodeRelease-after.js")
        XCTAssertEqual(JSValueToNumber(engine.ctx, sum, nil), Double((0..<1000).reduce(0) { $0 + ($1 * 7 + 3) % 11 }))
    }

    /// Called by native code that JS called (JS on the VM's stack, and the native caller patched):
    /// JavaScriptCore defers the deletion until that JS has returned (deleting it under a running
    /// frame would return into freed code); the script and the patched method's native caller go
    /// on with the right values.
    func testCollectGarbageFromANativeCallInsideJSLeavesTheRunningCodeWorking() throws {
        pf_probe_set_hook { PatchEngine.collectGarbage() }
        defer { pf_probe_set_hook(nil) }
        try apply("""
        defineClass('PFWorker', {
          compute: function (x) {
            var f = function (v) { return (v * 5 + 1) % 13 }, s = 0;
            for (var i = 0; i < 100000; i++) s += f(i);
            require('PFProbe').runHook();
            for (var i = 0; i < 100000; i++) s += f(i);
            return s + x;
          }
        })
        """)
        let expected = 2 * (0..<100_000).reduce(0) { $0 + ($1 * 5 + 1) % 13 }
        for round in 0..<3 {
            XCTAssertEqual(Int(pf_worker_compute(Int32(round))), expected + round, "round \(round)")
        }
    }

    /// Another thread's patched method is inside a native call, its hot JS on the VM's stack with
    /// the API lock dropped, when this thread calls `collectGarbage()` on the same VM
    /// (`maximumVMs = 1`): JavaScriptCore defers the deletion until that JS has returned, and
    /// that thread's native caller gets its method's value. In a child process: one VM for all.
    func testCollectGarbageWhileAnotherThreadsJSIsInANativeCallLeavesItWorking() throws {
        let child = try runInChildProcess("testCollectGarbageWhileAnotherThreadsJSIsInANativeCallLeavesItWorking") {
            try otherThreadCase()
        }
        guard let child else { return }
        let expected = 2 * (0..<200_000).reduce(0) { $0 + ($1 * 5 + 1) % 13 } + 100
        XCTAssertEqual(child.line("compiled-code: "), "B \(expected) reached yes", "exit \(child.status)\n\(child.output.suffix(2000))")
    }

    private final class Result: @unchecked Sendable { var value: Int32 = 0 }

    private func otherThreadCase() throws {
        PatchEngine.maximumVMs = 1
        pf_gate_reset()
        try apply("""
        defineClass('PFGate', {
          run: function (gate) {
            var f = function (v) { return (v * 5 + 1) % 13 }, s = 0;
            for (var i = 0; i < 200000; i++) s += f(i);
            require('PFGate').pass_(gate);
            for (var i = 0; i < 200000; i++) s += f(i);
            return s + 100;
          }
        })
        """)
        let b = Result(), done = DispatchSemaphore(value: 0)
        Thread { b.value = pf_gate_run(1); done.signal() }.start()
        let reached = pf_gate_wait_reached(1, 30) == 1
        PatchEngine.collectGarbage()
        pf_gate_open(1)
        _ = done.wait(timeout: .now() + 30)
        print("compiled-code: B \(b.value) reached \(reached ? "yes" : "no")")
    }
}
