import Foundation
import PatchEngine
import PatchRuntime
import BenchFixtures

/// One line of the table: a subject probe compared with a floor probe measured in the same run.
struct Row {
    let section: String
    let label: String
    let subject: String
    let floor: String
}

/// Every probe and row of `make bench`.
///
/// Adding a row: add a probe (usually `nativeCallProbe` on a new `Subject` with its own prepare
/// step, or a `.loop` closure of your own) and a `Row` naming it and its floor. Probes are measured
/// once per run even when several rows use them.
struct Catalog {
    private(set) var probes: [String: Probe] = [:]
    private(set) var rows: [Row] = []
    /// Rows with an absolute target instead of a floor (CountRows.swift).
    var countProbes: [String: CountProbe] = [:]
    var countRows: [CountRow] = []

    mutating func add(_ probe: Probe) {
        precondition(probes[probe.id] == nil, "probe \(probe.id) defined twice")
        probes[probe.id] = probe
    }

    mutating func row(_ section: String, _ label: String, subject: String, floor: String) {
        precondition(probes[subject] != nil && probes[floor] != nil, "row \(label) names an unknown probe")
        rows.append(Row(section: section, label: label, subject: subject, floor: floor))
    }

    /// The rows whose section or label contains `filter` (case-insensitive; `|` separates
    /// alternatives); all when nil.
    func rows(matching filter: String?) -> [Row] {
        guard let filter, !filter.isEmpty else { return rows }
        return rows.filter { rowMatches(filter, section: $0.section, label: $0.label) }
    }

    // MARK: The standard catalog

    static let allCalls: [PBCall] = [PBCallEmpty, PBCallConstant, PBCallObjectArgument, PBCallObjectReturn]

    static func standard(settings: BenchSettings) -> Catalog {
        var catalog = Catalog()
        let environment = SubjectEnvironment.shared

        // Native calls: the floor (never patched) and each treatment.
        let treatments: [(Subject, () throws -> Void)] = [
            (.direct, {}),
            (.patchedForwarding, { try environment.patch(.patchedForwarding, route: PERouteForwarding) }),
            (.patchedClosure, { try environment.patch(.patchedClosure, route: PERouteClosure) }),
            (.slotForwarding, { try environment.installSlots(.slotForwarding, route: PERouteForwarding) }),
            (.slotClosure, { try environment.installSlots(.slotClosure, route: PERouteClosure) }),
        ]
        for (subject, prepare) in treatments {
            for call in allCalls { catalog.add(nativeCallProbe(subject, call, prepare: prepare)) }
        }

        let patchedForwarding = "Objective-C calls a patched method (JS implementation), forwarding route"
        let patchedClosure = "Objective-C calls a patched method (JS implementation), closure route (default)"
        let slotFloor = "Dispatcher floor: slot with no patch, no JS (the route's own cost)"
        for call in allCalls {
            catalog.row(patchedForwarding, call.label + " vs unpatched",
                        subject: probeID(.patchedForwarding, call), floor: probeID(.direct, call))
        }
        for call in allCalls {
            catalog.row(patchedClosure, call.label + " vs unpatched",
                        subject: probeID(.patchedClosure, call), floor: probeID(.direct, call))
        }
        for call in allCalls {
            catalog.row(slotFloor, "forwarding " + call.label + " vs direct",
                        subject: probeID(.slotForwarding, call), floor: probeID(.direct, call))
        }
        for call in allCalls {
            catalog.row(slotFloor, "closure " + call.label + " vs direct",
                        subject: probeID(.slotClosure, call), floor: probeID(.direct, call))
        }
        let split = "Where a patched -empty call spends its time"
        catalog.row(split, "JS part, forwarding: patched vs empty slot",
                    subject: probeID(.patchedForwarding, PBCallEmpty), floor: probeID(.slotForwarding, PBCallEmpty))
        catalog.row(split, "JS part, closure: patched vs empty slot",
                    subject: probeID(.patchedClosure, PBCallEmpty), floor: probeID(.slotClosure, PBCallEmpty))
        catalog.row(split, "route: closure slot vs forwarding slot",
                    subject: probeID(.slotClosure, PBCallEmpty), floor: probeID(.slotForwarding, PBCallEmpty))

        // Hooked -empty (issue 4): an empty Before and an empty After hook through the Aspects API,
        // on the class, on one instance and on a subclass that inherits -empty, through the fast path (closure route) and the
        // forwarding path. Only -empty is hooked, so only its probe exists.
        let hookTreatments: [(Subject, PERoute, Bool)] = [
            (.hookedClosure, PERouteClosure, false), (.hookedForwarding, PERouteForwarding, false),
            (.instanceHookedClosure, PERouteClosure, true), (.instanceHookedForwarding, PERouteForwarding, true),
            (.inheritedHookedClosure, PERouteClosure, false), (.inheritedHookedForwarding, PERouteForwarding, false),
        ]
        for (subject, route, perInstance) in hookTreatments {
            catalog.add(nativeCallProbe(subject, PBCallEmpty) {
                try environment.hookEmpty(subject, route: route, perInstance: perInstance)
            })
        }
        for (level, fast, forwarding) in [("class", Subject.hookedClosure, Subject.hookedForwarding),
                                          ("one instance", .instanceHookedClosure, .instanceHookedForwarding),
                                          ("a subclass that inherits it", .inheritedHookedClosure, .inheritedHookedForwarding)] {
            let section = "Objective-C calls -empty hooked on \(level) (empty before + after hook, Aspects API)"
            catalog.row(section, "fast path (closure route) vs unhooked",
                        subject: probeID(fast, PBCallEmpty), floor: probeID(.direct, PBCallEmpty))
            catalog.row(section, "forwarding path vs unhooked",
                        subject: probeID(forwarding, PBCallEmpty), floor: probeID(.direct, PBCallEmpty))
            catalog.row(section, "gap: forwarding path vs fast path",
                        subject: probeID(forwarding, PBCallEmpty), floor: probeID(fast, PBCallEmpty))
        }
        let hookSplit = "Where a hooked -empty call spends its time"
        catalog.row(hookSplit, "fast path: hooked vs empty closure slot",
                    subject: probeID(.hookedClosure, PBCallEmpty), floor: probeID(.slotClosure, PBCallEmpty))
        catalog.row(hookSplit, "forwarding: hooked vs empty forwarding slot",
                    subject: probeID(.hookedForwarding, PBCallEmpty), floor: probeID(.slotForwarding, PBCallEmpty))

        catalog.addObjCToJSRows()
        catalog.addRouterRows()

        // JS → Objective-C, and JS → methods defined in JS (Catalog+JSCalls.swift).
        addJSCallRows(to: &catalog, settings: settings)
        // After the rows whose floors its limits-off rows share.
        catalog.addTimeLimitRows()

        // Preprocessor.
        let workload = WorkloadBox(megabytes: settings.preprocessorMegabytes)
        let size = String(format: "%g", settings.preprocessorMegabytes)
        catalog.add(Probe(id: "preprocessor.rewrite",
                          summary: "Preprocessor.rewrite of a \(size) MB JSPatch-style script",
                          display: .throughput(bytesPerOperation: { workload.script.utf8.count }), prepare: { try workload.prepare() }, kind: .loop { n in
            let source = workload.script
            let start = pb_now_ns()
            for _ in 0..<n { pb_consume(Int64(Preprocessor.rewrite(source).rewriteCount)) }
            return pb_now_ns() - start
        }))
        catalog.add(Probe(id: "preprocessor.floor",
                          summary: "byte scan + copy into a new String of the same script",
                          display: .throughput(bytesPerOperation: { workload.script.utf8.count }), prepare: { try workload.prepare() }, kind: .loop { n in
            let source = workload.script
            let start = pb_now_ns()
            for _ in 0..<n { pb_consume(Int64(ByteScanCopy.run(source).utf8.count)) }
            return pb_now_ns() - start
        }))
        catalog.row("Preprocessor throughput (\(size) MB script)",
                    "Preprocessor.rewrite vs byte scan + copy", subject: "preprocessor.rewrite", floor: "preprocessor.floor")

        // Engine start, in fresh processes.
        for mode in EngineStart.Mode.allCases {
            let executable = settings.childExecutable
            catalog.add(Probe(id: "start.\(mode.rawValue)",
                              summary: mode.summary,
                              display: .duration,
                              prepare: { _ = try EngineStart.measureInChild(mode, executable: executable) },  // warms the page cache
                              kind: .single { try EngineStart.measureInChild(mode, executable: executable) }))
        }
        catalog.row("Engine start (fresh process each time, median of \(settings.startRuns))",
                    "PatchEngine start vs bare JSGlobalContext", subject: "start.engine", floor: "start.bare")
        catalog.row("Secondary VM, made for threads running JS at once (fresh process each time, median of \(settings.startRuns))",
                    "VM start + a 20-method patch replayed vs a second bare VM", subject: "start.secondary", floor: "start.bare-second")
        addLifecycleRows(to: &catalog, settings: settings)
        return catalog
    }

    static func probeID(_ subject: Subject, _ call: PBCall) -> String {
        "objc.\(subject.className).\(call.selector)"
    }

    /// Native calls of one subject method from a native loop.
    static func nativeCallProbe(_ subject: Subject, _ call: PBCall, prepare: @escaping () throws -> Void) -> Probe {
        Probe(id: probeID(subject, call), summary: "[\(subject.className) \(call.selector)] from an Objective-C loop",
              prepare: prepare, kind: .loop { n in
            let object = try SubjectEnvironment.shared.instance(subject)
            var error: UnsafeMutablePointer<CChar>?
            let elapsed = pb_time_calls(object, call, n, &error)
            if elapsed < 0 {
                defer { free(error) }
                throw BenchError("[\(subject.className) \(call.selector)] raised \(error.map { String(cString: $0) } ?? "?")")
            }
            return UInt64(elapsed)
        })
    }
}

extension PBCall {
    var selector: String {
        switch self {
        case PBCallEmpty: return "empty"
        case PBCallConstant: return "constant"
        case PBCallObjectArgument: return "takeObject:"
        case PBCallStructArgument: return "takeRect:"
        default: return "object"
        }
    }

    /// The row label: the method and what it exercises.
    var label: String {
        switch self {
        case PBCallEmpty: return "-empty"
        case PBCallConstant: return "-constant (int return)"
        case PBCallObjectArgument: return "-takeObject: (object arg)"
        case PBCallStructArgument: return "-takeRect: (struct arg)"
        default: return "-object (object return)"
        }
    }
}

/// The preprocessor workload, built once and checked: the rewrite does the work it should.
final class WorkloadBox: @unchecked Sendable {
    let megabytes: Double
    private(set) var script = ""

    init(megabytes: Double) { self.megabytes = megabytes }

    func prepare() throws {
        if !script.isEmpty { return }
        let source = PreprocessorWorkload.script(megabytes: megabytes)
        let rewritten = Preprocessor.rewrite(source)
        let expected = PreprocessorWorkload.expectedRewrites(in: source)
        // Every call rewritten, and nothing else changed: undoing the rewrites gives the source.
        guard expected > 0, rewritten.rewriteCount == expected, Preprocessor.restoreCalls(in: rewritten.code) == source else {
            throw BenchError("the preprocessor rewrote \(rewritten.rewriteCount) calls of the workload, expected \(expected)")
        }
        guard ByteScanCopy.run(source) == source else { throw BenchError("the byte scan + copy floor changed the script") }
        script = source
    }
}

/// Whether a row's section or label contains one of `filter`'s `|`-separated texts (case-insensitive).
func rowMatches(_ filter: String, section: String, label: String) -> Bool {
    filter.split(separator: "|").contains { part in
        section.localizedCaseInsensitiveContains(part) || label.localizedCaseInsensitiveContains(part)
    }
}
