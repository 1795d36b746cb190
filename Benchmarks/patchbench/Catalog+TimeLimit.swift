import Foundation
import PatchEngine
import PatchRuntime
import BenchFixtures

/// What the execution time limit (off by default; `recommendedExecutionTimeLimit` when an app
/// opts in) costs a patched call: the closure-route patched calls with the recommended limit set
/// for the timed loop, against the same calls as the engine starts (no limit). The limit's cost
/// per call is the thread's entry record and JavaScriptCore's watchdog start at each outermost
/// entry (docs/threads.md).
extension Catalog {
    static let timeLimitSection = "Objective-C calls a patched method, closure route: execution time limit on vs off (the default)"

    static func limitProbeID(_ call: PBCall) -> String { probeID(.patchedClosure, call) + ".limit" }

    mutating func addTimeLimitRows() {
        for call in [PBCallEmpty, PBCallConstant, PBCallObjectArgument] {
            let unlimited = Catalog.nativeCallProbe(.patchedClosure, call) {}
            add(Probe(id: Catalog.limitProbeID(call), summary: unlimited.summary + ", execution time limit on",
                      prepare: { try SubjectEnvironment.shared.patch(.patchedClosure, route: PERouteClosure) },
                      kind: .loop { n in
                          let limit = PatchEngine.executionTimeLimit
                          PatchEngine.executionTimeLimit = PatchEngine.recommendedExecutionTimeLimit
                          defer { PatchEngine.executionTimeLimit = limit }
                          guard case let .loop(time) = unlimited.kind else { throw BenchError("not a loop probe") }
                          return try time(n)
                      }))
            row(Catalog.timeLimitSection, call.label + ": limit on vs off",
                subject: Catalog.limitProbeID(call), floor: Catalog.probeID(.patchedClosure, call))
        }
    }
}
