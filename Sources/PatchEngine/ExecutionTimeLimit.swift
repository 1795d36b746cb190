import CJavaScriptCore
import Foundation
import PatchRuntime

/// JavaScriptCore's execution time limit for the engine's context group, and the recognition of
/// the terminations it causes.
///
/// How JavaScriptCore measures it (WebKit's `Watchdog`): the clock starts when a thread makes the
/// outermost entry into the VM (an evaluation, or a native → JS call while no JS runs on that
/// thread) and counts that thread's CPU time; nested entries (JS → Objective-C → JS) run on the
/// same clock. Past the limit the callback runs on the thread running JS, which then gets an
/// uncatchable "JavaScript execution terminated." exception at its current entry. The limit is
/// per VM (one for all threads): JS runs on one thread at a time under JSC's API lock, and a
/// thread waiting for that lock is not counted.
///
/// A termination inside a nested entry also ends the JS around it (seen with WebKitGTK 2.50: the
/// enclosing evaluation gets the same termination exception as soon as it resumes). Should a
/// JavaScriptCore let it resume instead, the clock would not restart before the next outermost
/// entry, so `takeTermination` re-arms the limit: enclosing JS never runs unbounded.
final class ExecutionTimeLimit: @unchecked Sendable {
    private let group: JSContextGroupRef
    private let setFunction: PEJSSetExecutionTimeLimitFunction?
    private let clearFunction: PEJSClearExecutionTimeLimitFunction?
    private let lock = NSLock()
    private var limit: TimeInterval?
    /// Threads whose JS the callback ended and whose termination no entry has claimed yet.
    private var terminatedThreads: [pthread_t] = []
    /// JavaScriptCore's termination exception, once seen: the VM throws the same value every time
    /// (scripts never get hold of it: it can't be caught).
    private var terminationValue: JSValueRef?

    /// The text of JavaScriptCore's termination exception.
    static let terminationMessage = "JavaScript execution terminated."

    init(group: JSContextGroupRef) {
        self.group = group
        setFunction = JSCPrivateFunctions.setExecutionTimeLimit
        clearFunction = JSCPrivateFunctions.clearExecutionTimeLimit
    }

    var isAvailable: Bool { setFunction != nil && clearFunction != nil }

    /// The limit in force; nil when off or unavailable.
    var seconds: TimeInterval? {
        lock.lock(); defer { lock.unlock() }
        return limit
    }

    /// Sets the limit for every later entry into JS (nil, a non-positive or non-finite value: off).
    /// Takes JavaScriptCore's API lock, so it waits while another thread runs JS.
    /// - Returns: false when this JavaScriptCore has no time limit (nothing is enforced).
    @discardableResult
    func set(_ seconds: TimeInterval?) -> Bool {
        guard let setFunction, let clearFunction else { return false }
        let value = seconds.flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
        lock.lock(); limit = value; lock.unlock()
        // Calls of JS-defined methods from JS are kept native entries while a limit is set
        // (DirectCalls.swift): answers found before the change are asked again.
        PEDispatchGenerationBumpAll()
        if let value {
            setFunction(group, value, Self.callback, Unmanaged.passUnretained(self).toOpaque())
        } else {
            clearFunction(group)
        }
        return true
    }

    private static let callback: PEJSShouldTerminateCallback = { _, context in
        let limit = Unmanaged<ExecutionTimeLimit>.fromOpaque(context!).takeUnretainedValue()
        limit.lock.lock()
        limit.terminatedThreads.append(pthread_self())
        limit.lock.unlock()
        return true
    }

    /// Whether `value` (`exception`), just returned to this thread by an entry into JS, is a
    /// termination by this limit. Re-arms the limit for any JS still running around this entry on
    /// this thread (a no-op when this was the outermost entry).
    ///
    /// A termination in a nested entry (JS → Objective-C → JS) also ends the JS around it without
    /// another callback: that is why a termination is recognised by the value once the callback has
    /// confirmed it on this thread.
    func takeTermination(_ value: JSValueRef, _ exception: JSException, ctx: JSContextRef) -> Bool {
        guard exception.message == Self.terminationMessage else { return false }
        lock.lock()
        var isTermination = terminationValue.map { $0 == value } ?? false
        if let index = terminatedThreads.firstIndex(where: { pthread_equal($0, pthread_self()) != 0 }) {
            terminatedThreads.remove(at: index)
            isTermination = true
            if terminationValue == nil { terminationValue = value; JSValueProtect(ctx, value) }
        }
        let current = limit
        lock.unlock()
        guard isTermination else { return false }
        if let current, let setFunction {
            setFunction(group, current, Self.callback, Unmanaged.passUnretained(self).toOpaque())
        }
        return true
    }
}

/// A script ran past the execution time limit and was terminated.
struct ExecutionTimeout: Error, CustomStringConvertible {
    let limit: TimeInterval

    /// "2.0", "0.2", "0.25": seconds as a person writes them.
    var formattedLimit: String {
        let tenths = String(format: "%.1f", limit)
        return Double(tenths) == limit ? tenths : String(format: "%g", limit)
    }

    /// "<what> exceeded the 2.0 s execution time limit".
    func message(for what: String) -> String { "\(what) exceeded the \(formattedLimit) s execution time limit" }

    var description: String { message(for: "JavaScript") }
}
