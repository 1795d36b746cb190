import Foundation
import XCTest
@testable import patchbench
import PatchEngine
import PatchRuntime
import BenchFixtures

/// The probes of issue 9's target 2 measure what their rows say: the JavaScriptCore floor runs
/// its JS function once per call with the receiver, argument and result it claims, and the
/// patched -takeRect: hands JS the caller's struct. No timing is asserted.
final class ObjCToJSProbeTests: XCTestCase {
    func testFloorRunsItsJSFunctionOncePerCallWithTheRightValues() throws {
        try SubjectEnvironment.shared.installSlots(.slotClosure, route: PERouteClosure)
        for call in Catalog.objcToJSCalls {
            XCTAssertNoThrow(try Catalog.checkJSFloor(call, calls: 5), call.selector)
        }
    }

    func testFloorCountsOnlyDuringACheck() throws {
        try SubjectEnvironment.shared.installSlots(.slotClosure, route: PERouteClosure)
        let slot = try SubjectEnvironment.shared.instance(.slotClosure)
        let direct = try SubjectEnvironment.shared.instance(.direct)
        pb_js_floor_check_begin()
        XCTAssertGreaterThanOrEqual(pb_time_js_floor(slot, PBCallObjectReturn, 2, nil), 0)
        var counts = pb_js_floor_check_end()
        XCTAssertEqual([counts.calls, counts.wrongReceiver, counts.wrongArgument, counts.wrongResult], [2, 0, 0, 0])
        // Outside a check the functions record nothing: the counts stay those of the last check.
        XCTAssertGreaterThanOrEqual(pb_time_js_floor(slot, PBCallStructArgument, 4, nil), 0)
        XCTAssertEqual(pb_js_floor_check_end().calls, 2)
        // The receiver value is made for the object passed; the -object result must be that object.
        pb_js_floor_check_begin()
        XCTAssertGreaterThanOrEqual(pb_time_js_floor(direct, PBCallObjectReturn, 3, nil), 0)
        counts = pb_js_floor_check_end()
        XCTAssertEqual([counts.calls, counts.wrongResult], [3, 0])
        XCTAssertGreaterThanOrEqual(pb_time_js_floor(slot, PBCallEmpty, 1, nil), 0)   // back to the slot subject
        var error: UnsafeMutablePointer<CChar>?
        XCTAssertEqual(pb_time_js_floor(slot, PBCall(rawValue: 9), 1, &error), -1)
        XCTAssertEqual(error.map { String(cString: $0) }, "unknown call kind")
        free(error)
    }

    func testPatchedStructArgumentReachesJS() throws {
        let environment = SubjectEnvironment.shared
        try environment.patch(.patchedClosure, route: PERouteClosure)
        try environment.checkStructArgument(.patchedClosure)
        // The check reads what JS received: with the record switched off nothing arrives, so a
        // patch that dropped the argument would fail it.
        let object = try environment.instance(.patchedClosure)
        _ = try PatchEngine.evaluate("globalThis.pbRectCheck = false; globalThis.pbLastRect = null;", name: "patchbench-check.js")
        XCTAssertGreaterThanOrEqual(pb_time_calls(object, PBCallStructArgument, 2, nil), 0)
        XCTAssertEqual(try PatchEngine.evaluate("String(globalThis.pbLastRect)", name: "patchbench-check.js") as? String, "null")
        XCTAssertEqual(PBCall.loopRectText, "1.5,2.5,3.5,4.5")
    }

    func testRowsCompareEachPatchedCallWithItsFloor() {
        let catalog = Catalog.standard(settings: BenchSettings())
        let rows = catalog.rows.filter { $0.section == Catalog.objcToJSSection }
        XCTAssertEqual(rows.map(\.subject), Catalog.objcToJSCalls.map { Catalog.probeID(.patchedClosure, $0) }
                       + [Catalog.probeID(.patchedClosure, PBCallStructArgument)])
        XCTAssertEqual(rows.map(\.floor), Catalog.objcToJSCalls.map(Catalog.jsFloorProbeID) + [Catalog.probeID(.direct, PBCallStructArgument)])
    }
}
