import Foundation
import PatchEngine
import PatchFixtures
import XCTest

/// Applying and reverting patches while other threads call the patched method: every call sees
/// either the original or a patch, never a crash or a half-applied state.
final class ConcurrentRevertTests: PatchTestCase {
    func testCallsDuringApplyAndRevertSeeOriginalOrPatch() throws {
        let name = uniqueScriptName()
        let script = "defineClass('PFGreeter', { greet_: function(n) { return 'JS ' + n.toJS(); } })"
        let stop = NSLock()
        nonisolated(unsafe) var running = true
        nonisolated(unsafe) var unexpected: [String] = []
        let group = DispatchGroup()
        for _ in 0..<3 {
            DispatchQueue.global().async(group: group) {
                while true {
                    stop.lock(); let go = running; stop.unlock()
                    if !go { break }
                    let answer = take(pf_greeter_greet("x")) ?? "nil"
                    if answer != "\"Hello, x\"" && answer != "\"JS x\"" {
                        stop.lock(); unexpected.append(answer); stop.unlock()
                    }
                }
            }
        }
        for _ in 0..<300 {
            try PatchEngine.evaluate(script, name: name)
            try PatchEngine.revert(name)
        }
        stop.lock(); running = false; stop.unlock()
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success, "callers finished")
        XCTAssertEqual(unexpected, [])
        XCTAssertEqual(take(pf_greeter_greet("y")), "\"Hello, y\"", "after the last revert: the original")
    }
}
