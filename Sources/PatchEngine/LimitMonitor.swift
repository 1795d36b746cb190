import CPatchEngine
import Foundation
import PatchSupport

/// The limits' clock: one thread per process that decides when a long entry into JS is checked,
/// watches the memory those entries grow, and brings to a check an entry that stays open too long
/// without one.
///
/// Why a thread of its own: JavaScriptCore's watchdog could time the checks, but its timers are
/// never cancelled and a check it starts from inside its own trap handling (its callback setting
/// the next deadline, or JavaScriptCore re-arming a deadline the thread's CPU clock had not yet
/// reached) can fire while that handling still runs, which JavaScriptCore 2.50 answers with an
/// abort on its timer thread (docs/limits.md, "The watchdog only ends"). So the watchdog is armed
/// only to end an entry, and everything periodic is here.
///
/// What it does to a running entry is one store: the threshold of the VM's check points raised
/// past the counter (`nudge`, `PECheckPointsNudge`), without any lock. The entry's next check point then calls the tock on its own thread, which
/// judges it by its own CPU clock and ends it if it is past a bound. Three reasons to nudge:
/// - **Time**: a measured entry's `due` (wall-clock uptime) has passed. The tock sets it to now
///   plus the CPU time the entry has left; wall time runs at least as fast as a thread's CPU time,
///   so a check never comes late, and on a busy machine the tock just sets the next one.
/// - **Memory**: the process's footprint grew past the heap growth limit since the entry was first
///   looked at (`baseline`, read here, not on the entry's thread). Looked at every `heapPeriod`
///   while such an entry is open; no nudge while it is within the budget, so a long loop that
///   allocates little is never interrupted (a tock inside a loop JavaScriptCore optimised makes it
///   compile the loop again, slower: `ExecutionTimeLimit.armAtStart`).
/// - **Backstop**: an entry not measured yet (it has not reached its first tock: check points that
///   come slowly, as in a loop of slow builtins) whose VM stamp has stayed for `nudgeAfter`.
/// A nudge is repeated at every look while its reason holds (the tock that takes it clears it).
///
/// Not covered: a single builtin call that runs long has no check point to take the nudge until
/// it returns (docs/limits.md).
final class LimitMonitor: @unchecked Sendable {
    static let shared = LimitMonitor()

    /// How often the thread looks when no measured entry has the heap growth limit on (seconds).
    static let period: TimeInterval = 0.1
    /// How often it looks at the footprint while a measured entry has the heap growth limit on: a
    /// growth of 2.3 GB/s (a sparse array, `HeapGrowthLimit`) overshoots the budget by ≈ 25 MB.
    static let heapPeriod: TimeInterval = 0.01
    /// How long an entry not measured yet stays open before it is nudged (and again after as
    /// long): half the time limit, at least 0.5 s; 1 s when only the heap growth limit is on.
    static func nudgeAfter(limit: TimeInterval?) -> TimeInterval {
        max(0.5, (limit ?? 2) / 2)
    }

    /// A VM, for the backstop.
    private struct Watched {
        let limit: ExecutionTimeLimit
        var stamp: UInt64 = 0
        var since: TimeInterval = 0
        /// Nudged already: nudged again at every look until the entry ends.
        var nudged = false
    }
    /// An entry measured since its first tock (or its start: `ExecutionTimeLimit.armAtStart`).
    private struct Measured {
        let limit: ExecutionTimeLimit
        let entry: UInt64
        /// When its time is checked next (uptime); infinity with no time limit.
        var due: TimeInterval
        /// The footprint at the first look after it was measured (heap growth limit on).
        var baseline: Int64?
        /// Set once it grew past the budget; the tock reads it (`heapExceeded`).
        var exceeded: HeapGrowthExceeded?
    }
    private struct State {
        var watched: [Watched] = []
        var measured: [Measured] = []
        var started = false
    }
    /// The state, and the monitor's wait: a new entry measured wakes it (its baseline is read at once).
    private let condition = NSCondition()
    private var state = State()

    private func withState<R>(_ body: (inout State) -> R) -> R {
        condition.lock()
        defer { condition.unlock() }
        return body(&state)
    }

    static var uptime: TimeInterval { ProcessInfo.processInfo.systemUptime }

    /// Watches `limit`'s VM from now on (VMs live as long as the process).
    func watch(_ limit: ExecutionTimeLimit) {
        let start = withState { state -> Bool in
            state.watched.append(Watched(limit: limit))
            defer { state.started = true }
            return !state.started
        }
        if start {
            let thread = Thread { [self] in run() }
            thread.name = "PatchEngine limit monitor"
            // Not a low priority: a monitor starved by the load it should cut short fails open
            // (its work is a few microseconds a look).
            thread.qualityOfService = .userInitiated
            thread.start()
        }
    }

    /// `entry` of `limit`'s VM is measured from now on, its time checked at `due`.
    func measure(_ limit: ExecutionTimeLimit, entry: UInt64, due: TimeInterval) {
        withState { state in
            state.measured.removeAll { $0.limit === limit && $0.entry == entry }
            state.measured.append(Measured(limit: limit, entry: entry, due: due))
        }
        condition.signal()
    }

    /// The next time check of a measured entry.
    func reschedule(_ limit: ExecutionTimeLimit, entry: UInt64, due: TimeInterval) {
        let earlier = withState { state -> Bool in
            guard let index = state.measured.firstIndex(where: { $0.limit === limit && $0.entry == entry }) else { return false }
            defer { state.measured[index].due = due }
            return due < state.measured[index].due
        }
        if earlier { condition.signal() }
    }

    /// Whether a measured entry grew the footprint past the budget.
    func heapExceeded(_ limit: ExecutionTimeLimit, entry: UInt64) -> HeapGrowthExceeded? {
        withState { state in state.measured.first { $0.limit === limit && $0.entry == entry }?.exceeded }
    }

    /// How many entries of `limit`'s VM are measured (for tests).
    func measuredCount(of limit: ExecutionTimeLimit) -> Int {
        withState { state in state.measured.filter { $0.limit === limit }.count }
    }

    /// The entry ended.
    func forget(_ limit: ExecutionTimeLimit, entry: UInt64) {
        withState { state in state.measured.removeAll { $0.limit === limit && $0.entry == entry } }
    }

    private func run() {
        condition.lock()
        while true {
            let now = Self.uptime
            let next = look(now: now)
            _ = condition.wait(until: Date(timeIntervalSinceNow: max(0, next - now)))
        }
    }

    /// One look at every measured entry and every VM, under `condition`'s lock: nudges what is due
    /// and returns when to look next.
    private func look(now: TimeInterval) -> TimeInterval {
        var next = now + Self.period
        var footprint: Int64?
        for index in state.measured.indices {
            let measured = state.measured[index]
            let budget = measured.limit.heapGrowth.bytes
            // Both bounds turned off while it runs: nothing to check.
            guard budget != nil || measured.limit.seconds != nil else { continue }
            var due = measured.due <= now
            if let budget {
                next = min(next, now + Self.heapPeriod)
                let current = footprint ?? PEProcessFootprint()
                footprint = current
                if current >= 0 {
                    if let baseline = measured.baseline {
                        let grown = current - baseline
                        if grown > Int64(budget) {
                            state.measured[index].exceeded = HeapGrowthExceeded(grown: Int(grown), allowed: budget)
                        }
                    } else {
                        state.measured[index].baseline = current
                    }
                }
                due = due || state.measured[index].exceeded != nil
            }
            if due { measured.limit.nudge() } else { next = min(next, measured.due) }
        }
        for index in state.watched.indices {
            let limit = state.watched[index].limit
            guard limit.hasOpenEntry, limit.boundsOn else {
                state.watched[index].stamp = 0
                state.watched[index].nudged = false
                continue
            }
            let stamp = limit.stampedEntry
            // A measured entry's checks come from above (in a VM shared by threads, another
            // thread's entry there may not be measured yet: watched as before).
            let measured = !limit.isShared && state.measured.contains { $0.limit === limit && $0.entry == stamp }
            if measured || stamp != state.watched[index].stamp {
                state.watched[index].stamp = stamp
                state.watched[index].since = now
                state.watched[index].nudged = false
            } else if state.watched[index].nudged || now - state.watched[index].since >= Self.nudgeAfter(limit: limit.seconds) {
                limit.nudge()
                state.watched[index].since = now
                state.watched[index].nudged = true
            }
        }
        return next
    }
}
