import Foundation
import PatchEngine
import XCTest

/// Strict mode: a JS exception inside a patched method stops the process with the error, for a
/// native caller and for a call from JS alike; without it the call is answered by the original
/// (here: nil for a method the patch added) and the process goes on. Each case runs in a child
/// process, since strict mode ends the process it runs in.
final class StrictModeTests: PatchTestCase {
    static let script = """
        defineClass('PEStrictProbe : NSObject', {
          failing: function () { throw new Error('converted method failed'); }
        });
        """

    /// In the child: patches, then calls the failing method `how` and prints what it answered.
    func childCase(strict: Bool, how call: String) throws {
        PatchEngine.strictMode = strict
        _ = try PatchEngine.evaluate(Self.script, name: "strict-probe.js")
        let answer = try PatchEngine.evaluate("var p = require('PEStrictProbe').new(); String(\(call))", name: "strict-call.js")
        print("strict-answer: \(answer ?? "nil")")
        fflush(stdout)
    }

    func testAFailingPatchedMethodStopsTheProcessInStrictMode() throws {
        for (test, call) in [("testStrictNativeCaller", "p.performSelector('failing')"), ("testStrictJSCaller", "p.failing()")] {
            let child = try ChildTestProcess.run("PatchEngineTests.StrictModeTests/\(test)", environment: ["PATCHENGINE_STRICT_CHILD": "1"])
            XCTAssertNotEqual(child.status, 0, "\(call): \(child.output.suffix(1500))")
            XCTAssertNil(child.line("strict-answer: "), "\(call): the caller got an answer")
            XCTAssertTrue(child.output.contains("PatchEngine strict mode: a patched method threw:"), child.output.suffix(1500).description)
            XCTAssertTrue(child.output.contains("converted method failed"), child.output.suffix(1500).description)
        }
    }

    func testWithoutStrictModeTheCallerGetsTheFallback() throws {
        let child = try ChildTestProcess.run("PatchEngineTests.StrictModeTests/testLenientNativeCaller", environment: ["PATCHENGINE_STRICT_CHILD": "1"])
        XCTAssertEqual(child.status, 0, child.output.suffix(1500).description)
        XCTAssertEqual(child.line("strict-answer: "), "false", child.output.suffix(1500).description)
        XCTAssertTrue(child.output.contains("converted method failed"), "the error is still reported")
    }

    // The children's parts (they do nothing when run in the suite itself).
    func testStrictNativeCaller() throws {
        guard ProcessInfo.processInfo.environment["PATCHENGINE_STRICT_CHILD"] != nil else { return }
        try childCase(strict: true, how: "p.performSelector('failing')")
    }

    func testStrictJSCaller() throws {
        guard ProcessInfo.processInfo.environment["PATCHENGINE_STRICT_CHILD"] != nil else { return }
        try childCase(strict: true, how: "p.failing()")
    }

    func testLenientNativeCaller() throws {
        guard ProcessInfo.processInfo.environment["PATCHENGINE_STRICT_CHILD"] != nil else { return }
        try childCase(strict: false, how: "p.performSelector('failing')")
    }
}
