import Foundation
import XCTest
import PatchEngine
import PatchFixtures

/// The helpers the engine tests rely on.
final class TestSupportTests: XCTestCase {
    func testWaitUntilLetsMainQueueWorkRun() {
        // DispatchTests depend on this: work sent to the main queue (also synchronously,
        // from another thread) runs while a test waits on the main thread.
        pf_probe_reset()
        let finished = LockedFlag()
        DispatchQueue.global().async {
            DispatchQueue.main.async { pf_probe_record("async") }
            DispatchQueue.main.sync { pf_probe_record("sync") }
            finished.set()
        }
        XCTAssertTrue(runMainLoop(timeout: 30) { finished.value && pf_probe_count() == 2 })
        XCTAssertEqual(take(pf_probe_entries()), "async@main,sync@main")
        pf_probe_reset()
    }

    func testRenderIsDeterministic() {
        XCTAssertEqual(render(42.0), "42")
        XCTAssertEqual(render(-9_007_199_254_740_992.0), "-9007199254740992")
        XCTAssertEqual(render(4.5), "4.5")
        XCTAssertEqual(render("a"), "\"a\"")
        XCTAssertEqual(render(true), "true")
        XCTAssertEqual(render(nil), "nil")
        XCTAssertEqual(render([1.0, nil, "x", [2.0]] as [Any?]), "[1, nil, \"x\", [2]]")
        XCTAssertEqual(render(["b": 1.0, "a": nil, "c": ["d": false] as [String: Any?]] as [String: Any?]), "{a: nil, b: 1, c: {d: false}}")
    }

    func testTakeFreesAndCopies() {
        XCTAssertEqual(take(strdup("copied")), "copied")
        XCTAssertNil(take(nil))
    }

    func testDescribeOfNativeObjects() {
        let dict = pf_make_sample("dict")
        defer { pf_release(dict) }
        XCTAssertEqual(take(pf_describe(dict)), "{k: \"v\"}")
        XCTAssertEqual(take(pf_describe(nil)), "nil")
    }
}
