import Foundation
import PatchEngine
import PatchRuntime
import BenchFixtures

/// What the engine's bounds cost a patched call. Both are on by default (the execution time limit,
/// 2.0 s; the heap growth limit, 256 MB). Until issue 32 they cost each call JavaScriptCore's
/// watchdog start at its outermost entry (a read of the thread's CPU clock); now an entry does one
/// store and the watchdog is armed only inside long entries (docs/limits.md, "Check points"). The
/// rows compare the closure-route patched calls as the engine starts (both on), and with the heap
/// growth limit alone, against the same calls with neither for the timed loop.
extension Catalog {
    static let timeLimitSection = "Objective-C calls a patched method, closure route: execution time and heap growth limits on (the default) vs off"
    static let limitsOffFloorSection = "Both limits off (no watchdog), against the same floors as the default rows (issue 32: the cost of the limits)"

    static func noWatchdogProbeID(_ call: PBCall) -> String { probeID(.patchedClosure, call) + ".nowatchdog" }
    static func heapLimitOnlyProbeID(_ call: PBCall) -> String { probeID(.patchedClosure, call) + ".heaplimitonly" }
    static func limitsOffJSLoopID(_ loop: JSDriver.Loop) -> String { "js.\(loop.rawValue).nowatchdog" }

    mutating func addTimeLimitRows() {
        for call in [PBCallEmpty, PBCallConstant, PBCallObjectArgument] {
            let defaults = Catalog.nativeCallProbe(.patchedClosure, call) {}
            let prepare = { try SubjectEnvironment.shared.patch(.patchedClosure, route: PERouteClosure) }
            add(Catalog.withLimitsChanged(defaults, id: Catalog.noWatchdogProbeID(call), summary: "neither limit (no watchdog)",
                                          prepare: prepare, change: Catalog.bothLimitsOff))
            add(Catalog.withLimitsChanged(defaults, id: Catalog.heapLimitOnlyProbeID(call), summary: "heap growth limit only",
                                          prepare: prepare) {
                let time = PatchEngine.executionTimeLimit
                PatchEngine.executionTimeLimit = nil
                return { PatchEngine.executionTimeLimit = time }
            })
            row(Catalog.timeLimitSection, call.label + ": both on vs off",
                subject: Catalog.probeID(.patchedClosure, call), floor: Catalog.noWatchdogProbeID(call))
            row(Catalog.timeLimitSection, call.label + ": heap growth limit alone vs off",
                subject: Catalog.heapLimitOnlyProbeID(call), floor: Catalog.noWatchdogProbeID(call))
        }
        for call in [PBCallEmpty, PBCallConstant, PBCallObjectArgument] {
            row(Catalog.limitsOffFloorSection, "Objective-C calls a patched " + call.label + ", limits off, vs the JavaScriptCore floor",
                subject: Catalog.noWatchdogProbeID(call), floor: Catalog.jsFloorProbeID(call))
        }
        // JS → Objective-C and JS → JS-defined loops run inside one entry: the watchdog starts
        // once per loop, not per call, so these rows show whether the limits cost anything else
        // (the heap growth limit's checks are traps the loop's code polls).
        for (loop, call) in Catalog.jsCalls {
            add(Catalog.withLimitsChanged(Catalog.jsLoopProbe(loop), id: Catalog.limitsOffJSLoopID(loop),
                                          summary: "neither limit (no watchdog)", prepare: { try JSDriver.prepare() },
                                          change: Catalog.bothLimitsOff))
            row(Catalog.limitsOffFloorSection, "JS calls " + call.label + ", limits off, vs JSC host call + direct IMP call",
                subject: Catalog.limitsOffJSLoopID(loop), floor: Catalog.hostFloorID(call))
        }
        add(Catalog.withLimitsChanged(Catalog.jsLoopProbe(.jsDefined), id: Catalog.limitsOffJSLoopID(.jsDefined),
                                      summary: "neither limit (no watchdog)", prepare: { try JSDriver.prepare() },
                                      change: Catalog.bothLimitsOff))
        row(Catalog.limitsOffFloorSection, "JS calls a method defined in JS from a plain JS loop, limits off, vs a plain JS method call (this process)",
            subject: Catalog.limitsOffJSLoopID(.jsDefined), floor: "jsfloor.method")
    }

    /// Turns both limits off; returns what puts them back.
    static func bothLimitsOff() -> () -> Void {
        let (time, heap) = (PatchEngine.executionTimeLimit, PatchEngine.heapGrowthLimit)
        PatchEngine.executionTimeLimit = nil
        PatchEngine.heapGrowthLimit = nil
        return { PatchEngine.executionTimeLimit = time; PatchEngine.heapGrowthLimit = heap }
    }

    /// `probe`'s loop with settings changed for its timed runs: `change` changes them and returns
    /// what puts them back.
    static func withLimitsChanged(_ probe: Probe, id: String, summary: String, prepare: @escaping () throws -> Void,
                                  change: @escaping () -> () -> Void) -> Probe {
        Probe(id: id, summary: probe.summary + ", " + summary, prepare: prepare, kind: .loop { n in
            let restore = change()
            defer { restore() }
            guard case let .loop(time) = probe.kind else { throw BenchError("not a loop probe") }
            return try time(n)
        })
    }
}
