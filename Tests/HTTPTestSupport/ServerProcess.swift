import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A server in a child process (`patchctl serve`, `patchserver`), optionally with a lower
/// open-file limit (`ulimit -n` in the shell that execs it): what a server does when the kernel
/// refuses it descriptors can only be seen in a process of its own, and so can its memory and CPU.
/// The server is told to write its port to a file (`--port-file PATH`, appended to `arguments`).
public final class ServerProcess {
    public struct Failure: Error, CustomStringConvertible { public var description: String }

    public let process = Process()
    public let port: UInt16
    private let logURL: URL

    public init(executable: URL, arguments: [String], scratch: URL, openFileLimit: Int? = nil) throws {
        let portFile = scratch.appendingPathComponent("port-\(UUID().uuidString)")
        logURL = scratch.appendingPathComponent("server-\(UUID().uuidString).log")
        FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let limit = openFileLimit.map { "ulimit -n \($0) && " } ?? ""
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", limit + "exec \"$@\"", "sh", executable.path] + arguments + ["--port-file", portFile.path]
        let log = try FileHandle(forWritingTo: logURL)
        process.standardOutput = log
        process.standardError = log
        try process.run()
        // Up to 30 s for the port, polled every 20 ms.
        var found: UInt16?
        for _ in 0..<1500 where found == nil && process.isRunning {
            found = (try? String(contentsOf: portFile, encoding: .utf8)).flatMap { UInt16($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if found == nil { usleep(20_000) }
        }
        guard let found else {
            if process.isRunning { process.terminate() }
            throw Failure(description: "\(executable.lastPathComponent) did not report a port: \(String(decoding: (try? Data(contentsOf: logURL)) ?? Data(), as: UTF8.self))")
        }
        port = found
    }

    /// What the server printed so far.
    public var log: String { String(decoding: (try? Data(contentsOf: logURL)) ?? Data(), as: UTF8.self) }

    /// Whether this system shows another process's memory, CPU time and descriptors the way
    /// `memoryKB`, `cpuSeconds` and `openDescriptors` read them (/proc: Linux). Darwin has no
    /// /proc; its libproc calls are not used here (they could not be run on this CI), so tests
    /// that measure a server skip there, saying why (`measurementUnavailable`).
    public static var canMeasure: Bool { FileManager.default.fileExists(atPath: "/proc/self/stat") }
    public static let measurementUnavailable = "this system has no /proc: a server's memory, CPU time and descriptors are measured on Linux only"

    /// A field of /proc/PID/status in kB (VmHWM: the peak resident memory; VmRSS: the current).
    public func memoryKB(_ field: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8) else { return nil }
        let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") }
        return line.flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") }
    }

    /// User plus system CPU time the server has used, in seconds (from /proc/PID/stat).
    public var cpuSeconds: Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // Fields after the command name: state is field 3, utime 14, stime 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Open descriptors of the server (entries of /proc/PID/fd).
    public var openDescriptors: Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.processIdentifier)/fd").count) ?? -1
    }

    /// SIGINT, then up to 5 s for a clean exit (SIGKILL after that).
    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGINT)
        for _ in 0..<250 where process.isRunning { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { stop() }
}
