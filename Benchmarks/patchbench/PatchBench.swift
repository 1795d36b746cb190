import ArgumentParser
import Foundation

/// `make bench`: measures the engine against floors taken in the same run and prints the ratios.
@main
struct PatchBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "patchbench",
        abstract: "Benchmarks PatchEngine: each row is a ratio against a floor measured in the same run.")

    @Option(help: "Timed runs per loop probe (the median is reported).")
    var runs = 5

    @Option(help: "Target duration of one timed run, in milliseconds.")
    var targetMs = 80.0

    @Option(help: "Fresh processes per engine start-up measurement.")
    var startRuns = 7

    @Option(help: "Only rows whose section or label contains this text (`a|b`: either).")
    var filter: String?

    @Option(help: "Where to write the results as JSON.")
    var json = "bench-results/latest.json"

    @Option(help: ArgumentHelp("Child mode: time one engine start (engine|bare|secondary|bare-second) in this process and print the ns.",
                               visibility: .hidden))
    var startOnly: String?

    @Option(help: ArgumentHelp("Child mode: run one memory probe (objects|cycles|vms) in this process and print its values as JSON.",
                               visibility: .hidden))
    var memoryOnly: String?

    @Option(help: ArgumentHelp("Objects or cycles of --memory-only.", visibility: .hidden))
    var memoryCount = 1

    @Flag(help: ArgumentHelp("Child mode: run loop probes the parent asks for on standard input (ProbeServer).",
                             visibility: .hidden))
    var probeServer = false

    func validate() throws {
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
        guard targetMs > 0 else { throw ValidationError("--target-ms must be positive") }
        guard startRuns >= 1 else { throw ValidationError("--start-runs must be at least 1") }
        if let startOnly, EngineStart.Mode(rawValue: startOnly) == nil {
            throw ValidationError("--start-only takes \(EngineStart.Mode.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if let memoryOnly, MemoryProbes.Mode(rawValue: memoryOnly) == nil {
            throw ValidationError("--memory-only takes objects, cycles or vms")
        }
    }

    func run() throws {
        if let startOnly, let mode = EngineStart.Mode(rawValue: startOnly) {
            print(try EngineStart.measureInProcess(mode))
            return
        }
        if probeServer {
            ProbeServer.serve(Catalog.standard(settings: BenchSettings()))
            return
        }
        if let memoryOnly, let mode = MemoryProbes.Mode(rawValue: memoryOnly) {
            let values = try MemoryProbes.measureInProcess(mode, count: memoryCount)
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            print(String(decoding: try encoder.encode(values), as: UTF8.self))
            return
        }
        var settings = BenchSettings()
        settings.runs = runs
        settings.targetRunNanoseconds = UInt64(targetMs * 1e6)
        settings.startRuns = startRuns
        if BenchReport.buildConfiguration != "release" {
            FileHandle.standardError.write(Data("patchbench: warning: debug build; run `make bench` (release) for real numbers\n".utf8))
        }
        // Progress on one rewritten line in a terminal, one line per step in a log.
        let terminal = isatty(STDERR_FILENO) != 0
        let report: BenchReport
        do {
            report = try runBenchmarks(Catalog.standard(settings: settings), settings: settings, filter: filter) { message in
                FileHandle.standardError.write(Data((terminal ? "\r\u{1B}[K" + message : message + "\n").utf8))
            }
        } catch let error as BenchError {
            throw ValidationError("benchmark failed: \(error)")
        }
        if terminal { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        print("")
        print(report.table(), terminator: "")
        let url = URL(fileURLWithPath: json)
        try report.writeJSON(to: url)
        print("\nresults: \(url.path)")
    }
}
