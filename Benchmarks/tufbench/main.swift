// The delivery benchmark's device side: PatchUpdater doing what python_timing.py has python-tuf
// do, on the same repository in the same run (Tools/tuf-bench/run.sh compares them).
//
// Usage: tufbench BASE_URL ROOT_JSON TARGET RUNS WORK_DIR
// Each run is a fresh device (an empty metadata folder with the root): refresh, find TARGET
// (the channel role is loaded and verified), download it. Then a launch with nothing new: a new
// Updater on that folder, refresh (the same timestamp) and the same search, as a device's launch
// makes them. Prints one JSON line of medians in milliseconds.
import Foundation
import PatchUpdater

struct BenchFailure: Error, CustomStringConvertible {
    var description: String
}

func milliseconds(since start: UInt64) -> Double {
    Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func run(_ arguments: [String]) async throws {
    guard arguments.count == 5, let base = URL(string: arguments[0]), let runs = Int(arguments[3]), runs > 0 else {
        throw BenchFailure(description: "usage: tufbench BASE_URL ROOT_JSON TARGET RUNS WORK_DIR")
    }
    let root = try Data(contentsOf: URL(fileURLWithPath: arguments[1]))
    let target = arguments[2]
    let work = URL(fileURLWithPath: arguments[4], isDirectory: true)
    let metadata = work.appendingPathComponent("metadata", isDirectory: true)
    let targets = work.appendingPathComponent("targets", isDirectory: true)
    var configuration = UpdaterConfiguration(metadataDirectory: metadata, metadataBaseURL: base.appendingPathComponent("metadata/"),
                                             targetBaseURL: base.appendingPathComponent("targets/"))
    configuration.targetsMaxLength = 20_000_000
    var fresh: [Double] = [], launch: [Double] = [], launchRefresh: [Double] = []
    var length: Int64 = -1
    for _ in 0..<runs {
        try? FileManager.default.removeItem(at: work)
        try FileManager.default.createDirectory(at: metadata, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: targets, withIntermediateDirectories: true)
        var start = DispatchTime.now().uptimeNanoseconds
        try Updater.bootstrap(rootData: root, metadataDirectory: metadata)
        let updater = Updater(configuration: configuration)
        try await updater.refresh()
        guard let info = try await updater.targetInfo(for: target) else {
            throw BenchFailure(description: "\(target) not found")
        }
        let file = try await updater.download(info, to: targets)
        fresh.append(milliseconds(since: start))
        // Freed after the clock stops, as python-tuf's updater is (Swift may free an object
        // right after its last use, which would time the freeing of its metadata).
        withExtendedLifetime(updater) {}
        length = (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value ?? -1

        start = DispatchTime.now().uptimeNanoseconds
        let again = Updater(configuration: configuration)
        try await again.refresh()
        launchRefresh.append(milliseconds(since: start))
        guard try await again.targetInfo(for: target) != nil else {
            throw BenchFailure(description: "\(target) not found at launch")
        }
        launch.append(milliseconds(since: start))
        withExtendedLifetime(again) {}
    }
    print("{\"fresh_ms\": \(median(fresh)), \"launch_refresh_ms\": \(median(launchRefresh)), \"launch_ms\": \(median(launch)), \"length\": \(length)}")
}

do {
    try await run(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("tufbench: \(error)\n".utf8))
    exit(1)
}
