import Foundation
import XCTest
@testable import PatchEngine
import PatchFixtures

/// The declared binding table (`NativeBinding.table`, NativeBindings.swift): what one declaration
/// gives a script, and what the typed decoders do with arguments a script chose.
final class NativeBindingTests: PatchTestCase {
    /// `isMainThread()` is one entry of the table (holder `.global`, `.replayable`) and nothing
    /// else: scripts have it, it answers for the calling thread, and the replay list has it.
    /// Broken if an entry needed a second place (runtime.js, `Replay.allowedNatives`) to work.
    func testABindingDeclaredOnceIsAGlobalThatAnswersForTheCallingThread() throws {
        XCTAssertEqual(try apply("isMainThread()") as? Bool, true)
        try apply("var seenOnAQueue = null; dispatch_async_global_queue(function () { seenOnAQueue = isMainThread() })")
        var seen: Any?
        XCTAssertTrue(waitUntil { seen = try? apply("seenOnAQueue"); return seen != nil })
        XCTAssertEqual(seen as? Bool, false)
        XCTAssertTrue(Replay.allowedNatives.contains("isMainThread"))
    }

    /// The replay list is exactly the table's replayable entries: a binding with effects outside
    /// its VM (a send, a hook, a dispatch, memory) is declared `.refused` and is not on it.
    func testTheReplayListIsTheTablesReplayableEntries() {
        let replayable = Set(NativeBinding.table.filter { $0.replay == .replayable }.map(\.name))
        XCTAssertEqual(Replay.allowedNatives, replayable)
        for refused in ["callI", "hook", "dispatch", "malloc", "setProperty", "defineCFunction"] {
            XCTAssertFalse(Replay.allowedNatives.contains(refused), refused)
        }
        let names = NativeBinding.table.map { "\($0.holder)." + $0.name }
        XCTAssertEqual(names.count, Set(names).count, "a name declared twice on one object")
    }

    /// An integer parameter decodes NaN and ±Infinity as 0 and clamps the rest: `malloc(NaN)` is the
    /// script's error, not a trap converting NaN to Int (which ended the host app).
    func testANonFiniteIntegerArgumentIsAnErrorNotACrash() {
        for size in ["NaN", "Infinity", "-Infinity", "'twelve'"] {
            let error = applyExpectingError("malloc(\(size))")
            XCTAssertTrue("\(error.map { "\($0)" } ?? "")".contains("malloc(size) needs a positive size"), "\(size): \(String(describing: error))")
        }
        let huge = applyExpectingError("malloc(1e300)")
        XCTAssertTrue("\(huge.map { "\($0)" } ?? "")".contains("out of memory"), String(describing: huge))
    }

    /// Dispatch kinds reach runtime.js by name from their Swift enum (`N.codes.dispatch`): each
    /// `dispatch_*` still runs its function where it says.
    func testEachDispatchKindRunsItsFunctionWhereItSays() throws {
        try apply("""
        var where = {};
        dispatch_after(0, function () { where.after = isMainThread() });
        dispatch_async_main(function () { where.main = isMainThread() });
        dispatch_sync_main(function () { where.mainSync = isMainThread() });
        dispatch_async_global_queue(function () { where.global = isMainThread() });
        """)
        var seen = ""
        XCTAssertTrue(waitUntil {
            seen = (try? apply("[where.after, where.main, where.mainSync, where.global].join(' ')")) as? String ?? ""
            return !seen.contains(",,") && seen.split(separator: " ").count == 4
        }, seen)
        XCTAssertEqual(seen, "true true true false")
    }
}
