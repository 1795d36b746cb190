import Foundation
import PatchRuntime

/// A row with its two measurements.
struct RowResult {
    let row: Row
    let subject: Measurement
    let floor: Measurement

    /// Subject time ÷ floor time (for throughput rows: floor MB/s ÷ subject MB/s).
    var ratio: Double { subject.median / floor.median }
}

/// Everything one run of the harness measured.
struct BenchReport {
    let settings: BenchSettings
    let measurements: [Measurement]   // in the order they were measured
    let rows: [RowResult]
    let date: Date
    /// The count rows (memory), measured after the timed probes.
    var counts: [CountResult] = []

    static var buildConfiguration: String {
        #if DEBUG
        return "debug"
        #else
        return "release"
        #endif
    }
}

/// Measures what the selected rows need (each probe once, samples interleaved) and pairs the results.
func runBenchmarks(_ catalog: Catalog, settings: BenchSettings, filter: String? = nil,
                   progress: (String) -> Void = { _ in }) throws -> BenchReport {
    let rows = catalog.rows(matching: filter)
    let countRows = catalog.countRows(matching: filter)
    if rows.isEmpty && countRows.isEmpty { throw BenchError("no row matches \"\(filter ?? "")\"") }
    var ids: [String] = []
    for row in rows { for id in [row.subject, row.floor] where !ids.contains(id) { ids.append(id) } }
    let probes = try ids.map { id -> Probe in
        guard let probe = catalog.probes[id] else { throw BenchError("unknown probe \(id)") }
        return probe
    }
    let measurements = try Sampler(settings: settings).measure(probes, progress: progress)
    for m in measurements where !m.samples.allSatisfy({ $0.isFinite && $0 > 0 }) {
        throw BenchError("probe \(m.probe.id) gave samples that are not positive and finite: \(m.samples)")
    }
    let byID = Dictionary(uniqueKeysWithValues: measurements.map { ($0.probe.id, $0) })
    let results = rows.map { RowResult(row: $0, subject: byID[$0.subject]!, floor: byID[$0.floor]!) }
    var report = BenchReport(settings: settings, measurements: measurements, rows: results, date: Date())
    report.counts = try catalog.measureCounts(countRows, progress: progress)
    return report
}

// MARK: - Table

extension BenchReport {
    /// The aligned text table `make bench` prints.
    func table() -> String {
        let header = ["", "subject", "floor", "ratio", "extra/op"]
        var lines: [[String]] = []
        var sections: [Int: String] = [:]   // line index → section title printed before it
        var lastSection: String?
        for result in rows {
            if result.row.section != lastSection {
                sections[lines.count] = result.row.section
                lastSection = result.row.section
            }
            lines.append(["  " + result.row.label, Self.format(result.subject), Self.format(result.floor),
                          Self.formatRatio(result.ratio), Self.formatExtra(result)])
        }
        var widths = header.map { $0.count }
        for line in lines { for (i, cell) in line.enumerated() { widths[i] = max(widths[i], cell.count) } }

        func render(_ cells: [String]) -> String {
            cells.enumerated().map { i, cell in
                i == 0 ? cell.padding(toLength: widths[i], withPad: " ", startingAt: 0)
                       : String(repeating: " ", count: widths[i] - cell.count) + cell
            }.joined(separator: "   ")
        }

        var out = "PatchEngine benchmarks · \(Self.buildConfiguration) build · median of \(settings.runs) runs per loop probe\n"
        out += "ratio = subject time ÷ floor time, both measured in this run; extra/op = subject − floor\n"
        out += "hooked calls: " + (PEDispatchReadersFence()
            ? "a memory fence per call (no process-wide barrier here)\n\n"
            : "no fence per call (hook changes pay a process-wide barrier, membarrier)\n\n")
        if !rows.isEmpty { out += render(header) + "\n" }   // count rows only: their own header
        for (i, line) in lines.enumerated() {
            if let section = sections[i] { out += (i == 0 ? "" : "\n") + section + "\n" }
            out += render(line) + "\n"
        }
        return out + countTable()
    }

    static func format(_ m: Measurement) -> String {
        switch m.probe.display {
        case .throughput:
            return m.megabytesPerSecond.map { String(format: "%.1f MB/s", $0) } ?? "?"
        case .duration:
            return String(format: "%.2f ms", m.median / 1e6)
        case .perCall:
            return formatNanoseconds(m.median) + "/call"
        }
    }

    static func formatNanoseconds(_ ns: Double) -> String {
        let magnitude = abs(ns)
        if magnitude < 1_000 { return String(format: "%.2f ns", ns) }
        if magnitude < 1_000_000 { return String(format: "%.2f µs", ns / 1e3) }
        return String(format: "%.2f ms", ns / 1e6)
    }

    static func formatRatio(_ ratio: Double) -> String {
        if ratio >= 100 { return String(format: "%.0f×", ratio) }
        if ratio >= 10 { return String(format: "%.1f×", ratio) }
        return String(format: "%.2f×", ratio)
    }

    static func formatExtra(_ result: RowResult) -> String {
        if case .throughput = result.subject.probe.display { return "" }
        let extra = result.subject.median - result.floor.median
        return (extra >= 0 ? "+" : "−") + formatNanoseconds(abs(extra))
    }
}

// MARK: - JSON

/// The JSON written to bench-results/latest.json.
struct BenchJSON: Codable {
    struct Host: Codable {
        let processors: Int
        let operatingSystem: String
        let hookReadersFence: Bool
    }
    struct Settings: Codable {
        let runs: Int
        let targetRunMilliseconds: Double
        let startRuns: Int
        let fixedIterations: UInt64?
    }
    struct MeasurementJSON: Codable {
        let id: String
        let summary: String
        let operationsPerRun: UInt64
        let medianNanoseconds: Double
        let minNanoseconds: Double
        let maxNanoseconds: Double
        let samplesNanoseconds: [Double]
        let megabytesPerSecond: Double?
    }
    struct RowJSON: Codable {
        let section: String
        let label: String
        let subject: String
        let floor: String
        let subjectMedianNanoseconds: Double
        let floorMedianNanoseconds: Double
        let ratio: Double
    }
    let generated: String
    let build: String
    let host: Host
    let settings: Settings
    let measurements: [MeasurementJSON]
    let rows: [RowJSON]
    /// Rows with an absolute target (memory); see CountRows.swift.
    var counts: [CountRowJSON]? = nil
}

extension BenchReport {
    var json: BenchJSON {
        let formatter = ISO8601DateFormatter()
        return BenchJSON(
            generated: formatter.string(from: date),
            build: Self.buildConfiguration,
            host: .init(processors: ProcessInfo.processInfo.activeProcessorCount,
                        operatingSystem: ProcessInfo.processInfo.operatingSystemVersionString,
                        hookReadersFence: PEDispatchReadersFence()),
            settings: .init(runs: settings.runs, targetRunMilliseconds: Double(settings.targetRunNanoseconds) / 1e6,
                            startRuns: settings.startRuns, fixedIterations: settings.fixedIterations),
            measurements: measurements.map { m in
                .init(id: m.probe.id, summary: m.probe.summary, operationsPerRun: m.operationsPerRun,
                      medianNanoseconds: m.median, minNanoseconds: m.minimum, maxNanoseconds: m.maximum,
                      samplesNanoseconds: m.samples, megabytesPerSecond: m.megabytesPerSecond)
            },
            rows: rows.map { r in
                .init(section: r.row.section, label: r.row.label, subject: r.row.subject, floor: r.row.floor,
                      subjectMedianNanoseconds: r.subject.median, floorMedianNanoseconds: r.floor.median, ratio: r.ratio)
            },
            counts: counts.map(\.json))
    }

    /// Writes the JSON form to `url`, creating its directory.
    func writeJSON(to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(json).write(to: url, options: .atomic)
    }
}
