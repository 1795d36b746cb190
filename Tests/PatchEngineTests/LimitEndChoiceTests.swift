import Foundation
import XCTest
import PatchEngine

/// How the limits end an entry (`PatchEngine.LimitEnd`): the exception at check points by default,
/// JavaScriptCore's watchdog when asked for before the engine's first use, where its functions
/// exist. What a script sees tells them apart: a `catch` around a runaway runs with the exception,
/// never with the watchdog. The choice is made once per process, so the requests are made in
/// child processes.
final class LimitEndChoiceTests: XCTestCase {
    static let childVariable = "PATCHENGINE_TEST_LIMIT_END_CHILD"
    static let test = "PatchEngineTests.LimitEndChoiceTests/testTheEndIsTheOneAskedForBeforeTheFirstUse"

    func testTheEndIsTheOneAskedForBeforeTheFirstUse() throws {
        if let request = ProcessInfo.processInfo.environment[Self.childVariable] {
            return runChildPart(request: request)
        }
        guard ChildTestProcess.isSupported else { throw XCTSkip("re-running the test binary is set up for Linux's XCTest runner only") }
        // The child's own PATCHENGINE_LIMITS_END is cleared: the request is what's under test.
        func child(_ request: String) throws -> ChildTestProcess {
            try ChildTestProcess.run(Self.test, environment: [Self.childVariable: request, "PATCHENGINE_LIMITS_END": ""])
        }
        let watchdog = runsWithoutPrivateSymbols ? "exception" : "watchdog"
        let cases: [(request: String, expected: String)] = [
            ("none", "requested=- end=exception catch=ran"),
            ("exception", "requested=true end=exception catch=ran"),
            ("watchdog", "requested=\(!runsWithoutPrivateSymbols) end=\(watchdog) catch=\(runsWithoutPrivateSymbols ? "ran" : "never")"),
            ("watchdog-after-start", "requested=false end=exception catch=ran"),
            ("exception-then-watchdog", "requested=false end=exception catch=ran"),
        ]
        for (request, expected) in cases {
            let result = try child(request)
            XCTAssertEqual(result.line("limit-end: "), expected, "\(request): \(result.output.suffix(1500))")
            XCTAssertEqual(result.status, 0, request)
        }
    }

    /// In the child: the request (before or after the engine's first use), then a runaway inside a
    /// `try` under a 0.2 s limit, and whether its `catch` ran.
    private func runChildPart(request: String) {
        var requested = "-"
        switch request {
        case "exception": requested = "\(PatchEngine.requestLimitEnd(.exception))"
        case "watchdog": requested = "\(PatchEngine.requestLimitEnd(.watchdog))"
        case "watchdog-after-start":
            _ = try? PatchEngine.evaluate("1", name: "limit-end-start.js")
            requested = "\(PatchEngine.requestLimitEnd(.watchdog))"
        case "exception-then-watchdog":
            _ = PatchEngine.requestLimitEnd(.exception)
            requested = "\(PatchEngine.requestLimitEnd(.watchdog))"
        default: break
        }
        PatchEngine.executionTimeLimit = 0.2
        var kind: PatchError.Kind?
        do {
            try PatchEngine.evaluate("var limitEndCatch = 'never'; try { while (true) {} } catch (e) { limitEndCatch = 'ran'; }",
                                     name: "limit-end-runaway.js")
        } catch let error as PatchError { kind = error.kind } catch {}
        XCTAssertEqual(kind, .timeout, "the runaway is ended either way")
        let caught = (try? PatchEngine.evaluate("limitEndCatch", name: "limit-end-read.js")) as? String ?? "?"
        print("limit-end: requested=\(requested) end=\(PatchEngine.limitEnd) catch=\(caught)")
        fflush(stdout)
    }
}
