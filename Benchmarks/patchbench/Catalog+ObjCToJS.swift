import Foundation
import PatchEngine
import PatchRuntime
import BenchFixtures

/// Issue 9, target 2: Objective-C calls a JS-patched method on the closure route, against what
/// JavaScriptCore's C API itself costs for the same call (`pb_time_js_floor`: the empty closure
/// slot of the same method + one `JSObjectCallAsFunction` of an empty JS function with the same
/// arguments, made beforehand). Target: ≤ 2× that floor.
extension Catalog {
    static let objcToJSCalls: [PBCall] = allCalls + [PBCallStructArgument]

    static let objcToJSSection = "Objective-C calls a patched method, closure route, vs the JavaScriptCore floor "
        + "(empty closure slot + JSObjectCallAsFunction of an empty JS function)"

    mutating func addObjCToJSRows() {
        let environment = SubjectEnvironment.shared
        let patchClosure = { try environment.patch(.patchedClosure, route: PERouteClosure) }
        // The struct-argument method: the existing subjects' treatments, plus a check that the
        // patched call hands JS the rect the native caller passed.
        add(Catalog.nativeCallProbe(.direct, PBCallStructArgument) {})
        add(Catalog.nativeCallProbe(.patchedClosure, PBCallStructArgument) {
            try patchClosure()
            try environment.checkStructArgument(.patchedClosure)
        })
        for call in Catalog.objcToJSCalls { add(Catalog.jsFloorProbe(call)) }

        for call in Catalog.objcToJSCalls {
            row(Catalog.objcToJSSection, call.label + " vs floor",
                subject: Catalog.probeID(.patchedClosure, call), floor: Catalog.jsFloorProbeID(call))
        }
        row(Catalog.objcToJSSection, PBCallStructArgument.label + " vs unpatched",
            subject: Catalog.probeID(.patchedClosure, PBCallStructArgument), floor: Catalog.probeID(.direct, PBCallStructArgument))
    }

    static func jsFloorProbeID(_ call: PBCall) -> String { "jsfloor.\(call.selector)" }

    /// The floor of one call kind. Prepared by installing the empty closure slots and a checked
    /// pass: the JS function ran once per call with the receiver and argument it should have.
    static func jsFloorProbe(_ call: PBCall) -> Probe {
        Probe(id: jsFloorProbeID(call),
              summary: "[\(Subject.slotClosure.className) \(call.selector)] (empty closure slot) + JSObjectCallAsFunction of an empty JS function",
              prepare: {
                  try SubjectEnvironment.shared.installSlots(.slotClosure, route: PERouteClosure)
                  try checkJSFloor(call)
              }, kind: .loop { n in try timeJSFloor(call, n) })
    }

    static func timeJSFloor(_ call: PBCall, _ n: UInt64) throws -> UInt64 {
        let object = try SubjectEnvironment.shared.instance(.slotClosure)
        var error: UnsafeMutablePointer<CChar>?
        let elapsed = pb_time_js_floor(object, call, n, &error)
        if elapsed < 0 {
            defer { free(error) }
            throw BenchError("the JS floor of \(call.selector) failed: \(error.map { String(cString: $0) } ?? "?")")
        }
        return UInt64(elapsed)
    }

    /// Runs the floor of `call` a few times with its JS function's check on.
    static func checkJSFloor(_ call: PBCall, calls: UInt64 = 3) throws {
        pb_js_floor_check_begin()
        let result = Result { try timeJSFloor(call, calls) }
        let counts = pb_js_floor_check_end()
        _ = try result.get()
        guard counts.calls == calls, counts.wrongReceiver == 0, counts.wrongArgument == 0, counts.wrongResult == 0 else {
            throw BenchError("\(calls) floor calls of \(call.selector) ran the JS function \(counts.calls)× "
                             + "(\(counts.wrongReceiver) with another receiver, \(counts.wrongArgument) with a wrong argument, "
                             + "\(counts.wrongResult) wrong results)")
        }
    }
}

extension PBCall {
    /// The values -takeRect: receives from the timing loops, as JS prints them.
    static let loopRectText = [PB_RECT_X, PB_RECT_Y, PB_RECT_WIDTH, PB_RECT_HEIGHT].map { "\($0)" }.joined(separator: ",")
}

extension SubjectEnvironment {
    /// Checks that a native -takeRect: of the patched subject runs JS with the rect it was given.
    func checkStructArgument(_ subject: Subject) throws {
        let object = try instance(subject)
        _ = try PatchEngine.evaluate("globalThis.pbRectCheck = true; globalThis.pbLastRect = null;", name: "patchbench-check.js")
        var error: UnsafeMutablePointer<CChar>?
        let elapsed = pb_time_calls(object, PBCallStructArgument, 1, &error)
        let seen = try PatchEngine.evaluate("""
            var r = globalThis.pbLastRect; globalThis.pbRectCheck = false; globalThis.pbLastRect = null;
            r ? r.x + ',' + r.y + ',' + r.width + ',' + r.height : 'nothing';
            """, name: "patchbench-check.js")
        if elapsed < 0 {
            defer { free(error) }
            throw BenchError("\(subject.className) -takeRect: raised \(error.map { String(cString: $0) } ?? "?")")
        }
        guard let text = seen as? String, text == PBCall.loopRectText else {
            throw BenchError("\(subject.className) -takeRect: gave JS \(seen.map { "\($0)" } ?? "nil"), expected \(PBCall.loopRectText)")
        }
    }
}
