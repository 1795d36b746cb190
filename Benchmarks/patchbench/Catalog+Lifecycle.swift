import Foundation
import PatchEngine
import BenchFixtures

/// Issue 9's lifecycle rows: applying and reverting patches of many methods (target 5) and what
/// memory is left behind (target 6).
extension Catalog {
    static func addLifecycleRows(to catalog: inout Catalog, settings: BenchSettings) {
        // Target 5: the time to apply (evaluate) and revert a patch overriding every method of a
        // generated class, for two method counts; linear when the ratio is about large ÷ small.
        // The other step (revert, or apply) and a collection run untimed between two timed steps,
        // so a step is not charged for collecting the garbage of the step before it.
        let counts = settings.patchMethodCounts
        var patches: [Int: ManyMethodsPatch] = [:]
        for count in [counts.small, counts.large] {
            let patch = ManyMethodsPatch(count: count, className: "PBMany\(count)", scriptName: "many-methods-\(count).js")
            patches[count] = patch
            catalog.add(Probe(id: "patch.apply.\(count)",
                              summary: "PatchEngine.evaluate of a script overriding all \(count) methods of one class",
                              display: .duration, prepare: { try patch.prepare() }, kind: .loop { n in
                var elapsed: UInt64 = 0
                for _ in 0..<n {
                    let start = pb_now_ns()
                    try patch.apply()
                    elapsed += pb_now_ns() - start
                    try patch.revert()
                    PatchEngine.collectGarbage(droppingCompiledCode: false)
                }
                return elapsed
            }))
            catalog.add(Probe(id: "patch.revert.\(count)",
                              summary: "PatchEngine.revert of the script overriding all \(count) methods",
                              display: .duration, prepare: { try patch.prepare() }, kind: .loop { n in
                var elapsed: UInt64 = 0
                for _ in 0..<n {
                    try patch.apply()
                    PatchEngine.collectGarbage(droppingCompiledCode: false)
                    let start = pb_now_ns()
                    try patch.revert()
                    elapsed += pb_now_ns() - start
                }
                return elapsed
            }))
        }
        let linear = String(format: "%.1f", 1.1 * Double(counts.large) / Double(counts.small))
        let section = "Patch of many methods: \(counts.large) vs \(counts.small) overridden methods (linear: ratio ≤ \(linear))"
        catalog.row(section, "apply (evaluate) \(counts.large) vs \(counts.small) methods",
                    subject: "patch.apply.\(counts.large)", floor: "patch.apply.\(counts.small)")
        catalog.row(section, "revert \(counts.large) vs \(counts.small) methods",
                    subject: "patch.revert.\(counts.large)", floor: "patch.revert.\(counts.small)")

        // Target 6: memory, in fresh processes.
        let executable = settings.childExecutable
        let objects = settings.memoryObjects, cycles = settings.memoryCycles
        catalog.add(CountProbe(id: "memory.objects",
                               summary: "\(objects) Objective-C objects passed to JS and dropped, then collectGarbage() (fresh process)") {
            try MemoryProbes.measureInChild(.objects, count: objects, executable: executable)
        })
        let objectsSection = "Memory: \(CountResult.grouped(Double(objects))) Objective-C objects passed to JS and dropped, then PatchEngine.collectGarbage()"
        catalog.countRow(objectsSection, "deallocated (counted in -dealloc)", probe: "memory.objects", key: "deallocated",
                         unit: .count, target: .equalTo(key: "created", what: "all created"))
        catalog.countRow(objectsSection, "resident memory after vs before", probe: "memory.objects",
                         key: "residentGrowthPercent", unit: .percent, target: .atMost(10))

        catalog.add(CountProbe(id: "memory.cycles",
                               summary: "\(cycles) apply/revert cycles of a patch of \(MemoryProbes.cycledMethods) methods (fresh process)") {
            try MemoryProbes.measureInChild(.cycles, count: cycles, executable: executable)
        })
        let mark = max(1, cycles / 10)
        let cyclesSection = "Memory: \(CountResult.grouped(Double(cycles))) apply/revert cycles of a patch of \(MemoryProbes.cycledMethods) methods"
        catalog.countRow(cyclesSection, "IMPs not as before after a revert (all cycles)", probe: "memory.cycles",
                         key: "impsNotRestored", unit: .count, target: .atMost(0))
        catalog.countRow(cyclesSection, "resident memory, cycle \(CountResult.grouped(Double(mark))) → \(CountResult.grouped(Double(cycles)))",
                         probe: "memory.cycles", key: "residentGrowthPercent", unit: .percent, target: .atMost(5))
        catalog.countRow(cyclesSection, "kept per cycle over that span", probe: "memory.cycles",
                         key: "kilobytesPerCycle", unit: .kilobytes, target: .none)
        // One record kept per cycle is ≥ 32 bytes of the C allocator's; a table's one resize in the
        // span, a few.
        catalog.countRow(cyclesSection, "C allocator's bytes in use kept per cycle", probe: "memory.cycles",
                         key: "mallocBytesPerCycle", unit: .bytes, target: .atMost(8))

        // A VM per thread running JS (docs/threads.md): what each secondary VM costs.
        let vms = 4
        catalog.add(CountProbe(id: "memory.vms",
                               summary: "\(vms) secondary VMs made with a 20-method patch replayed into each (fresh process)") {
            try MemoryProbes.measureInChild(.vms, count: vms, executable: executable)
        })
        catalog.countRow("Memory: \(vms) secondary VMs (PatchEngine.prepareVMs), a 20-method patch replayed into each",
                         "resident memory per VM", probe: "memory.vms", key: "kilobytesPerVM", unit: .kilobytes, target: .none)

        // What a patched method costs when no secondary VM exists (its per-VM table is made only
        // when a replay binds it: JSMethod).
        let methods = 1_000
        catalog.add(CountProbe(id: "memory.methods", summary: "a patch of \(methods) methods applied (fresh process)") {
            try MemoryProbes.measureInChild(.methods, count: methods, executable: executable)
        })
        catalog.countRow("Memory: a patch of \(CountResult.grouped(Double(methods))) methods applied, no secondary VM",
                         "resident memory per patched method", probe: "memory.methods", key: "kilobytesPerMethod",
                         unit: .kilobytes, target: .none)
        catalog.countRow("Memory: a patch of \(CountResult.grouped(Double(methods))) methods applied, no secondary VM",
                         "C allocator's bytes in use per patched method", probe: "memory.methods", key: "mallocKilobytesPerMethod",
                         unit: .kilobytes, target: .none)
    }
}
