import Foundation

/// Loop probes that run in a child process of their own (`patchbench --probe-server`), sampled by
/// the parent like any other (calibration, warm-up, round-robin with every other probe).
///
/// Why: JavaScriptCore compiles a JS loop with the profile its shared code (runtime.js's `__c`,
/// the dispatch code every call from JS runs through) gathered from *every* call the process
/// made. In the one benchmark process that includes the other rows: JS → Objective-C loops over
/// other classes, and hundreds of patches of 1,000–2,000 methods applied and reverted (each
/// change of the dispatcher makes every JS call site resolve again). A row measured in a
/// process of its own shows the steady state of its call; the same probe in the shared process
/// stays in the table beside it.
///
/// Protocol, a line each way: `prepare <probe>` → `ok`; `run <probe> <n>` → the nanoseconds;
/// anything else, or a failure, → `error <text>`.
final class ProbeServer: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe(), output = Pipe()
    private let lock = NSLock()

    private static let lock = NSLock()
    nonisolated(unsafe) private static var servers: [String: ProbeServer] = [:]

    /// Server `index` for `executable`, started on first use and kept for the run.
    static func shared(_ executable: URL, index: Int = 0) throws -> ProbeServer {
        lock.lock(); defer { lock.unlock() }
        let key = "\(index) \(executable.path)"
        if let server = servers[key] { return server }
        let server = try ProbeServer(executable: executable)
        servers[key] = server
        return server
    }

    private init(executable: URL) throws {
        process.executableURL = executable
        process.arguments = ["--probe-server"]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        do { try process.run() } catch { throw BenchError("cannot spawn \(executable.path) --probe-server: \(error)") }
    }

    deinit {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    func prepare(_ probe: String) throws {
        _ = try request("prepare \(probe)")
    }

    func run(_ probe: String, _ operations: UInt64) throws -> UInt64 {
        let answer = try request("run \(probe) \(operations)")
        guard let nanoseconds = UInt64(answer) else { throw BenchError("probe server: \(probe) answered \(answer)") }
        return nanoseconds
    }

    private func request(_ line: String) throws -> String {
        lock.lock(); defer { lock.unlock() }
        try input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
        var answer = Data()
        while true {
            guard let byte = try output.fileHandleForReading.read(upToCount: 1), let character = byte.first else {
                throw BenchError("probe server ended (exit status \(process.isRunning ? 0 : process.terminationStatus)) after: \(line)")
            }
            if character == UInt8(ascii: "\n") { break }
            answer.append(character)
        }
        let text = String(decoding: answer, as: UTF8.self)
        if text.hasPrefix("error ") { throw BenchError("probe server: \(text.dropFirst(6))") }
        return text
    }

    /// The next line of standard input, nil at its end. Not `readLine()`: Swift's retries
    /// `getline` while errno is EINTR, and at the end of input `getline` fails without setting
    /// errno, so an EINTR left by an earlier interrupted call made it spin for ever (seen once the
    /// heap growth limit kept JavaScriptCore's watchdog on: its traps signal the JS thread).
    static func readRequest() -> String? {
        var buffer: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(buffer) }
        while true {
            errno = 0
            let count = getline(&buffer, &capacity, stdin)
            if count >= 0, let buffer {
                let line = String(cString: buffer)
                return line.hasSuffix("\n") ? String(line.dropLast()) : line
            }
            guard errno == EINTR, feof(stdin) == 0 else { return nil }
            clearerr(stdin)
        }
    }

    /// The child: answers requests for the probes of `catalog` until its input ends.
    static func serve(_ catalog: Catalog) {
        // Idle between requests, a server's JavaScriptCore still has threads (compilation,
        // collection) with work left from its last loop; niced, they yield to the processes the
        // parent times (engine start read 1.58× with five idle servers, 1.40× without).
        #if canImport(Glibc)
        setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        #else
        setpriority(PRIO_PROCESS, 0, 10)
        #endif
        while let line = readRequest() {
            let parts = line.split(separator: " ").map(String.init)
            var answer: String
            do {
                guard parts.count >= 2, let probe = catalog.probes[parts[1]] else { throw BenchError("unknown request \(line)") }
                switch (parts[0], probe.kind) {
                case ("prepare", _):
                    try probe.prepare()
                    // The loop runs hot once here, long enough for JavaScriptCore's top tier, so the
                    // parent's first timed run in this process doesn't pay the compilation.
                    if case .loop(let run) = probe.kind {
                        var operations: UInt64 = 1_000
                        while try run(operations) < 30_000_000 && operations < 1 << 40 { operations *= 4 }
                    }
                    answer = "ok"
                case ("run", .loop(let run)):
                    guard parts.count == 3, let operations = UInt64(parts[2]) else { throw BenchError("bad request \(line)") }
                    answer = String(try run(operations))
                default:
                    throw BenchError("cannot \(parts[0]) \(parts[1]) here")
                }
            } catch {
                answer = "error \(String(describing: error).replacingOccurrences(of: "\n", with: " "))"
            }
            print(answer)
            fflush(stdout)
        }
    }
}

extension Catalog {
    /// `probe` (a loop probe of this catalog) run in probe servers: id "own-process.<id>". There are
    /// as many servers as timed runs, and runs go to them in turn, so each sample comes from a
    /// process of its own and the median is that of processes: JavaScriptCore's concurrent
    /// compilation makes some processes' code for the same loop slower for good (see JSDriver).
    static func ownProcess(_ probe: Probe, settings: BenchSettings) -> Probe {
        let executable = settings.childExecutable, id = probe.id, count = max(1, settings.runs)
        let next = RoundRobin()
        return Probe(id: "own-process.\(id)", summary: "\(probe.summary) (each run in a process of its own)",
                     prepare: { for index in 0..<count { try ProbeServer.shared(executable, index: index).prepare(id) } },
                     kind: .loop { n in try ProbeServer.shared(executable, index: next.increment() % count).run(id, n) })
    }
}

/// A counter safe to bump from any thread.
final class RoundRobin: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func increment() -> Int {
        lock.lock(); defer { lock.unlock() }
        defer { value += 1 }
        return value
    }
}
