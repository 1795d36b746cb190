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
    /// The patchbench executable to spawn for start-up measurements.
    var childExecutable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
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

/// Calibrates, warms up and repeats probes.
struct Sampler {
    let settings: BenchSettings

    func measure(_ probe: Probe) throws -> Measurement {
        try probe.prepare()
        var bytes: Int?
        if case .throughput(let bytesPerOperation) = probe.display { bytes = bytesPerOperation() }
        switch probe.kind {
        case .loop(let run):
            let operations = try settings.fixedIterations ?? calibrate(run)
            _ = try run(operations)   // warm-up at the final count (caches, JIT tiers, lazy tables)
            var samples: [Double] = []
            for _ in 0..<max(1, settings.runs) {
                samples.append(Double(max(1, try run(operations))) / Double(operations))
            }
            return Measurement(probe: probe, operationsPerRun: operations, samples: samples, bytesPerOperation: bytes)
        case .single(let run):
            let count = settings.fixedIterations == nil ? max(1, settings.startRuns) : 1
            var samples: [Double] = []
            for _ in 0..<count { samples.append(Double(max(1, try run()))) }
            return Measurement(probe: probe, operationsPerRun: 1, samples: samples, bytesPerOperation: bytes)
        }
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
