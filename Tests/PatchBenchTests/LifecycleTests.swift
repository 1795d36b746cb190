import Foundation
import XCTest
@testable import patchbench
import PatchEngine
import BenchFixtures

/// The lifecycle rows (patches of many methods, memory) measure what they say: every method is
/// really patched and really restored, every object really deallocated, and a count row that
/// misses its target says so. Nothing about speed or exact memory is asserted.
final class LifecycleTests: XCTestCase {
    func testManyMethodsPatchPatchesAndRestoresEveryMethod() throws {
        let patch = ManyMethodsPatch(count: 25, className: "PBLifecycleTestMany", scriptName: "lifecycle-test-many.js")
        XCTAssertEqual(ManyMethodsPatch.script(className: "C", count: 2),
                       "defineClass('C', {\n  m0: function () { return 0; },\n  m1: function () { return 1; },\n});\n")
        try patch.prepare()   // applies, checks, reverts, checks
        XCTAssertEqual(patch.impsNotRestored(), 0)
        XCTAssertFalse(PatchEngine.appliedPatchNames.contains("lifecycle-test-many.js"))

        // Not applied: the check of the patched state must fail.
        XCTAssertThrowsError(try patch.checkPatched()) { error in
            XCTAssertEqual("\(error)", "-[PBLifecycleTestMany m0] returned -1 with the patch applied, expected its JS value 0")
        }
        try patch.apply()
        try patch.checkPatched()
        XCTAssertEqual(patch.impsNotRestored(), 25, "every method goes through the engine while patched")
        XCTAssertThrowsError(try patch.checkReverted())
        // Natively, each method answers its own JS value.
        let object = try XCTUnwrap(pb_new("PBLifecycleTestMany"))
        defer { pb_release(object) }
        XCTAssertEqual((0..<25).map { Int(pb_many_call(object, UInt32($0), nil)) }, Array(0..<25))
        try patch.revert()
        try patch.checkReverted()
        XCTAssertEqual(pb_many_call(object, 7, nil), PB_MANY_NATIVE)
    }

    func testManyMethodsClassIsMadeOnceWithItsCount() {
        let cls = pb_many_methods_class("PBLifecycleTestCount", 5)
        XCTAssertNotNil(cls)
        XCTAssertEqual(pb_many_methods_class("PBLifecycleTestCount", 5), cls)
        XCTAssertNil(pb_many_methods_class("PBLifecycleTestCount", 6), "an existing class with another count is refused")
    }

    func testDroppedObjectsAreAllDeallocatedInTheChild() throws {
        let values = try MemoryProbes.measureInChild(.objects, count: 3_000, executable: patchbenchExecutable())
        XCTAssertEqual(values["objects"], 3_000)
        XCTAssertEqual(values["created"], 3_000)
        XCTAssertEqual(values["deallocated"], 3_000, "every PBCounted counted in -dealloc after collectGarbage()")
        XCTAssertGreaterThan(values["residentBeforeBytes"] ?? 0, 0)
        XCTAssertGreaterThan(values["residentAfterBytes"] ?? 0, 0)
        XCTAssertNotNil(values["residentGrowthPercent"])
    }

    func testApplyRevertCyclesRestoreEveryIMPInTheChild() throws {
        let values = try MemoryProbes.measureInChild(.cycles, count: 40, executable: patchbenchExecutable())
        XCTAssertEqual(values["cycles"], 40)
        XCTAssertEqual(values["markCycle"], 4)
        XCTAssertEqual(values["impsNotRestored"], 0)
        XCTAssertGreaterThan(values["residentAtMarkBytes"] ?? 0, 0)
        XCTAssertNotNil(values["kilobytesPerCycle"])
    }

    func testSecondaryVMsAreMadeInTheChild() throws {
        let values = try MemoryProbes.measureInChild(.vms, count: 2, executable: patchbenchExecutable())
        XCTAssertEqual(values["vms"], 2)
        XCTAssertEqual(values["vmCount"], 3, "the main VM and the two prepareVMs made")
        XCTAssertGreaterThan(values["residentAfterBytes"] ?? 0, values["residentBeforeBytes"] ?? .infinity, "two VMs take memory")
    }

    func testAPatchOfManyMethodsIsMeasuredInTheChild() throws {
        let values = try MemoryProbes.measureInChild(.methods, count: 50, executable: patchbenchExecutable())
        XCTAssertEqual(values["methods"], 50)
        XCTAssertGreaterThan(values["residentBeforeBytes"] ?? 0, 0)
        XCTAssertNotNil(values["kilobytesPerMethod"])
    }

    func testASecondaryVMStartIsTimedInTheChild() throws {
        XCTAssertGreaterThan(try EngineStart.measureInChild(.secondary, executable: patchbenchExecutable()), 0)
        XCTAssertGreaterThan(try EngineStart.measureInChild(.bareSecond, executable: patchbenchExecutable()), 0)
    }

    func testCountRowsReportTheirTargetsAndMisses() throws {
        var catalog = Catalog()
        catalog.add(CountProbe(id: "fake", summary: "fake") { ["made": 10, "freed": 9, "growth": 12.5, "kept": 0.25] })
        catalog.countRow("Fake memory", "freed", probe: "fake", key: "freed", unit: .count, target: .equalTo(key: "made", what: "all made"))
        catalog.countRow("Fake memory", "growth", probe: "fake", key: "growth", unit: .percent, target: .atMost(10))
        catalog.countRow("Fake memory", "kept", probe: "fake", key: "kept", unit: .kilobytes, target: .none)
        var runs = 0
        catalog.add(CountProbe(id: "counted", summary: "") { runs += 1; return ["a": 1] })
        catalog.countRow("Other", "a", probe: "counted", key: "a", unit: .count, target: .atMost(1))
        catalog.countRow("Other", "a again", probe: "counted", key: "a", unit: .count, target: .atMost(0))

        let results = try catalog.measureCounts(catalog.countRows(matching: nil))
        XCTAssertEqual(runs, 1, "a count probe runs once however many rows read it")
        XCTAssertEqual(results.map(\.met), [false, false, nil, true, false])
        XCTAssertEqual(results[0].targetText, "= all made (10)")
        XCTAssertEqual(results[1].formatted(results[1].value), "+12.5 %")
        XCTAssertEqual(results[1].targetText, "≤ 10.0 %")

        // Only count rows match: the report has no timed rows and still renders them.
        let report = try runBenchmarks(catalog, settings: BenchSettings(), filter: "Fake")
        XCTAssertTrue(report.rows.isEmpty)
        XCTAssertEqual(report.counts.count, 3)
        let table = report.table()
        XCTAssertTrue(table.contains("Fake memory"))
        XCTAssertTrue(table.contains("MISSED"))
        let json = report.json
        XCTAssertEqual(json.counts?.map(\.label), ["freed", "growth", "kept"])
        XCTAssertEqual(json.counts?.first?.probeValues["made"], 10)

        catalog.add(CountProbe(id: "broken", summary: "") { [:] })
        catalog.countRow("Broken", "missing", probe: "broken", key: "x", unit: .count, target: .none)
        XCTAssertThrowsError(try catalog.measureCounts(catalog.countRows(matching: "Broken")))
    }

    func testStandardCatalogHasTheLifecycleRows() {
        var settings = BenchSettings()
        settings.patchMethodCounts = (small: 3, large: 6)
        let catalog = Catalog.standard(settings: settings)
        XCTAssertEqual(catalog.rows(matching: "Patch of many").map(\.subject), ["patch.apply.6", "patch.revert.6"])
        XCTAssertEqual(catalog.rows(matching: "Patch of many").map(\.floor), ["patch.apply.3", "patch.revert.3"])
        XCTAssertEqual(Set(catalog.countRows(matching: "Memory").map(\.probe)), ["memory.objects", "memory.cycles", "memory.vms", "memory.methods"])
    }
}
