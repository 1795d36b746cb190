import Foundation
import XCTest
@testable import PatchEngine
import PatchFixtures

/// The limits' monitor (`LimitMonitor`): it times every check of a measured entry (its nudge makes
/// the entry's next check point run the tock), so a runaway is ended even when JavaScriptCore's
/// watchdog never fires for the arming that should have ended it, and it brings to a check an
/// entry whose check points come too slowly to reach a tock. JavaScriptCore's watchdog is armed
/// only to end. Each runaway spins for 5 s of wall-clock time: without the monitor it runs them
/// all (its CPU time fails the test instead of hanging the suite).
final class LimitMonitorTests: TimeLimitTestCase {
    private let spin = "var t0 = Date.now(); while (Date.now() - t0 < 5000) {}"

    override func tearDown() {
        ExecutionTimeLimit.armingsToLose.withLock { $0 = 0 }
        super.tearDown()
    }

    /// JavaScriptCore's watchdog is armed only to end an entry: a long evaluation and a long
    /// patched call within their bounds (0.3 s of wall time against a 1 s limit, with the heap
    /// growth limit on) arm it not once, and a runaway arms it once, to end it. Before, every
    /// check ran through it: an entry's first tock armed it, its callback armed it again at every
    /// check (heap steps of 10–160 ms), and JavaScriptCore re-armed it from inside its trap handling
    /// — where a timer firing during that handling aborted the process (docs/limits.md).
    func testJavaScriptCoresWatchdogIsArmedOnlyToEndAnEntry() throws {
        PatchEngine.executionTimeLimit = 1.0
        XCTAssertNotNil(PatchEngine.heapGrowthLimit, "the heap growth limit is on by default")
        let name = uniqueScriptName()
        let long = "var t0 = Date.now(), n = 0; while (Date.now() - t0 < 300) { n++ }"
        let before = ExecutionTimeLimit.armings.withLock { $0 }
        let firesBefore = ExecutionTimeLimit.fires.withLock { $0 }
        XCTAssertEqual(render(try apply("\(long); defineClass('PFFailing', { riskyValue: function() { \(long) return n > 0 ? 99 : 98 } }); 'done'", name: name)), "\"done\"")
        var raised: Int32 = 0
        XCTAssertEqual(pf_failing_risky_value(&raised), 99)
        XCTAssertEqual(pf_failing_risky_value(&raised), 99)
        XCTAssertEqual(ExecutionTimeLimit.armings.withLock { $0 } - before, 0, "armings for entries within their bounds")
        PatchEngine.executionTimeLimit = 0.2
        let runaway = uniqueScriptName()
        try apply("defineClass('PFFailing', { riskyValue: function() { var t0 = Date.now(), n = 0; while (Date.now() - t0 < 5000 || n < 5e7) { n++ } return 99 } })", name: runaway)
        let started = threadCPUTime()
        XCTAssertEqual(pf_failing_risky_value(&raised), 7, "the runaway ended; the native caller got the original's result")
        XCTAssertLessThan(threadCPUTime() - started, 1.0)
        // Without the watchdog the tock throws the end: no arming at all.
        let ends = PatchEngine.limitsEndByException ? 0 : 1
        XCTAssertEqual(ExecutionTimeLimit.armings.withLock { $0 } - before, ends, "one arming, to end the runaway")
        XCTAssertEqual(ExecutionTimeLimit.fires.withLock { $0 } - firesBefore, ends, "its timer fired into the callback once")
    }

    /// A runaway's end in a VM five threads share (`maximumVMs = 1`: four threads making patched
    /// calls that call their original natively, a fifth running away): the watchdog fires into its
    /// callback a few times at most — once for the end, and again only when another thread's JS
    /// took the trap and the runaway's next check armed it again. Before the callback parked the
    /// watchdog (`ExecutionTimeLimit.park`), the end's limit stayed set while the threads kept the
    /// VM busy, and JavaScriptCore started an immediate timer at every entry that found the VM
    /// empty: each a trap that could fire while another was being handled (docs/limits.md).
    func testARunawaysEndInASharedVMFiresTheWatchdogAFewTimesAtMost() throws {
        let child = try runInChildProcess("testARunawaysEndInASharedVMFiresTheWatchdogAFewTimesAtMost") { PatchEngine.maximumVMs = 1; try sharedVMEndCase() }
        guard let child else { return }
        let line = child.line("shared-end: ") ?? ""
        print("shared-end: \(line) fires \(child.line("shared-end-fires: ") ?? "?")")
        XCTAssertTrue(line.hasPrefix("runaway 7 timeouts 1 innocent-ended 0 patched yes"), "exit \(child.status)\n\(child.output.suffix(2000))")
        let fires = Int(child.line("shared-end-fires: ") ?? "") ?? .max
        XCTAssertLessThanOrEqual(fires, 6, "the watchdog's fires into its callback for one runaway's end")
    }

    private func sharedVMEndCase() throws {
        let errors = captureErrors()
        let innocent = uniqueScriptName(), runaway = uniqueScriptName()
        try apply("defineClass('PFAccumulator', { addValue: function(n) { self.ORIGaddValue(n + 1000) } })", name: innocent)
        try apply("defineClass('PFFailing', { riskyValue: function() { var t0 = Date.now(), n = 0; while (Date.now() - t0 < 5000 || n < 5e7) { n++ } return 99 } })", name: runaway)
        let firesBefore = ExecutionTimeLimit.fires.withLock { $0 }
        let objects = (0..<4).map { pf_accumulator_new(Int32($0))! }
        defer { objects.forEach { pf_release($0) } }
        let workers = objects.map { object in
            let target = SendablePointer(raw: object)
            return Worker { for _ in 0..<3_000 { pf_accumulator_add(target.raw, 1) }; return 0 }
        }
        let runner = Worker { var raised: Int32 = 0; return pf_failing_risky_value(&raised) }
        XCTAssertEqual(runner.done.wait(timeout: .now() + 60), .success)
        for worker in workers { XCTAssertEqual(worker.done.wait(timeout: .now() + 120), .success) }
        let patched = objects.allSatisfy { pf_accumulator_count($0) == 3_000 && pf_accumulator_all_equal($0, 1001) == 1 }
        let timeouts = errors.errors.filter { $0.kind == .timeout && $0.scriptName == runaway }.count
        print("shared-end: runaway \(runner.result) timeouts \(timeouts) innocent-ended \(errors.errors.count - timeouts) patched \(patched ? "yes" : "no")")
        print("shared-end-fires: \(ExecutionTimeLimit.fires.withLock { $0 } - firesBefore)")
    }

    /// Four threads share one VM (`maximumVMs = 1`), each making 200 patched calls whose JS runs
    /// past its first check (so the monitor measures it) and then calls the original natively,
    /// where another thread's JS goes on. Once every call has returned, no measure is left: the
    /// VM's count of measured entries and the monitor's list are both empty. Without
    /// JavaScriptCore's API lock functions (the App Store configuration) the threads' begins, tocks
    /// and ends ran at once, and the count, a plain integer then, could lose a change: a measure
    /// then stayed behind an entry that had ended, and the monitor kept timing it.
    func testNoMeasureOutlivesItsEntryInAVMThreadsShare() throws {
        let child = try runInChildProcess("testNoMeasureOutlivesItsEntryInAVMThreadsShare") { PatchEngine.maximumVMs = 1; try sharedVMMeasuresCase() }
        guard let child else { return }
        let line = child.line("shared-measures: ") ?? ""
        XCTAssertEqual(line, "patched yes open 0 monitored 0", "exit \(child.status)\n\(child.output.suffix(2000))")
    }

    private func sharedVMMeasuresCase() throws {
        PatchEngine.executionTimeLimit = 5
        try apply("defineClass('PFAccumulator', { addValue: function(n) { for (var i = 0; i < 150000; i++) {} self.ORIGaddValue(n + 1000) } })", name: uniqueScriptName())
        let objects = (0..<4).map { pf_accumulator_new(Int32($0))! }
        defer { objects.forEach { pf_release($0) } }
        let workers = objects.map { object in
            let target = SendablePointer(raw: object)
            return Worker { for _ in 0..<200 { pf_accumulator_add(target.raw, 1) }; return 0 }
        }
        for worker in workers { XCTAssertEqual(worker.done.wait(timeout: .now() + 120), .success) }
        let patched = objects.allSatisfy { pf_accumulator_count($0) == 200 && pf_accumulator_all_equal($0, 1001) == 1 }
        let open = Engine.shared.allVMs.map { $0.timeLimit.openMeasures }.reduce(0, +)
        let monitored = Engine.shared.allVMs.map { LimitMonitor.shared.measuredCount(of: $0.timeLimit) }.reduce(0, +)
        print("shared-measures: patched \(patched ? "yes" : "no") open \(open) monitored \(monitored)")
    }

    /// Two threads share one VM (`maximumVMs = 1`) and each outgrows the heap growth limit in the
    /// same patched method: the first catches its end and waits in a native call (gate 7) while the
    /// second is ended and returns; then the first returns. Each native caller gets the original's
    /// result and each end is reported as heap growth. With one record of "what ended an entry" per
    /// VM, the second end took the first's place, and the first was reported as a timeout (with
    /// no time limit set). Needs the end by exception: the watchdog's can't be caught.
    func testTwoEntriesOfAVMThreadsShareEndedForHeapGrowthEachReportHeapGrowth() throws {
        if !PatchEngine.limitsEndByException { throw XCTSkip("the watchdog's end can't be caught: the first entry can't wait after its end") }
        let child = try runInChildProcess("testTwoEntriesOfAVMThreadsShareEndedForHeapGrowthEachReportHeapGrowth") { PatchEngine.maximumVMs = 1; try sharedVMHeapEndsCase() }
        guard let child else { return }
        let line = child.line("shared-heap-ends: ") ?? ""
        XCTAssertEqual(line, "first 7 second 7 kinds heapGrowth,heapGrowth", "exit \(child.status)\n\(child.output.suffix(2000))")
    }

    private func sharedVMHeapEndsCase() throws {
        PatchEngine.executionTimeLimit = nil
        PatchEngine.heapGrowthLimit = 32 << 20
        let errors = captureErrors()
        try apply("""
        var firstTaken = false;
        defineClass('PFFailing', { riskyValue: function() {
          var first = !firstTaken; firstTaken = true;
          var a = [];
          try { var t0 = Date.now(); while (Date.now() - t0 < 10000) a.push({ n: a.length, s: 'x' + a.length }); }
          catch (e) { if (first) require('PFGate').pass_(7); }
          return 99 } })
        """, name: uniqueScriptName())
        pf_gate_reset()
        let first = Worker { var raised: Int32 = 0; return pf_failing_risky_value(&raised) }
        XCTAssertEqual(pf_gate_wait_reached(7, 30), 1, "the first call was ended and waits at gate 7")
        let second = Worker { var raised: Int32 = 0; return pf_failing_risky_value(&raised) }
        XCTAssertEqual(second.done.wait(timeout: .now() + 30), .success)
        pf_gate_open(7)
        XCTAssertEqual(first.done.wait(timeout: .now() + 30), .success)
        let kinds = errors.errors.map(\.kind.rawValue).joined(separator: ",")
        print("shared-heap-ends: first \(first.result) second \(second.result) kinds \(kinds)")
    }

    /// A time limit set while a long entry is open (measured from its first tock, under the heap
    /// growth limit alone, and waiting in a native call) ends that entry once its JS runs on: the
    /// new bound is taken at its next check point (the setting nudges open entries), not only at
    /// the next entry. Without the nudge its time was never due: the runaway ran its 5 s.
    func testATimeLimitSetWhileALongEntryIsOpenEndsIt() throws {
        PatchEngine.executionTimeLimit = nil
        XCTAssertNotNil(PatchEngine.heapGrowthLimit, "the heap growth limit is on by default")
        let errors = captureErrors()
        let name = uniqueScriptName()
        try apply("""
        defineClass('PFFailing', { riskyValue: function() {
          for (var i = 0; i < 300000; i++) {}                 // past its first check
          require('PFGate').pass_(6);                         // natively until the test opens gate 6
          var t0 = Date.now(), n = 0; while (Date.now() - t0 < 5000 || n < 5e7) { n++ } return 99 } })
        """, name: name)
        pf_gate_reset()
        let (result, elapsed) = riskyValueOnNewThread {
            XCTAssertEqual(pf_gate_wait_reached(6, 30), 1)
            PatchEngine.executionTimeLimit = 0.2
            pf_gate_open(6)
        }
        XCTAssertEqual(result, 7, "the native caller got the original's result")
        XCTAssertLessThan(elapsed, 1.5, "ended by the limit set meanwhile, not after the 5e7 turns it spins")
        XCTAssertEqual(errors.errors.filter { $0.kind == .timeout }.map(\.scriptName), [name], "\(errors.errors)")
    }

    /// An evaluation (measured from its start) runs away; the arming that should end it is lost
    /// (as if the timer never fired), so nothing but the monitor's nudges bring the script to the
    /// check that arms it again.
    func testAnEvaluationWhoseWatchdogNeverFiresIsEnded() throws {
        try skipWithoutTheWatchdog()
        let name = uniqueScriptName()
        ExecutionTimeLimit.armingsToLose.withLock { $0 = 1 }
        let started = threadCPUTime()
        let error = applyExpectingError("\(spin) 'survived'", name: name)
        XCTAssertLessThan(threadCPUTime() - started, 2.5, "the backstop must bring the runaway to its check")
        XCTAssertEqual(error?.kind, .timeout, "\(String(describing: error))")
        XCTAssertEqual(ExecutionTimeLimit.armingsToLose.withLock { $0 }, 0, "the arming was lost")
    }

    /// A patched call on a new thread runs away and the arming that should end it is lost: the native caller
    /// still gets the original's result, the error handler a timeout, and the script is reverted.
    func testAPatchedCallWhoseWatchdogNeverFiresIsEndedAndTheCallerGetsTheOriginal() throws {
        try skipWithoutTheWatchdog()
        let errors = captureErrors()
        let name = uniqueScriptName()
        try apply("defineClass('PFFailing', { riskyValue: function() { \(spin) return 99 } })", name: name)
        ExecutionTimeLimit.armingsToLose.withLock { $0 = 1 }
        let (result, elapsed) = riskyValueOnNewThread()
        XCTAssertEqual(result, 7, "the native caller got the original's result")
        XCTAssertLessThan(elapsed, 2.5, "ended by the backstop, not after the 5 s it spins")
        XCTAssertEqual(errors.errors.filter { $0.kind == .timeout }.map(\.scriptName), [name], "\(errors.errors)")
        XCTAssertFalse(PatchEngine.appliedPatchNames.contains(name))
    }

    /// A tight loop (`while (true) {}`: its check point is all it does) is ended at its limit
    /// (0.2 s of the thread's CPU), three times in a row. After its first tock the countdown is out
    /// of reach (2^31 check points, 2–4 s of such a loop), so only the monitor's nudge brings it
    /// back to a check. The nudge used to zero the counter, and the loop's own decrement wrote over
    /// that zero nearly every time: the runaway ran its whole countdown (a 2 s default limit ended
    /// at 4.1–4.5 s).
    func testATightLoopIsEndedByTheNudgeNotByItsCountdown() throws {
        let errors = captureErrors()
        for _ in 0..<3 {
            let name = uniqueScriptName()
            try apply("defineClass('PFFailing', { riskyValue: function() { while (true) {} } })", name: name)
            let started = threadCPUTime()
            var raised: Int32 = 0
            XCTAssertEqual(pf_failing_risky_value(&raised), 7, "the native caller got the original's result")
            XCTAssertLessThan(threadCPUTime() - started, 0.6, "ended near its 0.2 s limit, not at the end of its countdown")
            XCTAssertEqual(errors.errors.last?.kind, .timeout, "\(errors.errors)")
            XCTAssertEqual(errors.errors.last?.scriptName, name)
        }
    }

    /// Where the end is thrown by the tock (`limitsEndByException`) there is no arming to lose.
    private func skipWithoutTheWatchdog() throws {
        if PatchEngine.limitsEndByException { throw XCTSkip("no watchdog here: the tock throws the end, no arming of it can be lost") }
    }

    /// `-[PFFailing riskyValue]` called natively on a new thread (its CPU clock starts at zero),
    /// while this thread runs `meanwhile`: what the caller got and the CPU time the call took.
    private func riskyValueOnNewThread(meanwhile: () -> Void = {}) -> (result: Int32, cpu: Double) {
        nonisolated(unsafe) var result: Int32 = -1
        nonisolated(unsafe) var elapsed = 0.0
        let done = DispatchSemaphore(value: 0)
        Thread {
            let started = threadCPUTime()
            var raised: Int32 = 0
            result = pf_failing_risky_value(&raised)
            elapsed = threadCPUTime() - started
            done.signal()
        }.start()
        meanwhile()
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        return (result, elapsed)
    }

    /// A patched method whose loop spends each iteration in a slow builtin (≈ 1 ms of JSON.parse):
    /// 100,000 check points would take minutes, and builtins are not native calls the engine can
    /// count. The nudge makes its next check point the tock; the limit then ends it.
    func testALoopOfSlowBuiltinsIsEnded() throws {
        let errors = captureErrors()
        let name = uniqueScriptName()
        try apply("""
        var pfSlow = false, pfText = JSON.stringify(Array.from({ length: 20000 }, (_, i) => ({ i: i, s: 'x' + i })));
        defineClass('PFFailing', { riskyValue: function() {
          if (!pfSlow) return 1;
          var t0 = Date.now(), n = 0; while (Date.now() - t0 < 5000) n += JSON.parse(pfText).length; return 99 } })
        """, name: name)
        var raised: Int32 = 0
        XCTAssertEqual(pf_failing_risky_value(&raised), 1)   // a short entry: the next one is not armed at its start
        _ = try apply("pfSlow = true")
        let started = threadCPUTime()
        XCTAssertEqual(pf_failing_risky_value(&raised), 7, "the native caller got the original's result")
        XCTAssertLessThan(threadCPUTime() - started, 2.5, "ended by the limit once nudged, not after the 5 s it spins")
        XCTAssertEqual(errors.errors.filter { $0.kind == .timeout }.map(\.scriptName), [name], "\(errors.errors)")
    }
}
