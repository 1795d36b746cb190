import CJavaScriptCore
import Foundation
import CPatchEngine
import PatchRuntime
import PatchSupport

/// JavaScriptCore's execution time limit for the engine's context group, applied per thread, and
/// the recognition of the terminations it causes.
///
/// How JavaScriptCore measures it (WebKit's `Watchdog`): one clock per VM, started when a thread
/// makes the VM's outermost entry (an evaluation, or a native → JS call while no JS is open on any
/// thread), counting the CPU time of the thread that started it. When its timer fires, the thread
/// then running JS compares its own CPU clock with that deadline and, past it, asks `callback`;
/// true throws an uncatchable "JavaScript execution terminated." at that thread's current entry.
/// With several threads the clock and the thread judged differ (docs/threads.md): a fresh thread
/// running away under a deadline taken on the main thread's long CPU history was never ended, and
/// a thread with a long history was ended for another thread's deadline.
///
/// So the engine judges each thread by its own entry (`PEThreadEntries.h`): every entry into JS
/// runs under the API lock between `beginEntry` and `endEntry`; a thread's outermost entry made
/// while another thread has one open (JavaScriptCore starts no clock for it) restarts the clock on
/// the entering thread, and `deadlineEntry` records whose entry the clock was started for. The
/// callback ends JS only on the thread in that entry; on any other thread it restarts the clock
/// there and lets the JS go on. The limit is CPU time of the thread's outermost entry: a thread
/// waiting for the API lock, or sleeping in a native call, is not running away.
///
/// A termination inside a nested entry also ends the JS around it on that thread (seen with
/// WebKitGTK 2.50: the enclosing evaluation gets the same termination exception as soon as it
/// resumes); the thread stays marked until its outermost entry ends, and the clock is restarted
/// for any JS still running there. JavaScriptCore keeps a termination in force until the VM's
/// outermost entry ends: JS another thread runs meanwhile is ended too, without being asked about
/// (`Termination.otherThreads`); that thread's script is not blamed for it.
///
/// The same watchdog enforces the heap growth limit (`HeapGrowthLimit`): while it is set the clock
/// runs in steps (`HeapGrowthLimit.check` gives each next one), and the callback counts the steps
/// an entry has run for (a lower bound of its CPU time), checks the footprint, and ends the entry
/// at whichever bound it passes first (`judge`).
final class ExecutionTimeLimit: @unchecked Sendable {
    private let group: JSContextGroupRef
    private let setFunction: PEJSSetExecutionTimeLimitFunction?
    private let clearFunction: PEJSClearExecutionTimeLimitFunction?
    /// What any thread may read or set: the limit the app set (nil: off), and JavaScriptCore's
    /// termination exception, once seen (the VM throws the same value every time; scripts never
    /// get hold of it: it can't be caught).
    private struct Settings {
        var limit: TimeInterval?
        var terminationValue: JSValueRef?
    }
    private let settings = LockedValue(Settings())
    /// The watchdog's step, 0 when neither bound is on; guarded by the API lock (read by every
    /// entry, `beginEntry`).
    private var armed: TimeInterval = 0
    /// The time limit in force, 0 when off; guarded by the API lock.
    private var armedLimit: TimeInterval = 0
    /// The heap growth limit, checked at every step.
    let heapGrowth = HeapGrowthLimit()
    /// The clock JavaScriptCore runs now, and how much of `deadlineEntry`'s CPU time the clock
    /// has counted before it; guarded by the API lock.
    private var step: TimeInterval = 0
    private var spent: TimeInterval = 0
    /// The entry last ended for its heap growth (`Termination.heapGrowth`); guarded by the API lock.
    private var heapEnd: (entry: UInt64, exceeded: HeapGrowthExceeded)?
    /// The thread entry (`PEThreadEntryCurrent`) JavaScriptCore's clock was last started for;
    /// guarded by the API lock.
    private var deadlineEntry: UInt64 = .max

    /// The text of JavaScriptCore's termination exception.
    static let terminationMessage = "JavaScript execution terminated."

    init(group: JSContextGroupRef) {
        self.group = group
        setFunction = JSCPrivateFunctions.setExecutionTimeLimit
        clearFunction = JSCPrivateFunctions.clearExecutionTimeLimit
    }

    var isAvailable: Bool { setFunction != nil && clearFunction != nil }

    /// The limit in force; nil when off or unavailable.
    var seconds: TimeInterval? { settings.withLock { $0.limit } }

    /// Sets the limit for every later entry into JS (nil, a non-positive or non-finite value: off).
    /// Call with JavaScriptCore's API lock held (`APILock`); it waits while another thread runs JS.
    /// - Returns: false when this JavaScriptCore has no time limit (nothing is enforced).
    @discardableResult
    func set(_ seconds: TimeInterval?) -> Bool {
        guard isAvailable else { return false }
        let value = seconds.flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
        settings.withLock { $0.limit = value }
        arm()
        return true
    }

    /// Arms the watchdog for the bounds set (`limit`, `heapGrowth`), or clears it. API lock held.
    func arm() {
        guard let clearFunction else { return }
        let limit = seconds
        armedLimit = limit ?? 0
        armed = heapGrowth.bytes == nil ? armedLimit : min(limit ?? .infinity, HeapGrowthLimit.checkPeriod)
        if armed > 0 { restartClock() } else { clearFunction(group) }
    }

    /// Restarts JavaScriptCore's clock on this thread, for this thread's entry. API lock held.
    private func restartClock() {
        spent = 0
        runClock(armed)
    }

    private func runClock(_ seconds: TimeInterval) {
        guard seconds > 0, let setFunction else { return }
        deadlineEntry = PEThreadEntryCurrent()
        step = seconds
        setFunction(group, seconds, Self.callback, Unmanaged.passUnretained(self).toOpaque())
    }

    /// At the end of a step of `deadlineEntry` on its own thread: true ends the entry (past the
    /// time limit, or grown past the heap budget); otherwise the clock runs the next step.
    private func judge(_ entry: UInt64) -> Bool {
        spent += step
        let heap = heapGrowth.check(entry: entry, spent: spent)
        if let exceeded = heap.exceeded {
            heapEnd = (entry, exceeded)
            return true
        }
        let next = heap.next ?? armed
        guard armedLimit > 0 else { runClock(next); return false }
        let left = armedLimit - spent
        if left <= armedLimit * 1e-9 { return true }
        runClock(min(next, left))
        return false
    }

    /// Before an entry into JS, with the API lock held until the matching `endEntry`.
    /// `othersInVM`: another thread has an entry open in this VM (threads in other VMs don't nest
    /// this entry: each VM has its own outermost entry and watchdog).
    @inline(__always) func beginEntry(othersInVM: Bool) {
        let entry = PEThreadEntryBegin()
        guard entry != 0, armed > 0 else { return }
        // Alone, the VM's outermost entry: JavaScriptCore starts the clock on this thread itself.
        // Nested in another thread's, it starts none: restart it here, so it measures this thread.
        if othersInVM { restartClock() } else { deadlineEntry = entry; spent = 0 }
    }

    /// After the entry's JS returned, still under the API lock.
    @inline(__always) func endEntry() { PEThreadEntryEnd() }

    /// Runs on the thread running JS once JavaScriptCore's clock passed its deadline.
    private static let callback: PEJSShouldTerminateCallback = { _, context in
        let limit = Unmanaged<ExecutionTimeLimit>.fromOpaque(context!).takeUnretainedValue()
        let entry = PEThreadEntryCurrent()
        if entry == limit.deadlineEntry {
            guard limit.judge(entry) else { return false }
            if entry != 0 { PEThreadEntryMarkTerminated() }
            return true
        }
        // The clock measured another thread, or an earlier entry of this one: this entry has not
        // been judged. Measure it from now on its own thread's clock: a runaway is ended after at
        // most one more limit of its CPU time.
        limit.restartClock()
        return false
    }

    /// How an exception returned by an entry into JS relates to the time limit.
    enum Termination: Equatable {
        /// Not a termination: the script's own exception.
        case none
        /// The limit ended this thread's entry (or JS nested in it).
        case timeout
        /// JavaScriptCore ended this thread's JS while ending another thread's runaway.
        case otherThreads
        /// The heap growth limit ended this thread's entry.
        case heapGrowth(HeapGrowthExceeded)
    }

    /// Classifies `value` (`exception`), just returned to this thread by an entry into JS, under
    /// the API lock. After this thread's own termination, restarts the clock for any JS still
    /// running around this entry on this thread.
    func termination(of value: JSValueRef, _ exception: JSException, ctx: JSContextRef) -> Termination {
        guard exception.message == Self.terminationMessage else { return .none }
        let known = settings.withLock { settings -> JSValueRef? in
            let known = settings.terminationValue
            if known == nil, PEThreadEntryWasTerminated() { settings.terminationValue = value; JSValueProtect(ctx, value) }
            return known
        }
        if PEThreadEntryWasTerminated() {
            restartClock()
            if let heapEnd, heapEnd.entry == PEThreadEntryCurrent() { return .heapGrowth(heapEnd.exceeded) }
            return .timeout
        }
        // Only the VM's own termination value; a script's `throw` of that text is its own error.
        return known == nil || known == value ? .otherThreads : .none
    }
}

/// JavaScriptCore ended a thread's JS while it terminated a runaway script on another thread.
struct ExecutionEndedForAnotherThread: Error, CustomStringConvertible {
    var description: String {
        "ended by JavaScriptCore while it terminated a runaway script on another thread"
    }
}

/// A script ran past the execution time limit, or grew memory past the heap growth limit
/// (`heapGrowth`), and was terminated.
struct ExecutionTimeout: Error, CustomStringConvertible {
    let limit: TimeInterval
    /// The script of the innermost JS method running when it was ended (a termination skips the
    /// method wrappers' `finally`, so runtime.js's per-call context still names it): a method
    /// called directly from JS may belong to another script than the entry's. nil: not a method's.
    var script: String?
    /// Set when the heap growth limit ended it.
    var heapGrowth: HeapGrowthExceeded?

    /// "2.0", "0.2", "0.25": seconds as a person writes them.
    var formattedLimit: String {
        let tenths = String(format: "%.1f", limit)
        return Double(tenths) == limit ? tenths : String(format: "%g", limit)
    }

    /// "<what> exceeded the 2.0 s execution time limit", or the heap growth's message.
    func message(for what: String) -> String {
        heapGrowth?.message(for: what) ?? "\(what) exceeded the \(formattedLimit) s execution time limit"
    }

    var kind: PatchError.Kind { heapGrowth == nil ? .timeout : .heapGrowth }

    /// Why its script is reverted, for the log.
    var bound: String { heapGrowth == nil ? "it ran past the execution time limit" : "it grew memory past the heap growth limit" }

    var description: String { message(for: "JavaScript") }
}
