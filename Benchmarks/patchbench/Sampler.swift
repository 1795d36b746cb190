import Foundation

/// How much work each measurement does.
struct BenchSettings {
    /// Timed runs per measurement; the median is reported.
    var runs = 5
    /// Aim of one timed run, after calibration.
    var targetRunNanoseconds: UInt64 = 80_000_000
    /// When set, every loop measurement uses exactly this many operations per run and skips
    /// calibration (the tests use tiny counts to prove the harness works, not to time anything).
    var fixedIterations: UInt64?
    /// Size of the preprocessor workload, in MB (10^6 bytes).
    var preprocessorMegabytes = 4.0
    /// Fresh processes per start-up measurement.
    var startRuns = 7
    /// Methods the two many-methods patches override (the row compares the second with the first).
    var patchMethodCounts = (small: 1_000, large: 2_000)
    /// Objective-C objects passed to JS and dropped by the memory row.
    var memoryObjects = 1_000_000
    /// Apply/revert cycles of the memory row (growth is measured from a tenth of them to the end).
    var memoryCycles = 10_000
    /// The patchbench executable to spawn for start-up measurements.
    var childExecutable = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
}

/// What a probe measures, and how.
enum ProbeKind {
    /// Runs `n` operations and returns the elapsed nanoseconds. Calibrated so a run takes about
    /// `targetRunNanoseconds`, warmed up once, then repeated `runs` times.
    case loop((_ operations: UInt64) throws -> UInt64)
    /// One operation per sample that cannot be repeated in-process (a process start): sampled
    /// `startRuns` times with no calibration.
    case single(() throws -> UInt64)
}

/// How a probe's result reads best.
enum ProbeDisplay {
    /// Time per call (ns, µs).
    case perCall
    /// Throughput in MB/s; the closure gives the bytes one operation processes (after `prepare`).
    case throughput(bytesPerOperation: () -> Int)
    /// Time per operation in ms (a start-up).
    case duration
}

/// One quantity the benchmark measures. Probes are identified by `id` and measured at most once
/// per run of the harness, however many rows compare against them.
struct Probe {
    let id: String
    /// What one operation is, for the JSON ("[PBDirect empty] from an Objective-C loop").
    let summary: String
    var display: ProbeDisplay = .perCall
    /// Work done once before measuring (installing patches, building inputs); must be idempotent.
    var prepare: () throws -> Void = {}
    let kind: ProbeKind
}

/// The result of measuring a probe.
struct Measurement {
    let probe: Probe
    /// Operations per timed run (1 for single-shot probes).
    let operationsPerRun: UInt64
    /// Nanoseconds per operation of each timed run, in run order.
    let samples: [Double]
    /// Bytes one operation processed, for throughput probes.
    let bytesPerOperation: Int?

    var median: Double {
        let sorted = samples.sorted()
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }
    var minimum: Double { samples.min() ?? .nan }
    var maximum: Double { samples.max() ?? .nan }

    /// MB/s (10^6 bytes per second) at the median, for throughput probes.
    var megabytesPerSecond: Double? {
        bytesPerOperation.map { Double($0) / median * 1e9 / 1e6 }
    }
}

/// An error that stops the benchmark: a probe that failed or measured something else than it claims.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A probe ready to be sampled: prepared, calibrated and warmed up.
struct PreparedProbe {
    let probe: Probe
    /// Operations per timed run.
    let operations: UInt64
    /// How many samples the probe takes in all.
    let sampleCount: Int
    let bytesPerOperation: Int?
    private(set) var samples: [Double] = []

    init(probe: Probe, operations: UInt64, sampleCount: Int, bytesPerOperation: Int?) {
        self.probe = probe; self.operations = operations; self.sampleCount = sampleCount
        self.bytesPerOperation = bytesPerOperation
    }

    var isComplete: Bool { samples.count >= sampleCount }

    /// Takes one timed sample.
    mutating func sample() throws {
        switch probe.kind {
        case .loop(let run): samples.append(Double(max(1, try run(operations))) / Double(operations))
        case .single(let run): samples.append(Double(max(1, try run())))
        }
    }

    var measurement: Measurement {
        Measurement(probe: probe, operationsPerRun: operations, samples: samples, bytesPerOperation: bytesPerOperation)
    }
}

/// Calibrates, warms up and samples probes.
struct Sampler {
    let settings: BenchSettings

    /// Runs the probe's `prepare`, then (loop probes) finds the operation count of a run of about
    /// the target duration and runs it once untimed as a warm-up.
    func prepare(_ probe: Probe) throws -> PreparedProbe {
        try probe.prepare()
        var bytes: Int?
        if case .throughput(let bytesPerOperation) = probe.display { bytes = bytesPerOperation() }
        switch probe.kind {
        case .loop(let run):
            var operations = try settings.fixedIterations ?? calibrate(run)
            let warmUp = Double(max(1, try run(operations)))   // caches, JIT tiers, lazy tables
            if settings.fixedIterations == nil {
                // Calibration runs on a cold path can be far off; rescale once from the warm run.
                let target = Double(settings.targetRunNanoseconds)
                if warmUp < target / 2 || warmUp > target * 2 {
                    operations = max(1, UInt64(Double(operations) * target / warmUp))
                    _ = try run(operations)
                }
            }
            return PreparedProbe(probe: probe, operations: operations, sampleCount: max(1, settings.runs),
                                 bytesPerOperation: bytes)
        case .single:
            let count = settings.fixedIterations == nil ? max(1, settings.startRuns) : 1
            return PreparedProbe(probe: probe, operations: 1, sampleCount: count, bytesPerOperation: bytes)
        }
    }

    /// Prepares the probe and takes all its samples in a row.
    func measure(_ probe: Probe) throws -> Measurement {
        var prepared = try prepare(probe)
        while !prepared.isComplete { try prepared.sample() }
        return prepared.measurement
    }

    /// Measures several probes with their samples interleaved round-robin, so that a burst of load
    /// from elsewhere on the machine falls on every probe alike instead of on one.
    func measure(_ probes: [Probe], progress: (String) -> Void = { _ in }) throws -> [Measurement] {
        var prepared: [PreparedProbe] = []
        for (i, probe) in probes.enumerated() {
            progress("preparing \(i + 1)/\(probes.count): \(probe.id)")
            prepared.append(try prepare(probe))
        }
        var round = 0
        while prepared.contains(where: { !$0.isComplete }) {
            round += 1
            progress("sampling round \(round)")
            for i in prepared.indices where !prepared[i].isComplete { try prepared[i].sample() }
        }
        return prepared.map(\.measurement)
    }

    /// Grows the operation count until a run takes a quarter of the target, then scales it to the
    /// target. The calibration runs double as warm-up.
    private func calibrate(_ run: (UInt64) throws -> UInt64) throws -> UInt64 {
        let target = Double(settings.targetRunNanoseconds)
        var operations: UInt64 = 8
        while true {
            let elapsed = Double(max(1, try run(operations)))
            if elapsed >= target / 4 || operations >= 1 << 40 {
                return max(1, UInt64(Double(operations) * target / elapsed))
            }
            // Jump close to a quarter of the target at once, at most ×64, at least ×2.
            let factor = min(64, max(2, target / 4 / elapsed * 1.2))
            operations = UInt64(Double(operations) * factor)
        }
    }
}
