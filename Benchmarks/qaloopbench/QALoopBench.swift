import ArgumentParser
import Foundation
import PatchDelivery
import PatchEngine

/// `make bench` (second part): the live QA loop's latency, as a person sees it. Starts the real
/// `patchctl dev` (built next to this executable) on a temporary folder, opens a development
/// session in this process with the real engine, then saves the script `--saves` times the way
/// editors do (temporary file, rename) and times each save until the device has applied it.
/// Prints median and max (and the part spent before the server published).
@main
struct QALoopBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "qaloopbench",
        abstract: "Latency of the live QA loop: editor save → version applied in a running app.")

    @Option(help: "Saves to time.")
    var saves = 50

    @Option(name: .customLong("gap-ms"), help: "Pause between an applied version and the next save.")
    var gapMs = 100

    @Option(help: ArgumentHelp("The patchctl executable (default: next to this one).", valueName: "PATH"))
    var patchctl: String?

    func validate() throws {
        guard (1...1000).contains(saves) else { throw ValidationError("--saves must be 1...1000") }
    }

    func run() throws {
        let tool = patchctl ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("patchctl").path
        guard FileManager.default.isExecutableFile(atPath: tool) else {
            throw ValidationError("no patchctl at \(tool): build it first (swift build -c release --product patchctl)")
        }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("qaloopbench-\(UUID().uuidString)")
        let scripts = work.appendingPathComponent("patches"), keys = work.appendingPathComponent("keys")
        try FileManager.default.createDirectory(at: scripts, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        try save(scripts, "var benchValue = 0;\n")

        // The dev server, its output timestamped as it arrives ("published" lines).
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        let portFile = work.appendingPathComponent("port")
        process.arguments = ["dev", scripts.path, "--port", "0", "--port-file", portFile.path, "--key-dir", keys.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        let published = Box<[UInt64]>([])
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil; return }
            let at = DispatchTime.now().uptimeNanoseconds
            let count = String(decoding: data, as: UTF8.self).components(separatedBy: "\n").filter { $0.contains(" published (") }.count
            if count > 0 { published.update { $0 += Array(repeating: at, count: count) } }
        }
        try process.run()
        defer { process.terminate(); process.waitUntilExit() }
        var port: String?
        for _ in 0..<300 where port == nil {
            port = (try? String(contentsOf: portFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
            if port?.isEmpty ?? true { port = nil; usleep(20_000) }
        }
        guard let port else { throw ValidationError("patchctl dev did not start within 6 s") }

        // The device: the real engine, applying on its own queue.
        let applied = Box<[(version: Int, at: UInt64)]>([])
        let signal = DispatchSemaphore(value: 0)
        var configuration = DevelopmentSession.Configuration(
            serverURL: URL(string: "http://127.0.0.1:\(port)/")!, deviceName: "bench",
            developmentRoot: try Data(contentsOf: keys.appendingPathComponent("dev-root.json")),
            appID: "com.example.bench", appVersion: "1.0.0")
        configuration.queue = DispatchQueue(label: "bench.device")
        PatchEngine.logHandler = { _ in }
        let session = try DevelopmentSession(configuration: configuration, onEvent: { event in
            if case .applied(let version) = event {
                applied.update { $0.append((version, DispatchTime.now().uptimeNanoseconds)) }
                signal.signal()
            }
        })
        session.start()
        guard signal.wait(timeout: .now() + 10) == .success else { throw ValidationError("the first version was not applied within 10 s") }

        var total: [Double] = [], beforePublish: [Double] = []
        for i in 1...saves {
            usleep(UInt32(gapMs * 1000))
            let publishedBefore = published.value.count
            let start = DispatchTime.now().uptimeNanoseconds
            try save(scripts, "var benchValue = \(i);\n")
            guard signal.wait(timeout: .now() + 10) == .success, let done = applied.value.last else {
                throw ValidationError("save \(i) was not applied within 10 s")
            }
            total.append(Double(done.at - start) / 1e6)
            if published.value.count > publishedBefore { beforePublish.append(Double(published.value[publishedBefore] - start) / 1e6) }
        }
        session.stop()

        func stats(_ values: [Double]) -> String {
            guard !values.isEmpty else { return "n/a" }
            let sorted = values.sorted()
            let median = sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
            return String(format: "median %6.1f ms   p90 %6.1f ms   max %6.1f ms   min %6.1f ms",
                          median, sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.9))], sorted.last!, sorted.first!)
        }
        print("Live QA loop (patchctl dev → DevelopmentSession over loopback, \(saves) editor-style saves, debounce 40 ms)")
        print("  save → applied in the app          \(stats(total))")
        print("  save → published by patchctl dev   \(stats(beforePublish))")
        print("  target: ≤ 1000 ms save → applied: \(total.max()! <= 1000 ? "met" : "MISSED") (max \(String(format: "%.1f", total.max()!)) ms)")
    }

    /// An editor's save: a temporary file renamed over the script.
    private func save(_ folder: URL, _ text: String) throws {
        let temporary = folder.appendingPathComponent(".bench.js.swp")
        try Data(text.utf8).write(to: temporary)
        guard rename(temporary.path, folder.appendingPathComponent("bench.js").path) == 0 else {
            throw ValidationError("rename failed: \(String(cString: strerror(errno)))")
        }
    }
}

/// A value shared with callbacks on other threads.
final class Box<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func update(_ change: (inout Value) -> Void) { lock.withLock { change(&stored) } }
}
