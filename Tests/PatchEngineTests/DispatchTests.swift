import Foundation
import XCTest
import PatchEngine
import PatchFixtures

/// The GCD helpers: dispatch_async_main, dispatch_sync_main (inline on main, no
/// deadlock from other threads), dispatch_async_global_queue, dispatch_after.
/// Callbacks record into PFProbe: "tag@main" or "tag@bg".
final class DispatchTests: PatchTestCase {
    override func setUp() {
        super.setUp()
        pf_probe_reset()
    }

    private var entries: String { take(pf_probe_entries()) ?? "" }

    func testDispatchAsyncMainRunsLaterOnTheMainThread() throws {
        let immediately = try apply("""
        var P = require('PFProbe');
        dispatch_async_main(function() { P.record('async-main') });
        P.entries().toJS()
        """)
        XCTAssertEqual(render(immediately), "\"\"", "must not run before the script finishes")
        XCTAssertTrue(waitUntil { self.entries.contains("async-main") }, "never ran: \(entries)")
        XCTAssertEqual(entries, "async-main@main")
    }

    func testDispatchSyncMainOnTheMainThreadRunsInline() throws {
        let result = try apply("""
        var P = require('PFProbe');
        dispatch_sync_main(function() { P.record('sync-main') });
        P.entries().toJS()
        """)
        XCTAssertEqual(render(result), "\"sync-main@main\"")
    }

    func testDispatchSyncMainFromABackgroundThreadDoesNotDeadlock() throws {
        try apply("""
        defineClass('PFWorker', {
          work: function() {
            dispatch_sync_main(function() { require('PFProbe').record('sync-from-bg') });
            require('PFProbe').record('after-sync')
          }
        })
        """)
        let finished = LockedFlag()
        DispatchQueue.global().async {
            pf_worker_work()
            finished.set()
        }
        XCTAssertTrue(waitUntil(timeout: 30) { finished.value }, "the background call never returned: \(entries)")
        XCTAssertEqual(entries, "sync-from-bg@main,after-sync@bg")
    }

    func testDispatchAsyncGlobalQueueRunsInTheBackground() throws {
        try apply("dispatch_async_global_queue(function() { require('PFProbe').record('global') })")
        XCTAssertTrue(waitUntil { self.entries.contains("global") }, "never ran")
        XCTAssertEqual(entries, "global@bg")
    }

    func testDispatchAfterRunsLaterOnTheMainThread() throws {
        let immediately = try apply("""
        dispatch_after(0.2, function() { require('PFProbe').record('after') });
        require('PFProbe').entries().toJS()
        """)
        XCTAssertEqual(render(immediately), "\"\"")
        XCTAssertTrue(waitUntil { self.entries.contains("after") }, "never ran")
        XCTAssertEqual(entries, "after@main")
    }

    func testHelpersFromInsideAPatchedMethod() throws {
        // JSPatch's GCD test: a patched method starts all four helpers; each callback counts.
        try apply("""
        defineClass('PFWorker', {
          work: function() {
            var P = require('PFProbe');
            dispatch_async_main(function() { P.record('a') });
            dispatch_async_global_queue(function() { P.record('b') });
            dispatch_sync_main(function() { P.record('c') });
            dispatch_after(0.1, function() { P.record('d') });
          }
        })
        """)
        pf_worker_work()
        XCTAssertTrue(waitUntil { pf_probe_count() == 4 }, "ran: \(entries)")
        let recorded = Set(entries.split(separator: ",").map(String.init))
        XCTAssertEqual(recorded, ["a@main", "b@bg", "c@main", "d@main"])
    }
}

/// A Bool shared between threads.
final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    func set() { lock.lock(); flag = true; lock.unlock() }
    var value: Bool { lock.lock(); defer { lock.unlock() }; return flag }
}
