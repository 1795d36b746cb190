import Foundation
import XCTest
import PatchEngine

/// The first calls of JS-defined methods from JS in a process, made from several threads at
/// once, load the direct-call machinery once for all of them: every thread gets the patch's
/// value with no error, and later patches are seen by all (the dispatch generations they read are
/// the ones the runtime bumps). Only a fresh process shows it, so each run is a child process.
final class DirectCallFirstUseTests: XCTestCase {
    static let childVariable = "PATCHENGINE_TEST_DIRECT_FIRST_USE_CHILD"
    static let threads = 8
    /// Before direct.js was loaded in one native call, 16 runs in 40 saw an error (and the
    /// original) and 7 in 40 a generation that stayed stale.
    static let runs = 12

    func testFirstDirectCallsFromManyThreadsAreRaceFree() throws {
        if let stagger = ProcessInfo.processInfo.environment[Self.childVariable] {
            return try runChildPart(stagger: useconds_t(stagger) ?? 0)
        }
        guard ChildTestProcess.isSupported else { throw XCTSkip("re-running the test binary is set up for Linux's XCTest runner only") }
        let first = Array(repeating: "42", count: Self.threads).joined(separator: " ")
        let later = Array(repeating: "100", count: Self.threads).joined(separator: " ")
        for run in 1...Self.runs {
            let child = try ChildTestProcess.run("PatchEngineTests.DirectCallFirstUseTests/testFirstDirectCallsFromManyThreadsAreRaceFree",
                                                 environment: [Self.childVariable: "\(run % 4 * 150)"])
            XCTAssertEqual(child.line("first: "), first, "run \(run): \(child.output.suffix(1500))")
            XCTAssertEqual(child.line("after-patch: "), later, "run \(run): a thread kept a stale dispatch generation")
            XCTAssertEqual(child.line("errors: "), "0", "run \(run)")
            XCTAssertEqual(child.status, 0, "run \(run): \(child.output.suffix(2000))")
            if child.status != 0 || child.line("first: ") != first { break }
        }
    }

    private func runChildPart(stagger: useconds_t) throws {
        let errors = Errors()
        PatchEngine.errorHandler = { errors.add("\($0)") }
        try PatchEngine.evaluate("""
        defineClass('DCFUCounter : NSObject', {
          value: function () { return 41; },
          plusOne: function () { return self.value() + 1; }
        });
        globalThis.dcfu = [];
        for (var i = 0; i < \(Self.threads); i++) dcfu.push(DCFUCounter.alloc().init());
        """, name: "dcfu.js")
        print("first: " + callFromThreads(stagger: stagger))
        try PatchEngine.evaluate("defineClass('DCFUCounter', { value: function () { return 99; } });", name: "dcfu-later.js")
        print("after-patch: " + callFromThreads(stagger: 0))
        print("errors: \(errors.count)")
        fflush(stdout)
    }

    /// Each thread's `dcfu[i].plusOne()` (called from JS: the JS → JS path), released together.
    private func callFromThreads(stagger: useconds_t) -> String {
        let start = DispatchSemaphore(value: 0), done = DispatchGroup()
        let results = Results(count: Self.threads)
        for index in 0..<Self.threads {
            done.enter()
            Thread {
                start.wait()
                usleep(useconds_t(index) * stagger)
                let value: String
                do { value = "\(try PatchEngine.evaluate("String(dcfu[\(index)].plusOne())", name: "dcfu-call-\(index).js") ?? "nil")" } catch {
                    value = "error(\(error))"
                }
                results.set(index, value)
                done.leave()
            }.start()
        }
        for _ in 0..<Self.threads { start.signal() }
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success, "calls returned")
        return results.joined()
    }
}

private final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String]
    init(count: Int) { values = Array(repeating: "none", count: count) }
    func set(_ index: Int, _ value: String) { lock.lock(); values[index] = value; lock.unlock() }
    func joined() -> String { lock.lock(); defer { lock.unlock() }; return values.joined(separator: " ") }
}

private final class Errors: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func add(_ item: String) { lock.lock(); items.append(item); lock.unlock() }
    var count: Int { lock.lock(); defer { lock.unlock() }; return items.count }
}
