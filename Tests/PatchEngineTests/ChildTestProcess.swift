import Foundation
import XCTest

/// One test of this test binary run again in a child process: for what only a fresh process can
/// show (the engine's first use, settings read once at start). The child's part is selected by an
/// environment variable the test checks.
struct ChildTestProcess {
    var status: Int32
    var output: String

    /// Whether this platform's test runner can be re-run this way (Linux's XCTest runner takes a
    /// test name as its argument).
    static var isSupported: Bool {
        #if os(Linux)
        return true
        #else
        return false
        #endif
    }

    /// Runs `test` ("Module.Class/testName") with `environment` added to this process's, ended
    /// after `timeout` seconds at most.
    static func run(_ test: String, environment extra: [String: String], timeout: TimeInterval = 120) throws -> ChildTestProcess {
        let runner = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: runner)
        process.arguments = [test]
        process.environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let killer = DispatchWorkItem { [process] in if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        killer.cancel()
        let child = ChildTestProcess(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
        if child.status != 0 { child.keepOutput(of: test) }
        return child
    }

    /// A failed child's whole output in a file, its path printed: assertions quote only the end,
    /// and a crash report (every thread's frames) is longer than that. Kept where
    /// PATCHENGINE_CHILD_LOG_DIR says (`make test` and `make stress` set it), not otherwise: some
    /// children are meant to fail.
    private func keepOutput(of test: String) {
        guard let folder = ProcessInfo.processInfo.environment["PATCHENGINE_CHILD_LOG_DIR"],
              (try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)) != nil else { return }
        let name = test.replacingOccurrences(of: "/", with: ".") + "-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).log"
        let path = URL(fileURLWithPath: folder).appendingPathComponent(name).path
        if FileManager.default.createFile(atPath: path, contents: Data(output.utf8)) {
            print("child \(test) exited \(status); its whole output: \(path)")
        }
    }

    /// The rest of the first output line starting with `prefix`.
    func line(_ prefix: String) -> String? {
        output.split(separator: "\n").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }
}

extension XCTestCase {
    private static let childTestVariable = "PATCHENGINE_TEST_CHILD"

    /// A test whose part runs in a child process, so that a deadlock or a hang fails the test
    /// after `timeout` instead of hanging the suite. In the child (this process was started for
    /// `test` of this class) runs `body` and returns nil; otherwise runs `test` of this class in
    /// a child process and returns it. Skipped where children are not supported.
    func runInChildProcess(_ test: String, timeout: TimeInterval = 90, _ body: () throws -> Void) throws -> ChildTestProcess? {
        let name = "PatchEngineTests.\(type(of: self))/\(test)"
        if ProcessInfo.processInfo.environment[Self.childTestVariable] == name { try body(); return nil }
        guard ChildTestProcess.isSupported else { throw XCTSkip("re-running the test binary is set up for Linux's XCTest runner only") }
        return try ChildTestProcess.run(name, environment: [Self.childTestVariable: name], timeout: timeout)
    }

    /// A test run whole in a child process of its own, judged by its own assertions there: this
    /// process fails unless the child reached the end of `body` and exited 0 (its failures are in
    /// the quoted output). For tests a stale conservative root in a process that ran the other
    /// suites can break: an object that must go at a collection, kept by a word on an idle
    /// thread's stack, out of this thread's scrub's reach.
    func runCheckedInChildProcess(_ test: String, timeout: TimeInterval = 90, _ body: () throws -> Void) throws {
        let child = try runInChildProcess(test, timeout: timeout) { try body(); print("child-test: ran to its end") }
        guard let child else { return }
        XCTAssertEqual(child.line("child-test: "), "ran to its end", "exit \(child.status)\n\(child.output.suffix(3000))")
        XCTAssertEqual(child.status, 0, "the child's own checks: \(child.output.suffix(3000))")
    }
}
