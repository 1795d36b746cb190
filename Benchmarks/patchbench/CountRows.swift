import Foundation

/// Rows that report a quantity against an absolute target (objects deallocated, memory growth in
/// percent) rather than a time against a floor: the memory rows of issue 9.
///
/// A `CountProbe` runs once per run of the harness (it is not a loop to calibrate) and returns
/// named values; each `CountRow` shows one of them with its target.
struct CountProbe {
    let id: String
    let summary: String
    /// Work done once and checked: returns the values by name, throws when the probe did not
    /// measure what it claims (a patch not applied, objects not created).
    let run: () throws -> [String: Double]
}

/// What a count row's value must be.
enum CountTarget {
    /// At most this value (memory growth in percent, IMPs not restored).
    case atMost(Double)
    /// Exactly the value named `key` of the same probe (every created object deallocated).
    case equalTo(key: String, what: String)
    /// Shown for information only.
    case none
}

/// How a count row's value reads.
enum CountUnit {
    case count
    case percent
    case kilobytes
    case bytes
}

struct CountRow {
    let section: String
    let label: String
    let probe: String
    let key: String
    let unit: CountUnit
    let target: CountTarget
}

struct CountResult {
    let row: CountRow
    let value: Double
    /// The value the target names (for `.equalTo`), or the bound (for `.atMost`).
    let targetValue: Double?
    /// nil when the row has no target.
    let met: Bool?
    /// Every value the probe returned, for the JSON.
    let values: [String: Double]
}

extension Catalog {
    mutating func add(_ probe: CountProbe) {
        precondition(countProbes[probe.id] == nil, "count probe \(probe.id) defined twice")
        countProbes[probe.id] = probe
    }

    mutating func countRow(_ section: String, _ label: String, probe: String, key: String,
                           unit: CountUnit, target: CountTarget) {
        precondition(countProbes[probe] != nil, "count row \(label) names an unknown probe")
        countRows.append(CountRow(section: section, label: label, probe: probe, key: key, unit: unit, target: target))
    }

    /// The count rows whose section or label contains `filter` (as `rows(matching:)`); all when nil.
    func countRows(matching filter: String?) -> [CountRow] {
        guard let filter, !filter.isEmpty else { return countRows }
        return countRows.filter { rowMatches(filter, section: $0.section, label: $0.label) }
    }

    /// Runs each probe the rows need once and reads the rows' values.
    func measureCounts(_ rows: [CountRow], progress: (String) -> Void = { _ in }) throws -> [CountResult] {
        var values: [String: [String: Double]] = [:]
        for row in rows where values[row.probe] == nil {
            guard let probe = countProbes[row.probe] else { throw BenchError("unknown count probe \(row.probe)") }
            progress("measuring \(probe.id)")
            values[row.probe] = try probe.run()
        }
        return try rows.map { row in
            let probeValues = values[row.probe]!
            guard let value = probeValues[row.key], value.isFinite else {
                throw BenchError("count probe \(row.probe) gave no finite \(row.key): \(probeValues)")
            }
            switch row.target {
            case .atMost(let bound):
                return CountResult(row: row, value: value, targetValue: bound, met: value <= bound, values: probeValues)
            case .equalTo(let key, _):
                guard let expected = probeValues[key] else { throw BenchError("count probe \(row.probe) gave no \(key)") }
                return CountResult(row: row, value: value, targetValue: expected, met: value == expected, values: probeValues)
            case .none:
                return CountResult(row: row, value: value, targetValue: nil, met: nil, values: probeValues)
            }
        }
    }
}

// MARK: - Table and JSON

extension CountResult {
    func formatted(_ value: Double) -> String {
        switch row.unit {
        case .count: return Self.grouped(value)
        case .percent: return String(format: "%+.1f %%", value)
        case .kilobytes: return String(format: "%.2f KB", value)
        case .bytes: return String(format: "%.1f B", value)
        }
    }

    static func grouped(_ value: Double) -> String {
        let formatter = NumberFormatter()
        formatter.numberStyle = .decimal
        formatter.groupingSeparator = ","
        formatter.usesGroupingSeparator = true
        formatter.maximumFractionDigits = 0
        return formatter.string(from: NSNumber(value: value)) ?? String(format: "%.0f", value)
    }

    var targetText: String {
        switch row.target {
        case .atMost(let bound): return "≤ " + formatted(bound).replacingOccurrences(of: "+", with: "")
        case .equalTo(_, let what): return "= \(what) (\(formatted(targetValue ?? .nan)))"
        case .none: return ""
        }
    }

    var verdict: String {
        switch met {
        case true?: return "met"
        case false?: return "MISSED"
        case nil: return ""
        }
    }
}

extension BenchReport {
    /// The count rows as an aligned table: value, target, verdict.
    func countTable() -> String {
        guard !counts.isEmpty else { return "" }
        let header = ["", "value", "target", ""]
        var lines: [[String]] = []
        var sections: [Int: String] = [:]
        var lastSection: String?
        for result in counts {
            if result.row.section != lastSection { sections[lines.count] = result.row.section; lastSection = result.row.section }
            lines.append(["  " + result.row.label, result.formatted(result.value), result.targetText, result.verdict])
        }
        var widths = header.map { $0.count }
        for line in lines { for (i, cell) in line.enumerated() { widths[i] = max(widths[i], cell.count) } }
        func render(_ cells: [String]) -> String {
            cells.enumerated().map { i, cell in
                i == 0 || i == cells.count - 1 ? cell.padding(toLength: widths[i], withPad: " ", startingAt: 0)
                       : String(repeating: " ", count: widths[i] - cell.count) + cell
            }.joined(separator: "   ")
        }
        var out = "\n" + render(header) + "\n"
        for (i, line) in lines.enumerated() {
            if let section = sections[i] { out += (i == 0 ? "" : "\n") + section + "\n" }
            out += render(line) + "\n"
        }
        return out
    }
}

/// A count row in bench-results/latest.json.
struct CountRowJSON: Codable {
    let section: String
    let label: String
    let probe: String
    let key: String
    let unit: String
    let value: Double
    let target: String
    let targetValue: Double?
    let met: Bool?
    /// Everything the probe measured (counts, resident bytes at each point).
    let probeValues: [String: Double]
}

extension CountResult {
    var json: CountRowJSON {
        let unit: String
        switch row.unit {
        case .count: unit = "count"
        case .percent: unit = "percent"
        case .kilobytes: unit = "kilobytes"
        case .bytes: unit = "bytes"
        }
        return CountRowJSON(section: row.section, label: row.label, probe: row.probe, key: row.key, unit: unit,
                            value: value, target: targetText, targetValue: targetValue, met: met, probeValues: values)
    }
}
