import Foundation
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
/// How: the limits' monitor (`LimitMonitor`, its own thread) reads the footprint every 10 ms
/// while an entry it measures (one that reached its first tock, `ExecutionTimeLimit`) is open, and
/// nudges an entry that grew it past the budget to its next check point, whose tock ends it through
/// JavaScriptCore's watchdog (the only way to end running JS). What is measured is the process's
/// footprint (`PEProcessFootprint`: resident memory on Linux, `phys_footprint` on Apple), not
/// JavaScriptCore's heap: `JSGetMemoryUsageStatistics` walks every live object (0.2 ms with an
/// empty heap, 0.5 s with 17 M objects, measured) and doesn't count a sparse array's storage (its
/// heap size stayed at 96 MB while the process grew by 200 MB). The growth is counted from the
/// monitor's first look at the entry (at once: a new measure wakes it): reading the footprint at
/// every entry would cost each patched call a system call. Memory other threads allocate
/// meanwhile counts too.
final class HeapGrowthLimit: @unchecked Sendable {
    /// The budget in bytes (nil: off): set by the app on any thread, read at each look.
    private let budget = LockedValue<Int?>(nil)

    /// The budget in bytes; nil: off. Setting it takes effect at `ExecutionTimeLimit.arm`.
    var bytes: Int? {
        get { budget.withLock { $0 } }
        set { budget.withLock { $0 = newValue.flatMap { $0 > 0 ? $0 : nil } } }
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
