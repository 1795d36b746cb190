import Foundation
import XCTest
import PatchEngine
import PatchRuntime
import PatchFixtures

/// What apply/revert and swizzle add/remove leave behind: after 10,000 cycles, and once retired
/// records are reclaimed, every live-record count is back where it started and every method's
/// IMP is exactly what it was before the first patch.
final class LayerRecordTests: ToolkitTestCase {
    static let cycles = 10_000
    /// Generous for a debug build on a shared 2-core machine; the loops stop (and fail) past it.
    static let timeLimit: TimeInterval = 300

    private static let kinds: [(String, PELiveRecordKind)] = [
        ("JS methods (patch tokens)", PELiveRecordJSMethod), ("swizzle layers", PELiveRecordSwizzleLayer),
        ("hooks", PELiveRecordHook), ("hook plans", PELiveRecordHookPlan), ("retired, not freed", PELiveRecordRetired),
    ]

    private func liveRecords() -> [String: Int64] {
        PEEpochReclaim()
        return Dictionary(uniqueKeysWithValues: Self.kinds.map { ($0.0, PELiveRecordCount($0.1)) })
    }

    func testApplyRevertCyclesFreeTheirRecords() throws {
        let methods: [(cls: String, selector: String, classMethod: Int32)] = [
            ("PFGreeter", "greet:", 0), ("PFGreeter", "greetTwice:", 0), ("PFFactory", "twice:", 1), ("PFTypes", "echoInt:", 0),
        ]
        let implementations = methods.map { pf_method_implementation($0.cls, $0.selector, $0.classMethod) }
        XCTAssertFalse(implementations.contains(0))
        let script = """
        defineClass('PFGreeter', { greet: function(n) { return 'cycle' }, greetTwice: function(n) { return 'twice' } });
        defineClass('PFFactory', {}, { twice: function(x) { return 7 } });
        defineClass('PFTypes', { echoInt: function(v) { return v + 1 } });
        hook(require('PFTypes'), 'echoInt:', 'before', function(info) {});
        """
        let name = uniqueScriptName()
        func cycle() throws {
            try apply(script, name: name)
            XCTAssertEqual(pf_types_echo_int(5), 6)
            try PatchEngine.revert(name)
        }
        try cycle()     // slots (kept for the process, with their empty plans) exist from now on
        let before = liveRecords()
        let deadline = Date().addingTimeInterval(Self.timeLimit)
        var done = 0
        while done < Self.cycles && Date() < deadline {
            try cycle()
            done += 1
        }
        XCTAssertEqual(done, Self.cycles, "cycles finished within \(Self.timeLimit) s")
        XCTAssertEqual(liveRecords(), before, "live records after \(done) apply/revert cycles")
        XCTAssertEqual(methods.map { pf_method_implementation($0.cls, $0.selector, $0.classMethod) }, implementations,
                       "every method's IMP is the original again")
        XCTAssertEqual(take(pf_greeter_greet("Ann")), "\"Hello, Ann\"")
        XCTAssertEqual(pf_factory_twice("PFFactory", 21), 42)
        XCTAssertEqual(pf_types_echo_int(5), 5)
    }

    func testSwizzleAddRemoveCyclesFreeTheirLayers() throws {
        guard let f = RSFamily.next() else { return XCTFail("all RSSwizzle families are used: add more in PFSwizzleFixture.m") }
        let object = make(f.a)
        let implementation = pf_method_implementation(f.a, "calc:", 0)
        XCTAssertNotEqual(implementation, 0)
        func cycle() {
            var error: UnsafeMutablePointer<CChar>?
            let handle = pf_swizzle_calc(f.a, CChar(UInt8(ascii: "+")), 1, &error)
            if let message = take(error) { XCTFail("swizzle refused: \(message)") }
            XCTAssertEqual(pf_rs_calc(object, 2), 3)
            XCTAssertEqual(pf_tk_remove(handle), 1)
        }
        cycle()
        let before = liveRecords()
        let deadline = Date().addingTimeInterval(Self.timeLimit)
        var done = 0
        while done < Self.cycles && Date() < deadline {
            cycle()
            done += 1
        }
        _ = log()
        XCTAssertEqual(done, Self.cycles, "cycles finished within \(Self.timeLimit) s")
        XCTAssertEqual(liveRecords(), before, "live records after \(done) swizzle add/remove cycles")
        XCTAssertEqual(pf_method_implementation(f.a, "calc:", 0), implementation, "-calc:'s IMP is the original again")
        XCTAssertEqual(pf_rs_calc(object, 2), 2)
    }

    /// A call still running when its patch is reverted keeps its record (and returns the JS
    /// value); the record is freed once the call has returned.
    func testRecordOfACallInFlightOutlivesTheRevert() throws {
        pf_probe_reset()
        PEEpochReclaim()    // nothing retired earlier is left to free while the call holds JS
        let before = PELiveRecordCount(PELiveRecordJSMethod)
        let name = uniqueScriptName()
        try apply("""
        defineClass('PFWorker', { compute: function(x) {
            var P = require('PFProbe');
            P.record('in');
            // Bounded: a few seconds of polling at most.
            for (var n = 0; n < 2000000 && P.entries().toJS().indexOf('go') < 0; n++) {}
            return x + 1;
        } });
        """, name: name)
        XCTAssertEqual(PELiveRecordCount(PELiveRecordJSMethod), before + 1)
        let result = ResultBox()
        let finished = DispatchSemaphore(value: 0)
        Thread {
            result.value = pf_worker_compute(41)
            finished.signal()
        }.start()
        XCTAssertTrue(waitUntil(timeout: 10) { pf_probe_count() > 0 }, "the patched call started")
        try PatchEngine.revert(name)
        PEEpochReclaim()
        XCTAssertEqual(PELiveRecordCount(PELiveRecordJSMethod), before + 1, "kept while the call runs")
        pf_probe_record("go")
        XCTAssertEqual(finished.wait(timeout: .now() + 20), .success, "the patched call returned")
        XCTAssertEqual(result.value, 42, "the call that began patched finished with the JS result")
        PEEpochReclaim()
        XCTAssertEqual(PELiveRecordCount(PELiveRecordJSMethod), before, "freed once the call returned")
        XCTAssertEqual(pf_worker_compute(41), 41, "the original again")
    }
}

private final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Int32?
    var value: Int32? {
        get { lock.lock(); defer { lock.unlock() }; return stored }
        set { lock.lock(); stored = newValue; lock.unlock() }
    }
}
