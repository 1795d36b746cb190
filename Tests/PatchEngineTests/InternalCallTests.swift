import Foundation
import XCTest
@testable import PatchEngine
import CPatchEngine
import PatchFixtures
import PatchRuntime

/// A patched method called from Objective-C enters JS by JavaScriptCore's internal call where its
/// symbols are found and its checks pass at start (`InternalCall`), and by the C API elsewhere:
/// a native caller sees the same through both — results, arguments, `self`, nil, JS exceptions
/// (reported, the fallback returned) and the time limit's end.
final class InternalCallTests: TimeLimitTestCase {
    /// Where the engine holds the API lock and the private symbols are there, every VM uses it (the
    /// first VM's start checked it for the process).
    func testPatchedMethodsEnterJSThroughTheInternalCallWhereItsSymbolsAreFound() throws {
        let expected = !PEPrivateSymbolsRemoved() && !runsWithoutPrivateSymbols && Engine.shared.apiLock.isAvailable
        for vm in Engine.shared.allVMs {
            #if os(Linux)
            XCTAssertEqual(vm.internalCall != nil, expected, "WebKitGTK exports JSC::call and JSFunction::getCallData (VM \(vm.index))")
            #endif
            if !expected { XCTAssertNil(vm.internalCall, "without the symbols, the C API (VM \(vm.index))") }
        }
    }

    /// The same patch called natively, through the internal call and then through the C API:
    /// each answer is checked against what it must be, and the two runs against each other.
    func testANativeCallerSeesTheSameThroughBothEntries() throws {
        let errors = captureErrors()
        let className = uniqueClassName("PFInternalCall")
        let name = uniqueScriptName()
        try apply("""
        defineClass('\(className) : NSObject', {
          echo: function (x) { return x; },
          kindOf: function (x) { return typeof x + ':' + x; },   // nil arrives as false (JSPatch's), an NSString as its box
          isSelf: function () { return self === this ? 'self is this' : 'different'; },
          twice_and: function (a, b) { return a + a + '|' + b; },
          boom: function () { throw new Error('internal boom'); }
        });
        """, name: name)
        func run() -> [String] {
            let object = pf_new(className)
            defer { pf_release(object) }
            var answers: [String] = []
            answers.append(take(pf_send_str(object, "echo:", "héllo")) ?? "-")
            answers.append(take(pf_send_obj(object, "kindOf:", nil)) ?? "-")
            answers.append(take(pf_send_str(object, "kindOf:", "text")) ?? "-")
            answers.append(take(pf_send(object, "isSelf")) ?? "-")
            answers.append(take(pf_send_str_str(object, "twice:and:", "ab", "c")) ?? "-")
            answers.append(take(pf_send(object, "boom")) ?? "-")
            return answers
        }
        let viaInternalCall = run()
        let viaAPI = Engine.shared.withoutInternalCall { run() }
        let expected = ["\"héllo\"", "\"boolean:false\"", "\"object:text\"", "\"self is this\"", "\"abab|c\"", "nil"]
        XCTAssertEqual(viaInternalCall, expected)
        XCTAssertEqual(viaAPI, viaInternalCall)
        let booms = errors.errors.filter { $0.message.contains("internal boom") }
        XCTAssertEqual(booms.count, 2, "each entry reports the exception: \(errors.errors.map(\.message))")
        XCTAssertEqual(Set(booms.map(\.message)).count, 1, "the same report: \(booms.map(\.message))")
        XCTAssertEqual(booms.first?.kind, .runtime)
        XCTAssertEqual(booms.first?.scriptName, name)
    }

    /// Struct arguments go through the engine's compiled adapter (`StructRegistry.callAdapter`),
    /// which the internal call enters too: the same fields arrive through both entries.
    func testStructArgumentsArriveTheSameThroughBothEntries() throws {
        try apply("""
        defineClass('PFGeometry', {
          offsetRect_by: function (r, p) { return {x: r.x - p.x, y: r.y - p.y, width: r.width, height: r.height}; },
          area_scaledBy: function (r, factor) { return r.width + r.height + factor; }
        })
        """)
        func run() -> [Double] {
            let moved = pf_geometry_offset_rect(PFRectC(x: 1, y: 1, width: 2, height: 2), PFPointC(x: 10, y: 20))
            return [moved.x, moved.y, moved.width, moved.height, pf_geometry_area(PFRectC(x: 0, y: 0, width: 3, height: 4), 0.5)]
        }
        XCTAssertEqual(run(), [-9, -19, 2, 2, 7.5])
        XCTAssertEqual(Engine.shared.withoutInternalCall(run), [-9, -19, 2, 2, 7.5])
    }

    /// A runaway patched method is ended at the limit through either entry, reported as a timeout
    /// of its method, and its native caller gets nil (an added method).
    func testTheTimeLimitEndsARunawayMethodThroughBothEntries() throws {
        var reports: [[String]] = []
        for throughInternalCall in [true, false] {
            let errors = captureErrors()
            let className = uniqueClassName("PFInternalRunaway")
            let name = uniqueScriptName()
            try apply("""
            defineClass('\(className) : NSObject', {
              spinForever: function () { var t0 = Date.now(); while (Date.now() - t0 < 5000) {} return 'finished'; }
            });
            """, name: name)
            let object = pf_new(className)
            defer { pf_release(object) }
            let started = threadCPUTime()
            let call = { take(pf_send(object, "spinForever")) }
            let answer = throughInternalCall ? call() : Engine.shared.withoutInternalCall(call)
            XCTAssertLessThan(threadCPUTime() - started, 2, "the limit ends it")
            XCTAssertEqual(answer, "nil")
            let timeout = errors.errors.first { $0.kind == .timeout }
            XCTAssertEqual(timeout?.message, "-[\(className) spinForever] (patched by \(name)) exceeded the 0.2 s execution time limit")
            reports.append(errors.errors.map { "\($0.kind)" })
            XCTAssertEqual(render(try apply("'still ' + 'working'")), "\"still working\"")
        }
        XCTAssertEqual(reports[0], reports[1], "the same reports through both entries")
    }

    /// The value of an Exception cell is read only at an offset that holds the thrown value and no
    /// other candidate does: anything else turns the internal call off (the C API then).
    func testTheExceptionValueOffsetIsFoundOnlyWhenItIsUnambiguous() {
        let thrown = UnsafeRawPointer(bitPattern: 0x1234_5678)!
        var cell = [UInt64](repeating: 0, count: 4)
        func offset() -> Int { cell.withUnsafeBytes { PEJSCInternalCallFindExceptionValueOffset($0.baseAddress!, thrown) } }
        cell[1] = 0x1234_5678
        XCTAssertEqual(offset(), 8)
        cell[1] = 0; cell[2] = 0x1234_5678
        XCTAssertEqual(offset(), 16)
        cell[1] = 0x1234_5678
        XCTAssertEqual(offset(), 0, "both candidates: ambiguous")
        cell[1] = 0; cell[2] = 0
        XCTAssertEqual(offset(), 0, "neither")
    }
}
