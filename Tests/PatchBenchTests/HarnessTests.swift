import Foundation
import XCTest
@testable import patchbench
import PatchEngine
import PatchRuntime
import BenchFixtures

/// Runs the whole benchmark catalog with tiny iteration counts: every probe executes, checks
/// what it measures (patched calls run JS, empty slots run the original through the claimed
/// route, the preprocessor rewrites the workload) and gives positive, finite numbers. Nothing
/// about speed is asserted.
final class HarnessTests: XCTestCase {
    private func tinySettings() throws -> BenchSettings {
        var settings = BenchSettings()
        settings.runs = 2
        settings.fixedIterations = 3
        settings.startRuns = 1
        settings.preprocessorMegabytes = 0.02
        settings.patchMethodCounts = (small: 10, large: 20)
        settings.memoryObjects = 2_000
        settings.memoryCycles = 30
        settings.childExecutable = try patchbenchExecutable()
        return settings
    }

    /// Own-process rows run in the probe server, which checks each loop's result there: a run
    /// that can't be checked, or a probe the server doesn't have, is an error in the parent.
    func testOwnProcessProbesRunInTheProbeServerAndReportItsErrors() throws {
        let server = try ProbeServer.shared(try patchbenchExecutable())
        try server.prepare("js.jsDefinedSelf")
        XCTAssertGreaterThan(try server.run("js.jsDefinedSelf", 1_000), 0)
        XCTAssertThrowsError(try server.run("no.such.probe", 1)) { error in
            XCTAssertTrue(String(describing: error).contains("unknown request"), "\(error)")
        }
        XCTAssertThrowsError(try server.run("start.bare", 1)) { error in   // not a loop probe
            XCTAssertTrue(String(describing: error).contains("cannot run start.bare"), "\(error)")
        }
        XCTAssertGreaterThan(try server.run("js.jsDefined", 10), 0, "the server answers after errors")
    }

    func testEveryRowProducesPositiveFiniteNumbers() throws {
        let settings = try tinySettings()
        let catalog = Catalog.standard(settings: settings)
        let report = try runBenchmarks(catalog, settings: settings)

        XCTAssertEqual(report.rows.map(\.row.label), catalog.rows.map(\.label))
        XCTAssertEqual(Set(report.measurements.map(\.probe.id)), Set(catalog.rows.flatMap { [$0.subject, $0.floor] }))
        for measurement in report.measurements {
            XCTAssertEqual(measurement.samples.count, measurement.operationsPerRun == 1 ? 1 : 2, measurement.probe.id)
            XCTAssertTrue(measurement.median.isFinite && measurement.median > 0, "\(measurement.probe.id): \(measurement.median)")
        }
        for result in report.rows {
            XCTAssertTrue(result.ratio.isFinite && result.ratio > 0, "\(result.row.label): \(result.ratio)")
        }
        // Count rows (memory) run too: every object dropped was deallocated, every IMP restored.
        XCTAssertEqual(report.counts.map(\.row.label), catalog.countRows.map(\.label))
        for result in report.counts where result.row.unit == .count {
            XCTAssertEqual(result.met, true, "\(result.row.label): \(result.value)")
        }
        let throughput = report.measurements.compactMap(\.megabytesPerSecond)
        XCTAssertEqual(throughput.count, 2, "the preprocessor row and its floor report MB/s")
        XCTAssertTrue(throughput.allSatisfy { $0.isFinite && $0 > 0 })

        // The table has a line per row; the JSON has every row and measurement.
        let table = report.table()
        for result in report.rows { XCTAssertTrue(table.contains(result.row.label), result.row.label) }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("patchbench-\(getpid())/latest.json")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        try report.writeJSON(to: url)
        let decoded = try JSONDecoder().decode(BenchJSON.self, from: Data(contentsOf: url))
        XCTAssertEqual(decoded.rows.count, report.rows.count)
        XCTAssertEqual(decoded.measurements.count, report.measurements.count)
        XCTAssertEqual(decoded.rows.first?.ratio, report.rows.first?.ratio)
        XCTAssertEqual(decoded.counts?.count, report.counts.count)
    }

    func testCalibrationScalesToTheTargetDuration() throws {
        var settings = BenchSettings()
        settings.runs = 3
        settings.targetRunNanoseconds = 4_000_000
        // A fake clock: every operation "takes" 1 µs, so a run of n operations reports n µs.
        var counts: [UInt64] = []
        let probe = Probe(id: "fake", summary: "fake", kind: .loop { n in counts.append(n); return n * 1_000 })
        let measurement = try Sampler(settings: settings).measure(probe)
        XCTAssertEqual(measurement.operationsPerRun, 4_000, "4 ms at 1 µs per operation")
        XCTAssertEqual(measurement.samples, [1_000, 1_000, 1_000])
        XCTAssertEqual(Array(counts.suffix(4)), [4_000, 4_000, 4_000, 4_000], "one warm-up run, then the timed runs")
    }

    func testSamplesOfSeveralProbesAreInterleaved() throws {
        var settings = BenchSettings()
        settings.runs = 3
        settings.startRuns = 2
        settings.fixedIterations = 10
        var log: [String] = []
        let loop = Probe(id: "loop", summary: "", kind: .loop { n in log.append("loop"); return n * 5 })
        let single = Probe(id: "single", summary: "", display: .duration, kind: .single { log.append("single"); return 7 })
        let measurements = try Sampler(settings: settings).measure([loop, single])
        // The loop probe warms up once when prepared; a single-shot probe takes one sample under
        // fixed iterations (as in the tests); then the rounds alternate.
        XCTAssertEqual(log, ["loop", "loop", "single", "loop", "loop"])
        XCTAssertEqual(measurements.map(\.samples), [[5, 5, 5], [7]])
        XCTAssertEqual(measurements.map(\.operationsPerRun), [10, 1])
    }

    func testFilterSelectsRowsAndUnknownFilterIsAnError() throws {
        let catalog = Catalog.standard(settings: BenchSettings())
        let rows = catalog.rows(matching: "preprocessor")
        XCTAssertEqual(rows.map(\.subject), ["preprocessor.rewrite"])
        XCTAssertThrowsError(try runBenchmarks(catalog, settings: BenchSettings(), filter: "no such row")) { error in
            XCTAssertEqual("\(error)", "no row matches \"no such row\"")
        }
    }

    func testHookedSubjectsCountEachHookOncePerCallOnlyDuringAPass() throws {
        let environment = SubjectEnvironment.shared
        try environment.hookEmpty(.instanceHookedClosure, route: PERouteClosure, perInstance: true)
        try environment.hookEmpty(.instanceHookedClosure, route: PERouteClosure, perInstance: true)  // idempotent
        let object = try environment.instance(.instanceHookedClosure)
        pb_hook_counting_begin(object)
        XCTAssertEqual(pb_time_calls(object, PBCallEmpty, 5, nil) >= 0, true)
        var counts = pb_hook_counting_end()
        XCTAssertEqual([counts.before, counts.after, counts.outOfOrder, counts.wrongInstance], [5, 5, 0, 0])
        // Outside a pass the blocks record nothing: the counts stay those of the last pass.
        XCTAssertEqual(pb_time_calls(object, PBCallEmpty, 5, nil) >= 0, true)
        counts = pb_hook_counting_end()
        XCTAssertEqual([counts.before, counts.after], [5, 5])
        // A pass with the wrong expected instance is reported as such.
        let direct = try environment.instance(.direct)
        pb_hook_counting_begin(direct)
        XCTAssertEqual(pb_time_calls(object, PBCallEmpty, 2, nil) >= 0, true)
        XCTAssertEqual(pb_hook_counting_end().wrongInstance, 4)
        // The check notices a subject whose route is not the one claimed.
        XCTAssertThrowsError(try environment.hookEmpty(.instanceHookedClosure, route: PERouteForwarding, perInstance: true)) { error in
            XCTAssertEqual("\(error)", "PBInstanceHookedClosure -empty uses route 1, expected 0")
        }
    }

    func testRefusedHooksReportAspectsErrors() {
        var error: UnsafeMutablePointer<CChar>?
        XCTAssertFalse(pb_hook_empty("PBNoSuchClass", nil, &error))
        XCTAssertEqual(error.map { String(cString: $0) }, "no class or object to hook")
        free(error); error = nil
        XCTAssertFalse(pb_hook_empty("NSObject", nil, &error))
        XCTAssertEqual(error.map { String(cString: $0) },
                       "Before hook refused: AspectErrorDomain 1: Unable to find selector -[NSObject empty].")
        free(error)
    }

    func testWorkloadIsValidJavaScriptTheEngineAccepts() throws {
        let script = PreprocessorWorkload.script(megabytes: 0.01)
        XCTAssertGreaterThanOrEqual(script.utf8.count, 10_000)
        XCTAssertNoThrow(try PatchEngine.checkSyntax(script, name: "workload.js"))
    }
}
