import Foundation
import CPatchEngine
import PatchRuntime
import PatchSupport

/// How much one entry into JS (an evaluation, a patched call, a hook, a block…) may grow the
/// process's memory before it is ended, like a runaway, with the original's result for a patched
/// call and its script reverted.
///
/// Why: JavaScriptCore ends only some growth itself. Dense arrays, typed arrays and strings end
/// with a `RangeError`, but a patch filling a sparse array reached 3 GB in 1.3 s (the OS kills the
/// app), and many small objects under an address-space cap aborted the process inside
/// JavaScriptCore's allocator. Its own maximum-heap option (`gcMaxHeapSize`) crashes the process.
///
/// How: the engine checks an entry at its check points' tocks and at the watchdog's deadlines it
/// sets from there (`ExecutionTimeLimit`), at the steps `check` gives, and ends it through
/// JavaScriptCore's watchdog (the only way to end running JS). What is measured is the process's
/// footprint (`PEProcessFootprint`: resident memory on Linux, `phys_footprint` on Apple), not
/// JavaScriptCore's heap: `JSGetMemoryUsageStatistics` walks every live object (0.2 ms with an
/// empty heap, 0.5 s with 17 M objects, measured) and doesn't count a sparse array's storage (its
/// heap size stayed at 96 MB while the process grew by 200 MB). The growth is counted from the
/// entry's first check (its first tock): reading the footprint at every entry would cost each
/// patched call a system call. Memory other threads allocate meanwhile counts too.
final class HeapGrowthLimit: @unchecked Sendable {
    /// The first check of a running entry and the shortest step between checks, in CPU seconds of
    /// its thread: growth of 2.3 GB/s (the sparse array) overshoots the budget by ≈ 25 MB at most.
    static let checkPeriod: TimeInterval = 0.01
    /// The longest step between checks. A check the watchdog makes is a JavaScriptCore trap, which
    /// in its signal mode (Apple's; Linux uses polling, PEPlatform.h) throws away the optimised code
    /// of the JS running (measured: JS method calls in a long loop 5–8× slower with a check every
    /// 10 ms), so an entry whose memory doesn't grow is checked rarely: the step is half
    /// the time the growth seen since the last check would take to reach the budget, within
    /// `checkPeriod`...`longestStep`.
    static let longestStep: TimeInterval = 0.16

    /// The budget in bytes (nil: off): set by the app on any thread, read at each check.
    private let budget = LockedValue<Int?>(nil)
    /// The entry measured, and the footprint at its first check; guarded by the API lock.
    private var measuredEntry: UInt64 = .max
    private var baseline: Int64 = 0
    /// The footprint and the entry's CPU time at its last check; guarded by the API lock.
    private var lastFootprint: Int64 = 0
    private var lastSpent: TimeInterval = 0

    /// The budget in bytes; nil: off. Setting it takes effect at `ExecutionTimeLimit.arm`.
    var bytes: Int? {
        get { budget.withLock { $0 } }
        set { budget.withLock { $0 = newValue.flatMap { $0 > 0 ? $0 : nil } } }
    }

    /// At a check of `entry` (the thread's outermost entry) after `spent` CPU seconds of it, under
    /// the API lock: `exceeded` when the footprint grew past the budget since the entry's first
    /// check, else the CPU time until the next check (nil when the limit is off).
    func check(entry: UInt64, spent: TimeInterval) -> (exceeded: HeapGrowthExceeded?, next: TimeInterval?) {
        guard let budget = bytes else { return (nil, nil) }
        let now = PEProcessFootprint()
        guard now >= 0 else { return (nil, Self.longestStep) }
        if entry != measuredEntry {
            (measuredEntry, baseline, lastFootprint, lastSpent) = (entry, now, now, spent)
            return (nil, Self.checkPeriod)
        }
        let grown = now - baseline
        if grown > Int64(budget) { return (HeapGrowthExceeded(grown: Int(grown), allowed: budget), nil) }
        let rate = Double(max(0, now - lastFootprint)) / max(spent - lastSpent, 1e-6)
        (lastFootprint, lastSpent) = (now, spent)
        let untilBudget = rate > 0 ? Double(Int64(budget) - grown) / rate : .infinity
        return (nil, min(Self.longestStep, max(Self.checkPeriod, untilBudget / 2)))
    }
}

/// An entry into JS grew the process's memory past `PatchEngine.heapGrowthLimit`.
struct HeapGrowthExceeded: Equatable, Sendable {
    let grown: Int
    let allowed: Int

    /// "<what> grew the app's memory by 270 MB, more than the 256 MB allowed". The growth is
    /// rounded up, so it never reads as the budget itself.
    func message(for what: String) -> String {
        "\(what) grew the app's memory by \(Self.megabytes(grown, .up)) MB, more than the \(Self.megabytes(allowed, .down)) MB allowed (heapGrowthLimit)"
    }

    /// Whole megabytes from 10 MB on, tenths below.
    static func megabytes(_ bytes: Int, _ rule: FloatingPointRoundingRule) -> String {
        let value = Double(bytes) / 1_048_576
        if value >= 10 { return String(Int(value.rounded(rule))) }
        let tenths = (value * 10).rounded(rule) / 10
        return tenths == tenths.rounded() ? String(Int(tenths)) : String(format: "%.1f", tenths)
    }
}
