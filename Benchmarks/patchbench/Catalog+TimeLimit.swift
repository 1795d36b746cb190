import Foundation
import PatchEngine
import PatchRuntime
import BenchFixtures

/// What the execution time limit (on by default: `PatchEngine.defaultExecutionTimeLimit`) costs a
/// patched call: the closure-route patched calls with the limit as the engine starts, against the
/// same calls with the limit off for the timed loop. The limit's cost per call is the thread's
/// entry record and JavaScriptCore's watchdog start at each outermost entry (docs/threads.md).
extension Catalog {
    static let timeLimitSection = "Objective-C calls a patched method, closure route: execution time limit on (the default) vs off"

    static func noLimitProbeID(_ call: PBCall) -> String { probeID(.patchedClosure, call) + ".nolimit" }

    mutating func addTimeLimitRows() {
        for call in [PBCallEmpty, PBCallConstant, PBCallObjectArgument] {
            let limited = Catalog.nativeCallProbe(.patchedClosure, call) {}
            add(Probe(id: Catalog.noLimitProbeID(call), summary: limited.summary + ", execution time limit off",
                      prepare: { try SubjectEnvironment.shared.patch(.patchedClosure, route: PERouteClosure) },
                      kind: .loop { n in
                          let limit = PatchEngine.executionTimeLimit
                          PatchEngine.executionTimeLimit = nil
                          defer { PatchEngine.executionTimeLimit = limit }
                          guard case let .loop(time) = limited.kind else { throw BenchError("not a loop probe") }
                          return try time(n)
                      }))
            row(Catalog.timeLimitSection, call.label + ": limit on vs off",
                subject: Catalog.probeID(.patchedClosure, call), floor: Catalog.noLimitProbeID(call))
        }
    }
}
