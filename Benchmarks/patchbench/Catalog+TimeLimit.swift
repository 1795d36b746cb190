import Foundation
import PatchEngine
import PatchRuntime
import BenchFixtures

/// What the engine's watchdog bounds cost a patched call. Both are on by default (the execution
/// time limit, 2.0 s; the heap growth limit, 256 MB) and run on one JavaScriptCore watchdog, whose
/// cost per call is its start at each outermost entry (a read of the thread's CPU clock;
/// docs/threads.md, docs/limits.md). So turning one off alone gives nothing back: the rows compare
/// the closure-route patched calls as the engine starts (both on), and with the heap growth limit
/// alone, against the same calls with neither (no watchdog) for the timed loop.
extension Catalog {
    static let timeLimitSection = "Objective-C calls a patched method, closure route: execution time and heap growth limits on (the default) vs off"

    static func noWatchdogProbeID(_ call: PBCall) -> String { probeID(.patchedClosure, call) + ".nowatchdog" }
    static func heapLimitOnlyProbeID(_ call: PBCall) -> String { probeID(.patchedClosure, call) + ".heaplimitonly" }

    mutating func addTimeLimitRows() {
        for call in [PBCallEmpty, PBCallConstant, PBCallObjectArgument] {
            addPatchedCallProbe(call, id: Catalog.noWatchdogProbeID(call), summary: "neither limit (no watchdog)") {
                let (time, heap) = (PatchEngine.executionTimeLimit, PatchEngine.heapGrowthLimit)
                PatchEngine.executionTimeLimit = nil
                PatchEngine.heapGrowthLimit = nil
                return { PatchEngine.executionTimeLimit = time; PatchEngine.heapGrowthLimit = heap }
            }
            addPatchedCallProbe(call, id: Catalog.heapLimitOnlyProbeID(call), summary: "heap growth limit only") {
                let time = PatchEngine.executionTimeLimit
                PatchEngine.executionTimeLimit = nil
                return { PatchEngine.executionTimeLimit = time }
            }
            row(Catalog.timeLimitSection, call.label + ": both on vs off",
                subject: Catalog.probeID(.patchedClosure, call), floor: Catalog.noWatchdogProbeID(call))
            row(Catalog.timeLimitSection, call.label + ": heap growth limit alone vs off",
                subject: Catalog.heapLimitOnlyProbeID(call), floor: Catalog.noWatchdogProbeID(call))
        }
    }

    /// The closure-route patched `call` with settings changed for its timed loop: `change` changes
    /// them and returns what puts them back.
    private mutating func addPatchedCallProbe(_ call: PBCall, id: String, summary: String,
                                              change: @escaping () -> () -> Void) {
        let defaults = Catalog.nativeCallProbe(.patchedClosure, call) {}
        add(Probe(id: id, summary: defaults.summary + ", " + summary,
                  prepare: { try SubjectEnvironment.shared.patch(.patchedClosure, route: PERouteClosure) },
                  kind: .loop { n in
                      let restore = change()
                      defer { restore() }
                      guard case let .loop(time) = defaults.kind else { throw BenchError("not a loop probe") }
                      return try time(n)
                  }))
    }
}
