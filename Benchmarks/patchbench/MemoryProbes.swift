import Foundation
import PatchEngine
import BenchFixtures

/// The memory rows of issue 9 (target 6), each run in a fresh process so resident memory is the
/// probe's alone: the parent spawns `patchbench --memory-only <mode> --memory-count N`, the child
/// prints the values it measured as JSON.
enum MemoryProbes {
    enum Mode: String, CaseIterable {
        /// N Objective-C objects passed to JS and dropped, then PatchEngine.collectGarbage().
        case objects
        /// N apply/revert cycles of a patch of a few methods.
        case cycles
        /// N secondary VMs made, with a 20-method patch replayed into each.
        case vms
        /// A patch of N methods applied (no secondary VM made).
        case methods
    }

    /// Methods of the class the cycles patch.
    static let cycledMethods = 8

    /// Runs in the child.
    static func measureInProcess(_ mode: Mode, count: Int) throws -> [String: Double] {
        guard count > 0 else { throw BenchError("--memory-count must be positive") }
        pb_prepare_process()
        switch mode {
        case .objects: return try droppedObjects(count)
        case .cycles: return try applyRevertCycles(count)
        case .vms: return try secondaryVMs(count)
        case .methods: return try patchedMethods(count)
        }
    }

    /// A patch overriding `count` methods of a generated class, applied once in a process that has
    /// applied a small one (engine start, first-use work and `defineClass`'s code are before
    /// "before"): what each patched method adds to resident memory — its record, its JS function,
    /// the runtime's slot. Its first application is this one: a patch applied and reverted before
    /// would leave freed records for the next to reuse.
    private static func patchedMethods(_ count: Int) throws -> [String: Double] {
        let warmUp = ManyMethodsPatch(count: 10, className: "PBMethodsWarmUp", scriptName: "memory-methods-warmup.js")
        try warmUp.prepare()
        try warmUp.apply()
        let className = "PBMethods\(count)"
        guard pb_many_methods_class(className, UInt32(count)) != nil else { throw BenchError("cannot make \(className)") }
        PatchEngine.collectGarbage()
        let (before, mallocBefore) = (pb_resident_bytes(), pb_malloc_bytes())
        try PatchEngine.evaluate(ManyMethodsPatch.script(className: className, count: count), name: "memory-methods.js")
        PatchEngine.collectGarbage()
        let (after, mallocAfter) = (pb_resident_bytes(), pb_malloc_bytes())
        guard before > 0 else { throw BenchError("resident memory is not readable here") }
        return ["methods": Double(count), "residentBeforeBytes": Double(before), "residentAfterBytes": Double(after),
                "kilobytesPerMethod": (Double(after) - Double(before)) / Double(count) / 1024,
                // The native side alone (records, slots, tables; not the JS heap): less noisy.
                "mallocKilobytesPerMethod": (Double(mallocAfter) - Double(mallocBefore)) / Double(count) / 1024]
    }

    /// `PatchEngine.prepareVMs(count)` after the engine started and applied a 20-method patch:
    /// what each VM adds to resident memory (its heap, runtime.js, the replayed patch).
    private static func secondaryVMs(_ count: Int) throws -> [String: Double] {
        _ = try PatchEngine.evaluate(EngineStart.secondaryPatch, name: "memory-vms.js")
        PatchEngine.maximumVMs = count + 1
        PatchEngine.collectGarbage()
        let before = pb_resident_bytes()
        PatchEngine.prepareVMs(count)
        PatchEngine.collectGarbage()
        let after = pb_resident_bytes()
        guard before > 0 else { throw BenchError("resident memory is not readable here") }
        guard PatchEngine.vmCount == count + 1 else { throw BenchError("prepareVMs(\(count)) left \(PatchEngine.vmCount) VMs, expected \(count + 1)") }
        return ["vms": Double(count), "vmCount": Double(PatchEngine.vmCount),
                "residentBeforeBytes": Double(before), "residentAfterBytes": Double(after),
                "kilobytesPerVM": (Double(after) - Double(before)) / Double(count) / 1024]
    }

    /// `PBCounted.make()` in a JS loop: each result is boxed for JS and dropped at once.
    private static func droppedObjects(_ count: Int) throws -> [String: Double] {
        func loop(_ n: Int) -> String {
            "require('PBCounted'); (function (n) { for (var i = 0; i < n; i++) PBCounted.make(); })(\(n));"
        }
        // One evaluation makes every object: on a slow host that is more CPU than the default
        // time limit, which this row doesn't measure (the heap growth limit stays on).
        PatchEngine.executionTimeLimit = 60
        // Warm-up with the same code: the engine's start, the JIT's code for the loop (its top
        // tier compiles after some 100,000 iterations: 2–4 MB, once) and the heap's first blocks
        // are where "before" is measured from, not part of what the row charges.
        try PatchEngine.evaluate(loop(min(count, 200_000)), name: "memory-objects-warmup.js")
        PatchEngine.collectGarbage()
        let created0 = pb_counted_created(), deallocated0 = pb_counted_deallocated()
        let before = pb_resident_bytes()
        try PatchEngine.evaluate(loop(count), name: "memory-objects.js")
        let peak = pb_resident_bytes()
        PatchEngine.collectGarbage()
        let after = pb_resident_bytes()
        let created = pb_counted_created() - created0, deallocated = pb_counted_deallocated() - deallocated0
        guard created == UInt64(count) else {
            throw BenchError("the JS loop created \(created) PBCounted objects, expected \(count)")
        }
        guard before > 0 else { throw BenchError("resident memory is not readable here") }
        return [
            "objects": Double(count), "created": Double(created), "deallocated": Double(deallocated),
            "residentBeforeBytes": Double(before), "residentPeakBytes": Double(peak), "residentAfterBytes": Double(after),
            "residentGrowthPercent": (Double(after) - Double(before)) / Double(before) * 100,
        ]
    }

    /// Applies and reverts one patch `count` times; after every revert each method's IMP must be
    /// the original, and while applied each must return its JS value (checked every cycle).
    /// Resident memory includes what JavaScriptCore's optimizing compiler threads keep of their
    /// working memory after each compile (≈ 1.5–3 MB in steps, the same at 120,000 cycles as at
    /// 20,000; with `JSC_useFTLJIT=false` +0.25 %), so the C allocator's bytes in use are
    /// reported beside it: what the engine itself keeps per cycle.
    private static func applyRevertCycles(_ count: Int) throws -> [String: Double] {
        let patch = ManyMethodsPatch(count: cycledMethods, className: "PBCycled", scriptName: "memory-cycle.js")
        try patch.prepare()
        let mark = max(1, count / 10)
        var impsNotRestored = 0
        var atMark: UInt64 = 0
        var mallocAtMark: UInt64 = 0
        for cycle in 1...count {
            try patch.apply()
            try patch.checkPatched()
            try patch.revert()
            impsNotRestored += patch.impsNotRestored()
            if cycle == mark {
                PatchEngine.collectGarbage()
                atMark = pb_resident_bytes()
                mallocAtMark = pb_malloc_bytes()
            }
        }
        PatchEngine.collectGarbage()
        let atEnd = pb_resident_bytes()
        let mallocAtEnd = pb_malloc_bytes()
        guard atMark > 0 else { throw BenchError("resident memory is not readable here") }
        let laterCycles = Double(max(1, count - mark))
        return [
            "cycles": Double(count), "markCycle": Double(mark), "impsNotRestored": Double(impsNotRestored),
            "residentAtMarkBytes": Double(atMark), "residentAtEndBytes": Double(atEnd),
            "residentGrowthPercent": (Double(atEnd) - Double(atMark)) / Double(atMark) * 100,
            "kilobytesPerCycle": (Double(atEnd) - Double(atMark)) / laterCycles / 1024,
            "mallocBytesPerCycle": (Double(mallocAtEnd) - Double(mallocAtMark)) / laterCycles,
        ]
    }

    /// Runs in the parent: spawns `executable --memory-only <mode> --memory-count <count>`.
    static func measureInChild(_ mode: Mode, count: Int, executable: URL) throws -> [String: Double] {
        let process = Process()
        process.executableURL = executable
        process.arguments = ["--memory-only", mode.rawValue, "--memory-count", String(count)]
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        do { try process.run() } catch { throw BenchError("cannot spawn \(executable.path): \(error)") }
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
              let values = try? JSONDecoder().decode([String: Double].self, from: output) else {
            throw BenchError("\(executable.lastPathComponent) --memory-only \(mode.rawValue) exited with \(process.terminationStatus), "
                             + "printed \"\(String(decoding: output, as: UTF8.self))\", stderr: \(String(decoding: errors, as: UTF8.self))")
        }
        return values
    }
}
