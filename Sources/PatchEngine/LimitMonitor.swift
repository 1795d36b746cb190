import CPatchEngine
import Foundation
import PatchSupport

/// The limits' backstop: one thread per process that looks at every VM's entry stamp a few times
/// a second and makes an entry that has stayed open too long run its check at once.
///
/// Why: an entry is judged only at its tock (after 100,000 check points) and then by
/// JavaScriptCore's watchdog, which the tock arms. Two things would leave a runaway running: an
/// entry whose check points come too slowly to reach a tock (a loop of slow builtin calls), and
/// a watchdog that does not end it when it should (JavaScriptCore keeps one CPU deadline per VM:
/// one armed with another thread's clock postponed the check, `ExecutionTimeLimit.isShared`;
/// other such holes are what this is for). Either way the entry stays open and its
/// stamp (`ExecutionTimeLimit.stamp`, its number, stored at its start) does not change.
///
/// What it does is one store: the VM's check-point counter set to 0 (`nudge`), from this thread,
/// without any lock. The entry's next check point then calls the tock on its own thread, which
/// judges it by its own CPU clock, ends it if it is past a bound and otherwise arms the watchdog
/// again (a fresh timer). An innocent entry that is merely long pays a tock (≈ 1 µs) after
/// `nudgeAfter` and then one per `period` (`look`); an entry shorter than that is never touched,
/// and an entry costs nothing more than the store of its stamp.
///
/// Wall time, not CPU time: a nudge is a request to check, and the check measures CPU time; a
/// busy machine only makes nudges come early. Not covered: a single builtin call that runs long
/// before its entry's first tock has no check point to take the nudge (docs/limits.md).
final class LimitMonitor: @unchecked Sendable {
    static let shared = LimitMonitor()

    /// How often the thread looks (seconds).
    static let period: TimeInterval = 0.1
    /// How long an entry stays open before it is nudged (and again after as long): half the
    /// time limit, at least 0.5 s (a tock inside a loop JavaScriptCore optimised recompiles it,
    /// `ExecutionTimeLimit.armAtStart`: only entries this long pay for that); 1 s when only the
    /// heap growth limit is on.
    static func nudgeAfter(limit: TimeInterval?) -> TimeInterval {
        max(0.5, (limit ?? 2) / 2)
    }

    private struct Watched {
        let limit: ExecutionTimeLimit
        var stamp: UInt64 = 0
        var since: TimeInterval = 0
        /// Nudged already: nudged again at every look until the entry ends.
        var nudged = false
    }
    private let watched = LockedValue<[Watched]>([])
    private let started = LockedValue(false)

    /// Watches `limit`'s VM from now on (VMs live as long as the process).
    func watch(_ limit: ExecutionTimeLimit) {
        watched.withLock { $0.append(Watched(limit: limit)) }
        let start = started.withLock { started -> Bool in
            defer { started = true }
            return !started
        }
        if start {
            let thread = Thread { [self] in run() }
            thread.name = "PatchEngine limit monitor"
            // Not a low priority: a backstop starved by the load it should cut short fails open
            // (its work is a few microseconds ten times a second).
            thread.qualityOfService = .userInitiated
            thread.start()
        }
    }

    private func run() {
        while true {
            Thread.sleep(forTimeInterval: Self.period)
            look(now: ProcessInfo.processInfo.systemUptime)
        }
    }

    /// One look at every VM: an entry open with the same stamp for `nudgeAfter` is nudged, and
    /// then at every look while it stays open. Why again: the nudge is a plain store, and the
    /// running JS's own decrement of the counter (a load and a store) can write over it — one
    /// such loss cost a runaway 0.5 s more before, now `period`.
    func look(now: TimeInterval) {
        watched.withLock { list in
            for index in list.indices {
                let limit = list[index].limit
                guard limit.hasOpenEntry, limit.boundsOn else {
                    list[index].stamp = 0
                    list[index].nudged = false
                    continue
                }
                let stamp = limit.stampedEntry
                if stamp != list[index].stamp {
                    list[index].stamp = stamp
                    list[index].since = now
                    list[index].nudged = false
                } else if list[index].nudged || now - list[index].since >= Self.nudgeAfter(limit: limit.seconds) {
                    limit.nudge()
                    list[index].since = now
                    list[index].nudged = true
                }
            }
        }
    }
}
