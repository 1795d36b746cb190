import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A program started with `posix_spawn` and reaped with `wait4`, for the two things Foundation's
/// `Process` can't do: report the child's peak memory, and notice the exit of a child that leaves
/// a daemon behind (Process waits on a descriptor the daemon inherits: pg_ctl's postgres).
/// Platform differences, once: `posix_spawn_file_actions_t` is a struct on Glibc and a pointer on
/// Darwin; the peak is rusage's `ru_maxrss` on Darwin (in bytes there), and on Linux the child's
/// VmHWM polled while it runs (its `ru_maxrss` starts at the spawning process's size). The
/// environment is passed from `ProcessInfo` (Darwin has no `environ` symbol for Swift). The
/// Darwin branches are not compiled here.
public struct SpawnedProgram {
    public struct Failure: Error, CustomStringConvertible { public var description: String }

    /// The child's exit status (128 + the signal if one ended it) and its peak resident memory in KiB.
    public struct Exit {
        public var status: Int32
        public var peakResidentKiB: Int
    }

    public let pid: pid_t
    public let arguments: [String]

    /// Starts `arguments[0]` (a path) with stdin from /dev/null, stdout to `output` (created or
    /// truncated; /dev/null when nil), stderr to the same place as stdout.
    public init(_ arguments: [String], output: String? = nil) throws {
        self.arguments = arguments
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t? = nil
        #else
        var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, arguments[0], &actions, nil, argv, envp)
        guard spawned == 0 else { throw Failure(description: "cannot start \(arguments[0]): \(String(cString: strerror(spawned)))") }
        self.pid = pid
    }

    /// Waits for the exit; after `timeout` seconds the child is killed (SIGKILL), reaped, and
    /// the wait throws.
    public func wait(timeout: TimeInterval) throws -> Exit {
        let end = Date().addingTimeInterval(timeout)
        var status: Int32 = 0
        var usage = rusage()
        var polledPeakKiB = 0
        while true {
            polledPeakKiB = max(polledPeakKiB, Self.highWaterKiB(pid) ?? 0)
            let reaped = wait4(pid, &status, WNOHANG, &usage)
            if reaped == pid { break }
            if reaped < 0 && errno != EINTR { throw Failure(description: "wait4: \(String(cString: strerror(errno)))") }
            if Date() > end {
                kill(pid, SIGKILL)
                while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
                throw Failure(description: "\(arguments.joined(separator: " ")) did not finish within \(Int(timeout)) s")
            }
            usleep(2_000)
        }
        #if canImport(Darwin)
        let peakKiB = Int(usage.ru_maxrss) / 1024
        #else
        // Linux counts into a child's ru_maxrss the resident size of the process it was spawned
        // from (the parent's memory, shared until exec): that of the test process, far above a
        // small program's. The program's own peak is its VmHWM, read while it runs.
        let peakKiB = polledPeakKiB
        #endif
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Exit(status: exit, peakResidentKiB: peakKiB)
    }

    /// VmHWM of /proc/PID/status (the peak resident size of the program since its exec), in KiB.
    private static func highWaterKiB(_ pid: pid_t) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return nil }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    }
}
