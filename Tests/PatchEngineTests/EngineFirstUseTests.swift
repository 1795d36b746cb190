import Foundation
import XCTest
import PatchEngine

/// The first use of the engine in a process, from many threads at once: every caller sees the
/// engine fully started. Only a fresh process can show it, so the test re-runs this test binary
/// in child processes (an environment variable selects the child's part).
final class EngineFirstUseTests: XCTestCase {
    static let childVariable = "PATCHENGINE_TEST_FIRST_USE_CHILD"
    static let threads = 8
    /// Before the engine published itself only once started, about 2 runs in 5 went wrong.
    static let runs = 10
    /// Run n's threads arrive n × this apart (start-up takes a few milliseconds; the spread covers
    /// slower and faster machines).
    static let staggerStepMicroseconds = 400

    func testConcurrentFirstCallsAllSeeTheStartedEngine() throws {
        if let stagger = ProcessInfo.processInfo.environment[Self.childVariable] {
            return runChildPart(stagger: useconds_t(stagger) ?? 0)
        }
        guard ChildTestProcess.isSupported else { throw XCTSkip("re-running the test binary is set up for Linux's XCTest runner only") }
        let expected = Array(repeating: "function", count: Self.threads).joined(separator: " ")
        for run in 1...Self.runs {
            let child = try ChildTestProcess.run("PatchEngineTests.EngineFirstUseTests/testConcurrentFirstCallsAllSeeTheStartedEngine",
                                                 environment: [Self.childVariable: "\(run * Self.staggerStepMicroseconds)"])
            let line = child.line("first-use: ")
            XCTAssertEqual(line, expected, "run \(run): what `typeof defineClass` gave each thread (exit status \(child.status))")
            XCTAssertEqual(child.status, 0, "run \(run): \(child.output.suffix(2000))")
            if line != expected || child.status != 0 { break }
        }
    }

    /// In the child: 8 threads, released together and then arriving `stagger` µs apart, make the
    /// process's first engine calls.
    private func runChildPart(stagger: useconds_t) {
        let ready = DispatchGroup(), done = DispatchGroup()
        let start = DispatchSemaphore(value: 0)
        let results = ResultList(count: Self.threads)
        for index in 0..<Self.threads {
            ready.enter(); done.enter()
            Thread {
                ready.leave()
                start.wait()
                // Staggered arrivals: callers that come while the first one is starting the engine,
                // not only ones that queue up before it begins.
                usleep(useconds_t(index) * stagger)
                let value: String
                do { value = "\(try PatchEngine.evaluate("typeof defineClass", name: "first-use-\(index).js") ?? "nil")" } catch {
                    value = "error(\(error))"
                }
                results.set(index, value)
                done.leave()
            }.start()
        }
        XCTAssertEqual(ready.wait(timeout: .now() + 30), .success, "threads started")
        for _ in 0..<Self.threads { start.signal() }
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success, "first calls returned")
        print("first-use: " + results.joined())
        fflush(stdout)
    }
}

/// What each thread got, filled in from several threads.
private final class ResultList: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String]
    init(count: Int) { values = Array(repeating: "none", count: count) }
    func set(_ index: Int, _ value: String) { lock.lock(); values[index] = value; lock.unlock() }
    func joined() -> String { lock.lock(); defer { lock.unlock() }; return values.joined(separator: " ") }
}
