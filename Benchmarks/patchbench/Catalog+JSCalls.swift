import Foundation
import PatchEngine
import BenchFixtures

/// The JS rows: JS calling Objective-C methods, and JS calling methods defined in JS, each
/// against what JavaScriptCore's C API itself costs for the same call in a bare context
/// (`PBJSFloors.m`), measured in the same run.
extension Catalog {
    static let jsCalls: [(JSDriver.Loop, PBCall)] = [
        (.empty, PBCallEmpty), (.constant, PBCallConstant), (.takeObject, PBCallObjectArgument), (.object, PBCallObjectReturn),
    ]

    static func addJSCallRows(to catalog: inout Catalog, settings: BenchSettings) {
        let section = "JS calls Objective-C (obj.method() in a JS loop inside one evaluate)"
        for (loop, call) in jsCalls {
            catalog.add(jsLoopProbe(loop))
            catalog.add(hostFloorProbe(call))
        }
        catalog.add(jsLoopProbe(.bare))
        for (loop, call) in jsCalls {
            catalog.row(section, call.label + " vs JSC host call + direct IMP call",
                        subject: "js.\(loop.rawValue)", floor: hostFloorID(call))
        }
        for (loop, call) in jsCalls {
            catalog.row(section, call.label + " vs direct native call",
                        subject: "js.\(loop.rawValue)", floor: probeID(.direct, call))
        }
        catalog.row(section, "floor: JSC host call + IMP call (-empty) vs direct native call",
                    subject: hostFloorID(PBCallEmpty), floor: probeID(.direct, PBCallEmpty))
        catalog.row(section, PBCallEmpty.label + " vs an empty JS loop iteration",
                    subject: "js.\(JSDriver.Loop.empty.rawValue)", floor: "js.\(JSDriver.Loop.bare.rawValue)")

        // Measured twice: in a process of its own (ProbeServer: what the call costs where it is
        // hot), and here, after every other row's calls and patches (what it costs in a process
        // whose shared dispatch code has seen every kind of call, and whose dispatcher keeps
        // changing).
        let definedLoops: [(JSDriver.Loop, String)] = [
            (.jsDefined, "from a plain JS loop"),
            (.jsDefinedSelf, "self.value() in a method of the same class"),
            (.jsDefinedOther, "other.value() in a method of another JS-defined class"),
        ]
        let floor = jsMethodFloorProbe()
        catalog.add(floor)
        catalog.add(ownProcess(floor, settings: settings))
        let ownSection = "JS calls a method defined in JS (defineClass), o.value() summed in a loop, in a process of its own"
        for (loop, label) in definedLoops {
            let probe = jsLoopProbe(loop)
            catalog.add(probe)
            catalog.add(ownProcess(probe, settings: settings))
            catalog.row(ownSection, label + " vs a plain JS method call", subject: "own-process.js.\(loop.rawValue)",
                        floor: "own-process.jsfloor.method")
        }
        let shared = "JS calls a method defined in JS, in the benchmark's own process (after every other row's calls and patches)"
        for (loop, label) in definedLoops {
            catalog.row(shared, label + " vs a plain JS method call", subject: "js.\(loop.rawValue)", floor: "jsfloor.method")
        }

        // The Array builtins a patch calls are bounded (runtime.js's walkBounded): what the
        // wrapper costs a call, against the same loop in a bare context.
        let builtinSection = "JS calls an Array builtin in a patch (bounded: refuses a walk past 2^24) vs the same loop in bare JSC"
        for (index, (loop, label)) in [(JSDriver.Loop.builtinIndexOf, "a.indexOf(x), 8 elements"), (.builtinSlice, "a.slice(7), 8 elements")].enumerated() {
            let floorID = "jsfloor.builtin.\(loop.rawValue)"
            catalog.add(jsLoopProbe(loop))
            catalog.add(builtinFloorProbe(floorID, which: UInt32(index), label: label))
            catalog.row(builtinSection, label, subject: "js.\(loop.rawValue)", floor: floorID)
        }
    }

    /// A JS loop in a bare context calling an Array builtin (`pb_js_builtin_floor`).
    static func builtinFloorProbe(_ id: String, which: UInt32, label: String) -> Probe {
        bareLoopProbe(id, summary: "bare JSC: JS loop calling \(label)", what: "builtin floor") { n, result, error in
            pb_js_builtin_floor(which, n, &result, &error)
        }
    }

    static func jsLoopProbe(_ loop: JSDriver.Loop) -> Probe {
        let summary: String
        switch loop {
        case .bare: summary = "one iteration of a JS loop with no call (sum += i)"
        case .jsDefined: summary = "o.value() on a PBJSDefinedOther (defined in JS) from a JS loop"
        case .jsDefinedSelf: summary = "self.value() in a JS-defined method of PBJSDefined"
        case .jsDefinedOther: summary = "other.value() on a PBJSDefinedOther in a JS-defined method of PBJSDefined"
        case .builtinIndexOf: summary = "a.indexOf(i & 7) on an array of 8 in a patch's JS loop"
        case .builtinSlice: summary = "a.slice(7) on an array of 8 in a patch's JS loop"
        default: summary = "o.\(loop.rawValue)() on a PBDirect from a JS loop"
        }
        return Probe(id: "js.\(loop.rawValue)", summary: summary, prepare: { try JSDriver.prepare() },
                     kind: .loop { n in try JSDriver.run(loop, n) })
    }

    static func hostFloorID(_ call: PBCall) -> String { "jsfloor.host.\(call.selector)" }

    /// A JS loop in a bare context calling a host function that calls the method's IMP directly.
    static func hostFloorProbe(_ call: PBCall) -> Probe {
        Probe(id: hostFloorID(call),
              summary: "bare JSC: JS loop → host function → IMP of [PBDirect \(call.selector)]",
              prepare: {}, kind: .loop { n in
            let receiver = try SubjectEnvironment.shared.instance(.direct)
            var result = 0.0
            var error: UnsafeMutablePointer<CChar>?
            let before = pb_js_host_floor_calls()
            let elapsed = pb_js_host_floor(receiver, call, n, &result, &error)
            if elapsed < 0 {
                defer { free(error) }
                throw BenchError("host floor \(call.selector): \(error.map { String(cString: $0) } ?? "?")")
            }
            let loop = jsCalls.first { $0.1 == call }!.0
            guard result == loop.expectedResult(n), pb_js_host_floor_calls() - before == n else {
                throw BenchError("host floor \(call.selector) returned \(result) after \(pb_js_host_floor_calls() - before) host calls, expected \(loop.expectedResult(n)) after \(n)")
            }
            return UInt64(elapsed)
        })
    }

    /// A JS loop in a bare context calling a plain JS method and summing its result.
    static func jsMethodFloorProbe() -> Probe {
        bareLoopProbe("jsfloor.method", summary: "bare JSC: JS loop summing o.value() of a plain JS object", what: "JS method floor") { n, result, error in
            pb_js_method_floor(n, &result, &error)
        }
    }

    /// A loop of the bare context (PBJSFloors.m), which the host floor sets up; each counts 1 an
    /// iteration into its result, checked after every run.
    static func bareLoopProbe(_ id: String, summary: String, what: String,
                              run: @escaping (UInt64, inout Double, inout UnsafeMutablePointer<CChar>?) -> Int64) -> Probe {
        Probe(id: id, summary: summary, prepare: {
            var error: UnsafeMutablePointer<CChar>?
            guard pb_js_host_floor(try SubjectEnvironment.shared.instance(.direct), PBCallEmpty, 1, nil, &error) >= 0 else {
                defer { free(error) }
                throw BenchError("bare context: \(error.map { String(cString: $0) } ?? "?")")
            }
        }, kind: .loop { n in
            var result = 0.0
            var error: UnsafeMutablePointer<CChar>?
            let elapsed = run(n, &result, &error)
            if elapsed < 0 {
                defer { free(error) }
                throw BenchError("\(what): \(error.map { String(cString: $0) } ?? "?")")
            }
            guard result == Double(n) else { throw BenchError("\(what) counted \(result), expected \(n)") }
            return UInt64(elapsed)
        })
    }
}
