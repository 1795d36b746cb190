import Foundation
import XCTest
import PatchEngine
import PatchFixtures

/// A patch can't grow the app's memory without bound: an entry into JS that grows it past
/// `PatchEngine.heapGrowthLimit` (256 MB by default) ends with a `.heapGrowth` error, the native
/// caller gets the original's result, the script is reverted and the memory comes back.
/// Each grower runs in a child process (its memory, and an address-space cap, stay there); each is
/// bounded by the clock, so without the limit the test fails instead of hanging.
final class HeapGrowthLimitTests: PatchTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        XCTAssertEqual(PatchEngine.heapGrowthLimit, PatchEngine.defaultHeapGrowthLimit, "on by default, with or without the watchdog")
    }

    private static let childVariable = "PATCHENGINE_TEST_HEAP_GROWTH_CHILD"
    private static var childScenario: String? { ProcessInfo.processInfo.environment[childVariable] }

    func testTheLimitIsOnByDefault() {
        XCTAssertEqual(PatchEngine.defaultHeapGrowthLimit, 256 << 20)
        XCTAssertEqual(PatchEngine.heapGrowthLimit, 256 << 20)
    }

    /// The issue's first case: a patched method filling a sparse array (3 GB in 1.3 s before).
    func testAPatchedMethodGrowingASparseArrayEndsWithTheErrorAndTheOriginal() throws {
        try runChild("testAPatchedMethodGrowingASparseArrayEndsWithTheErrorAndTheOriginal", "sparse", capped: true) {
            "var a = []; var t0 = Date.now(); for (var i = 0; Date.now() - t0 < 20000; i++) a[i * 64] = i; return 99"
        }
    }

    /// The same with both bounds as the engine starts (the 2.0 s time limit too, its CPU time
    /// counted in the heap checks' steps): the heap growth limit ends it, not the time limit.
    /// Each slot holds a 4 KB string, so that 256 MB come in a fraction of the time limit's CPU on
    /// a slow host too: with numbers alone (≈ 11 million slots) a `make stress` run on a slower
    /// host with both cores busy reached 2 s of CPU first.
    func testWithBothDefaultBoundsASparseArrayEndsWithTheHeapGrowthError() throws {
        try runChild("testWithBothDefaultBoundsASparseArrayEndsWithTheHeapGrowthError", "sparse-defaults", capped: true,
                     timeLimitOff: false) {
            "var a = []; var t0 = Date.now(); for (var i = 0; Date.now() - t0 < 20000; i++) a[i * 64] = 'x'.repeat(4096) + i; return 99"
        }
    }

    /// The issue's second case: many small objects under an address-space cap (the process
    /// aborted inside JavaScriptCore's allocator 3 runs in 5 before).
    func testManySmallObjectsUnderAnAddressSpaceCapEndWithTheErrorAndTheOriginal() throws {
        try runChild("testManySmallObjectsUnderAnAddressSpaceCapEndWithTheErrorAndTheOriginal", "small-objects", capped: true) {
            "var a = []; var t0 = Date.now(); while (Date.now() - t0 < 20000) a.push({ n: a.length, s: 'x' }); return 99"
        }
    }

    /// An evaluation whose top level grows without bound: rolled back with the error.
    func testAnEvaluationGrowingWithoutBoundIsRolledBackWithTheError() throws {
        if Self.childScenario == "evaluation" { return try evaluationChild() }
        try runChildProcess("testAnEvaluationGrowingWithoutBoundIsRolledBackWithTheError", "evaluation", capped: true)
    }

    /// A patch that allocates a modest amount (≈ 40 MB, over many checks) is never ended.
    func testAnInnocentPatchAllocatingAModestAmountIsNeverEnded() throws {
        let errors = captureErrors()
        let name = uniqueScriptName()
        try apply("""
        defineClass('PFFailing', { riskyValue: function() {
          var a = []; for (var i = 0; i < 400000; i++) a.push({ n: i, s: 'x' + i });
          var t0 = Date.now(); while (Date.now() - t0 < 100) {}
          return a.length / 100000 } })
        """, name: name)
        var raised: Int32 = 0
        for _ in 0..<3 { XCTAssertEqual(pf_failing_risky_value(&raised), 4) }
        XCTAssertEqual(raised, 0)
        XCTAssertEqual(errors.errors, [])
        XCTAssertTrue(PatchEngine.appliedPatchNames.contains(name))
    }

    // MARK: children

    /// Runs this test again in a child (`scenario`), whose patched `-[PFFailing riskyValue]` runs
    /// `body`, and checks what the child saw.
    private func runChild(_ test: String, _ scenario: String, capped: Bool = false, timeLimitOff: Bool = true,
                          body: () -> String) throws {
        if Self.childScenario == scenario { return try patchedCallChild(body(), capped: capped, timeLimitOff: timeLimitOff) }
        try runChildProcess(test, scenario, capped: capped)
    }

    private func runChildProcess(_ test: String, _ scenario: String, capped: Bool) throws {
        guard ChildTestProcess.isSupported else { throw XCTSkip("re-running the test binary is set up for Linux's XCTest runner only") }
        let child = try ChildTestProcess.run("PatchEngineTests.HeapGrowthLimitTests/\(test)",
                                             environment: [Self.childVariable: scenario], timeout: 120)
        let context = "exit \(child.status)\n\(child.output.suffix(3000))"
        XCTAssertEqual(child.status, 0, context)
        XCTAssertEqual(child.line("heap-result: "), "7 heapGrowth reverted usable", context)
        let message = child.line("heap-message: ") ?? ""
        XCTAssertTrue(message.contains(" grew the app's memory by "), message)
        XCTAssertTrue(message.hasSuffix(", more than the 256 MB allowed (heapGrowthLimit)"), message)
        let grown = child.line("heap-grown-mb: ").flatMap { Int($0) } ?? -1
        XCTAssertGreaterThan(grown, 256, context)
        XCTAssertLessThan(grown, 768, "ended soon after the budget: \(context)")
        let left = child.line("heap-left-mb: ").flatMap { Int($0) } ?? .max
        XCTAssertLessThan(left, 128, "the memory came back after the end: \(context)")
    }

    /// Caps the child's address space at its current size plus 1.5 GB, as a phone's memory is.
    /// After the engine started: JavaScriptCore reserves its regions (gigacage, JIT) up front.
    /// The time limit goes off in the child, so that the heap growth limit alone ends the growers.
    private func capAddressSpace(timeLimitOff: Bool = true) {
        XCTAssertEqual(try PatchEngine.evaluate("6 * 7") as? Double, 42)
        if timeLimitOff { PatchEngine.executionTimeLimit = nil }
        #if canImport(Glibc)
        let resource = __rlimit_resource_t(RLIMIT_AS.rawValue)
        #else
        let resource = RLIMIT_AS
        #endif
        var limit = rlimit()
        let size = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8))?.split(separator: " ").first.flatMap { Int($0) } ?? 0
        limit.rlim_cur = rlim_t(size * Int(sysconf(Int32(_SC_PAGESIZE))) + (1536 << 20))
        limit.rlim_max = limit.rlim_cur
        XCTAssertEqual(setrlimit(resource, &limit), 0)
    }

    /// Resident megabytes of this process.
    private func residentMB() -> Int {
        let fields = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8))?.split(separator: " ") ?? []
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) >> 20 : 0
    }

    private func patchedCallChild(_ body: String, capped: Bool, timeLimitOff: Bool) throws {
        if capped { capAddressSpace(timeLimitOff: timeLimitOff) }
        let errors = captureErrors()
        let name = uniqueScriptName()
        try PatchEngine.evaluate("defineClass('PFFailing', { riskyValue: function() { \(body) } })", name: name)
        let before = residentMB()
        var raised: Int32 = 0
        let result = pf_failing_risky_value(&raised)
        let ended = errors.errors.first
        report(result: "\(result) \(ended?.kind.rawValue ?? "none") \(PatchEngine.appliedPatchNames.contains(name) ? "applied" : "reverted")",
               message: ended?.message ?? "", before: before, scriptName: name, error: ended)
    }

    private func evaluationChild() throws {
        capAddressSpace()
        let name = uniqueScriptName()
        let before = residentMB()
        var outcome = "no error"
        var error: PatchError?
        do {
            try PatchEngine.evaluate("""
            defineClass('PFFailing', { riskyValue: function() { return 99 } });
            (function() { var keep = []; var t0 = Date.now(); while (Date.now() - t0 < 20000) keep.push({ n: keep.length }); })();
            """, name: name)
        } catch let thrown as PatchError {
            error = thrown
            outcome = thrown.kind.rawValue
        }
        var raised: Int32 = 0
        let result = pf_failing_risky_value(&raised)   // rolled back: the original's 7
        report(result: "\(result) \(outcome) \(PatchEngine.appliedPatchNames.contains(name) ? "applied" : "reverted")",
               message: error?.message ?? "", before: before, scriptName: name, error: error)
    }

    /// Prints what the parent checks, after using the engine again (a patch, calls, an evaluation).
    private func report(result: String, message: String, before: Int, scriptName: String, error: PatchError?) {
        let grown = message.components(separatedBy: "memory by ").dropFirst().first?.split(separator: " ").first ?? "?"
        let left = residentMB() - before   // right after the end, before anything else runs
        var usable = false
        if let _ = try? PatchEngine.evaluate("defineClass('PFFailing', { riskyValue: function() { return 8 } })", name: uniqueScriptName()) {
            var raised: Int32 = 0
            usable = pf_failing_risky_value(&raised) == 8
                && (try? PatchEngine.evaluate("var n = 0; for (var i = 0; i < 1000; i++) n += i; n") as? Double) == 499500
        }
        print("heap-result: \(result) \(usable ? "usable" : "not-usable")")
        print("heap-message: \(message)")
        print("heap-error-script: \(error?.scriptName == scriptName ? "same" : error?.scriptName ?? "none")")
        print("heap-grown-mb: \(grown)")
        print("heap-left-mb: \(left)")
    }
}
