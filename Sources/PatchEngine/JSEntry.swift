import CJavaScriptCore
import CPatchEngine
import Foundation
import PatchRuntime

/// Entering a VM's JavaScript: every evaluation and every call from native code into JS goes
/// through `entering` (the API lock, the thread's entry record the time limit judges by, the VM's
/// `occupancy`, the drop-order tracker), and every JS → native callback through `afterLockDrop`.
/// This is the engine's hot path: it reads only the VM's own fields of `Engine` (no component
/// behind another object), takes no lock of the engine's, and allocates nothing.
extension Engine {
    /// Evaluates code as is; a JS exception becomes `JSException` (`JSThrown` when
    /// `passingExceptions`, for a native function to raise it again unchanged), a termination by
    /// the time limit `ExecutionTimeout`.
    /// `topLevel`: a script's top level, which runs with runtime.js's per-call context of no
    /// method (restored after). Without it, an evaluation made while another thread is inside a
    /// patched call's native call (its JS nested in that call's entry) found that call's method as
    /// the context, and recorded its definitions under that method's script.
    /// `replaying`: the code is a replay's (`Replay`), whose native calls are restricted.
    func evaluateRaw(_ code: String, sourceURL: String, passingExceptions: Bool = false, topLevel: Bool = false,
                     replaying: Bool = false) throws -> JSValueRef {
        let script = JSC.string(code), url = JSC.string(sourceURL)
        defer { JSStringRelease(script); JSStringRelease(url) }
        var exception: JSValueRef?
        var error: Error?
        var outerBatch = PEPoolBatchState()
        PEPoolEntryBegin(&outerBatch)
        let result = entering(armingAtStart: topLevel) { () -> JSValueRef? in
            let saved = topLevel ? enterTopLevel() : nil
            let outerReplay = replaying ? PEThreadReplayingSwap(Unmanaged.passUnretained(self).toOpaque()) : nil
            defer {
                if replaying { PEThreadReplayingSwap(outerReplay) }
                if let saved { PETopLevelBeforeLeave(); leaveTopLevel(saved) }
            }
            let result = JSEvaluateScript(ctx, script, nil, url, 1, &exception)
            error = settled(exception, topLevel: saved)
            return result
        }
        PEPoolEntryEnd(&outerBatch)
        if let error {
            if passingExceptions, error is JSException, let exception { throw JSThrown(value: exception) }
            throw error
        }
        return result ?? JSValueMakeUndefined(ctx)
    }

    /// Runs `body`, an entry into JS, under the API lock and inside the thread's entry record, so
    /// the time limit judges this thread by this entry (`ExecutionTimeLimit`). An exception is
    /// classified inside too: after a termination runtime.js's per-call context is reset before
    /// another thread can run JS with it.
    /// The drop-order tracker (`PELockDropOrder.h`) learns that this thread's JS begins here.
    /// The thread's current engine is this one inside (`PEThreadEngineCurrent`), and the VM
    /// counts the thread as inside it (`occupancy`), so a patched call on another thread takes
    /// another VM (`VMPool`).
    /// An entry into a secondary VM is no replay's JS (`PEThreadReplaying`): a replay marks its
    /// own inside its entry (`evaluateRaw(replaying:)`); this one may be app code a replay's native
    /// call ran on this thread (+initialize).
    /// As the thread's outermost entry into the VM ends, the calls runtime.js's names still keep
    /// are forgotten (KeptCalls.swift).
    /// `armingAtStart`: a script's top level (`ExecutionTimeLimit.beginEntry`).
    @inline(__always) func entering<R>(armingAtStart: Bool = false, _ body: () throws -> R) rethrows -> R {
        let me = Unmanaged.passUnretained(self).toOpaque()
        let previous = PEThreadEngineSwap(me)
        let arriving = previous != me
        let replaying = replayed == nil ? nil : PEThreadReplaying()
        if replaying != nil { PEThreadReplayingSwap(nil) }
        defer { if replaying != nil { PEThreadReplayingSwap(replaying) } }
        // A thread that holds the VM with its entry counted (`claimWithEntryIfFree`) counts none here.
        let counting = arriving && PEThreadClaimedEngine() != me
        if counting { PEAtomicAddLong(occupancy, Engine.openEntry) }
        defer {
            PEThreadEngineSwap(previous)
            if counting { PEAtomicAddLong(occupancy, -Engine.openEntry) }
        }
        return try apiLock.withLock(ctx) {
            let dropOrder = PELockDropOrderJSBegin()
            timeLimit.beginEntry(armingAtStart: armingAtStart)
            defer { timeLimit.endEntry(); PELockDropOrderJSEnd(dropOrder) }
            defer { if arriving { forgetKeptCallsAfterEntry() } }   // inside the entry: before the two above
            return try body()
        }
    }

    /// Runs `body`, the native work of a JS → native callback (JavaScriptCore has just dropped
    /// the API lock), inside the drop-order tracker: when it is done the thread waits, blocked,
    /// for every thread that entered a callback after it to leave its own, instead of spinning in
    /// JavaScriptCore's `grabAllLocks` (docs/threads.md). Every callback the engine registers
    /// goes through here: native functions (`addFunction`), `N.send`, block functions.
    /// The tracker may skip its list while this thread is alone in the VM (`occupancy`), which it
    /// can tell only when the thread's entry is counted there: JS run outside `entering` (a JS
    /// getter a C API call on native code's side ran) passes no occupancy and is listed.
    /// It also counts the call against the limits' check points (`PECheckPoints.h`): a loop
    /// whose time goes to native calls is checked as soon as one of JS.
    /// A callback of JS run outside every entry is marked as such on its thread while it runs: an
    /// entry it makes is the thread's outermost but has JS below it, so it runs no promise jobs
    /// (`settled`).
    @inline(__always) func afterLockDrop<R>(_ body: () -> R) -> R {
        PECheckPointsCountNativeCall(timeLimit.counter)
        let current = PEThreadEngineCurrent()
        let counted = current == Unmanaged.passUnretained(self).toOpaque()
        let record = PELockDropOrderPush(UnsafeRawPointer(contextGroup), counted ? UnsafePointer(occupancy) : nil)
        defer { PELockDropOrderPop(record) }
        if current == nil {
            PEThreadCallbackOutsideEntriesBegin()
            defer { PEThreadCallbackOutsideEntriesEnd() }
            return body()
        }
        return body()
    }

    func checkSyntax(_ code: String, sourceURL: String) throws {
        let script = JSC.string(code), url = JSC.string(sourceURL)
        defer { JSStringRelease(script); JSStringRelease(url) }
        var exception: JSValueRef?
        if !JSCheckScriptSyntax(ctx, script, url, 1, &exception), let exception {
            throw JSException(ctx: ctx, value: exception)
        }
    }

    /// Performs the releases JS finalizers queued (see PEDeferRelease). Called where no JS
    /// collection can be running: after each native → JS entry returns.
    @inline(__always) func drainReleases() { PEDrainDeferredReleases() }

    /// The end of an entry's JS, inside `entering` (API lock held): what its exception becomes
    /// (`thrownError`), then the promise jobs it queued run, inside the entry and its limits.
    /// JavaScriptCore runs them when the API lock is last released, which with the lock held across
    /// the entry (`APILock`) comes after the entry: a job that never returned hung the app there.
    /// Run only where JavaScriptCore would run them (the thread's outermost entry with no JS below
    /// it, no other thread's JS in the VM): elsewhere the outermost entry around runs them. A job
    /// the limits end makes the entry's result that end (JavaScriptCore drops the jobs queued
    /// after it); a job's own exception is JavaScriptCore's to report, as for any promise.
    /// Without JavaScriptCore's watchdog (`ExecutionTimeLimit.endsByThrowing`) an ended entry's
    /// JS may catch the end and return: the entry is ended all the same if the end was thrown in
    /// it (JS around a nested entry that was ended goes on to its next check point, which throws).
    @inline(__always) func settled(_ exception: JSValueRef?, topLevel: JSObjectRef? = nil) -> Error? {
        var error = exception.map { thrownError($0, topLevel: topLevel) }
        if error == nil && timeLimit.endsByThrowing && PEThreadEntryTakeEndThrown() {
            error = terminationError(timeLimit.endOfThisEntry, topLevel: topLevel)
        }
        guard let runJobs = jobRunner else { return error }
        let endedBefore = PEThreadEntryWasTerminated()
        runJobs(contextGroup)
        return end(since: endedBefore, topLevel: topLevel) ?? error
    }

    /// What runs the VM's queued promise jobs here, nil where JavaScriptCore would not run them
    /// (`settled`) or leaves them to each C API call (`APILock`).
    @inline(__always) private var jobRunner: PEJSVMDrainMicrotasksFunction? {
        guard let runJobs = apiLock.runJobs, PEThreadEntryIsOutermostJS(), !timeLimit.isShared else { return nil }
        return runJobs
    }

    /// The limits' end of this thread's entry, when it came after `endedBefore` was read.
    private func end(since endedBefore: Bool, topLevel: JSObjectRef?) -> Error? {
        guard !endedBefore, PEThreadEntryWasTerminated() else { return nil }
        return terminationError(timeLimit.endOfThisEntry, topLevel: topLevel)
    }

    /// Runs `body`, native work on a value JS returned that may run script code (a conversion
    /// reading an object's getters and proxy traps), inside an entry: the limits apply to that code
    /// as to any, and the promise jobs it queued run there too (`settled`). Throws the limits' end
    /// (or `body`'s error). Outside it, an entry that had ended judged nothing: a returned
    /// struct's getter that never returned hung its native caller.
    func runningScriptCode<R>(_ body: () throws -> R) throws -> R {
        let outcome = entering { () -> Result<R, Error> in
            let endedBefore = PEThreadEntryWasTerminated()
            let outcome = Result { try body() }
            jobRunner?(contextGroup)
            return end(since: endedBefore, topLevel: nil).map { .failure($0) } ?? outcome
        }
        return try outcome.get()
    }

    /// What an exception returned by an entry into JS becomes: `ExecutionTimeout` for a
    /// termination by the time limit, `JSException` otherwise.
    /// Called inside `entering`, with the API lock held.
    /// `topLevel`: the record of a script's top level (`enterTopLevel`), told of a reset.
    private func thrownError(_ exception: JSValueRef, topLevel: JSObjectRef? = nil) -> Error {
        let js = JSException(ctx: ctx, value: exception)
        let termination = timeLimit.termination(of: exception, js, ctx: ctx)
        if termination == .none { return js }
        return terminationError(termination, topLevel: topLevel)
    }

    /// The error of an entry the limits (or JavaScriptCore, for another thread) ended, which
    /// consumes the mark of an end thrown in it (`PEThreadEntryTakeEndThrown`). After the
    /// watchdog's end the per-call context is reset: the ended JS skipped its `finally` blocks. An
    /// end thrown at check points (`endsByThrowing`) ran them, which restored the context, so no
    /// reset then (in a VM shared by threads it would take another thread's method's context away
    /// mid-call).
    private func terminationError(_ termination: ExecutionTimeLimit.Termination, topLevel: JSObjectRef?) -> Error {
        _ = PEThreadEntryTakeEndThrown()
        let running = timeLimit.scriptOfThrownEnd ?? runningScript()
        let reset = timeLimit.endsByThrowing ? nil : resetCallContext()
        if let topLevel, let reset { JSC.set(ctx, topLevel, "reset", reset) }
        switch termination {
        case .otherThreads: return ExecutionEndedForAnotherThread()
        case let .heapGrowth(exceeded): return ExecutionTimeout(limit: timeLimit.seconds ?? 0, script: running, heapGrowth: exceeded)
        default: return ExecutionTimeout(limit: timeLimit.seconds ?? 0, script: running)
        }
    }

    /// The end a check point throws once this thread's entry is past a bound
    /// (`ExecutionTimeLimit.endsByThrowing`).
    func thrownEnd() -> Error {
        PEThreadEntryMarkEndThrown()
        apiLock.withLock(ctx) { timeLimit.recordThrownEnd { runningScript() } }
        return BridgeError(ExecutionTimeLimit.terminationMessage)
    }

    /// The script of the JS method runtime.js's per-call context names (a plain property read).
    private func runningScript() -> String? {
        guard let callFrame = runtime?.callFrame, let context = JSValueToObject(ctx, JSC.get(ctx, callFrame, "context"), nil) else { return nil }
        let script = JSC.get(ctx, context, "script")
        return JSValueIsString(ctx, script) ? JSC.toString(ctx, script) : nil
    }

    /// Swaps runtime.js's per-call context (and the global `self`) for those of no method; returns
    /// what `leaveTopLevel` needs (protected), nil if runtime.js could not run (a VM still ending
    /// a runaway: the context was reset then). One JS call, so that no other thread's JS runs in
    /// the middle of the swap even where the API lock can't be held across C API calls.
    private func enterTopLevel() -> JSObjectRef? {
        guard let runtime, let entered = JSObjectCallAsFunction(ctx, runtime.topLevelEnter, nil, 0, nil, nil),
              let object = JSValueToObject(ctx, entered, nil) else { return nil }
        JSValueProtect(ctx, object)
        return object
    }

    /// Swaps back what `enterTopLevel` saved, if the context is still the one it swapped in
    /// (runtime.js, `topLevelLeave`). Where runtime.js can't run (the VM ending a runaway), the same
    /// check and stores through the C API.
    private func leaveTopLevel(_ entered: JSObjectRef) {
        defer { JSValueUnprotect(ctx, entered) }
        guard let runtime else { return }
        var exception: JSValueRef?
        var argument: JSValueRef? = entered
        _ = JSObjectCallAsFunction(ctx, runtime.topLevelLeave, nil, 1, &argument, &exception)
        guard exception != nil else { return }
        let context = JSC.get(ctx, runtime.callFrame, "context")
        guard JSValueIsStrictEqual(ctx, context, JSC.get(ctx, entered, "mine"))
              || JSValueIsStrictEqual(ctx, context, JSC.get(ctx, entered, "reset")) else { return }
        JSC.set(ctx, runtime.callFrame, "context", JSC.get(ctx, entered, "saved"))
        JSC.set(ctx, JSContextGetGlobalObject(ctx), "self", JSC.get(ctx, entered, "savedSelf"))
    }

    /// Makes runtime.js's per-call context that of no method (`self` undefined, no defining class),
    /// by property stores through the C API, which run no JS. After a termination: the terminated
    /// JS skipped its `finally` blocks, so the context is the terminated method's; the stores are
    /// done even while the VM is still terminating (a JS resetter was itself ended then, and the
    /// next script's definitions were recorded under the runaway's name). Under the API lock,
    /// before another thread runs JS.
    @discardableResult
    private func resetCallContext() -> JSObjectRef? {
        guard let callFrame = runtime?.callFrame else { return nil }
        let context = JSObjectMake(ctx, nil, nil)!
        JSC.set(ctx, context, "self", undefinedValue)
        JSC.set(ctx, context, "definingClass", JSValueMakeNull(ctx))
        JSC.set(ctx, callFrame, "context", context)
        JSC.set(ctx, JSContextGetGlobalObject(ctx), "self", undefinedValue)
        return context
    }

    /// Calls a JS function; a JS exception becomes `JSException`, a termination by the time
    /// limit `ExecutionTimeout`.
    func call(_ function: JSObjectRef, this: JSObjectRef? = nil, _ args: [JSValueRef?]) throws -> JSValueRef {
        try args.withUnsafeBufferPointer { try call(function, this: this, arguments: $0) }
    }

    /// The same, with the arguments in caller-provided storage.
    func call(_ function: JSObjectRef, this: JSObjectRef? = nil, arguments: UnsafeBufferPointer<JSValueRef?>) throws -> JSValueRef {
        var exception: JSValueRef?
        var error: Error?
        var outerBatch = PEPoolBatchState()
        PEPoolEntryBegin(&outerBatch)
        let result = entering { () -> JSValueRef? in
            let result = JSObjectCallAsFunction(ctx, function, this, arguments.count, arguments.baseAddress, &exception)
            error = settled(exception)
            return result
        }
        PEPoolEntryEnd(&outerBatch)
        if let error { throw error }
        return result ?? JSValueMakeUndefined(ctx)
    }

    /// Calls a JS function with `count` arguments that `makeArguments` writes into a stack buffer
    /// (where JavaScriptCore's conservative stack scan sees each while the next is made), making
    /// them and calling under one hold of the API lock. `makeArguments` is handed this engine, so
    /// that it need not capture it (a captured reference is retained and released per call).
    /// `madeByEngine`: `function` is a plain script function the engine made (runtime.js's entry
    /// functions, the struct adapters), which may be entered without the C API (`InternalCall`).
    func call(_ function: JSObjectRef, argumentCount count: Int, madeByEngine: Bool = false,
              _ makeArguments: (Engine, UnsafeMutablePointer<JSValueRef?>) throws -> Void) throws -> JSValueRef {
        var exception: JSValueRef?
        var error: Error?
        var outerBatch = PEPoolBatchState()
        PEPoolEntryBegin(&outerBatch)
        defer { PEPoolEntryEnd(&outerBatch) }   // after the lock is released: draining runs -dealloc
        let result = try withUnsafeTemporaryAllocation(of: JSValueRef?.self, capacity: max(count, 1)) { buffer in
            let args = buffer.baseAddress!
            args.initialize(repeating: nil, count: max(count, 1))
            return try entering { () -> JSValueRef? in
                try makeArguments(self, args)
                let result = madeByEngine ? callMadeByEngine(function, count: count, args, &exception)
                                          : JSObjectCallAsFunction(ctx, function, nil, count, args, &exception)
                error = settled(exception)
                return result
            }
        }
        if let error { throw error }
        return result ?? undefinedValue
    }

    /// Calls `function`, a plain script function the engine made, under the API lock: by the
    /// internal call where this VM has it (`InternalCall`), else through the C API.
    @inline(__always)
    func callMadeByEngine(_ function: JSObjectRef, count: Int, _ args: UnsafePointer<JSValueRef?>,
                          _ exception: inout JSValueRef?) -> JSValueRef? {
        if count <= InternalCall.maximumArguments, let internalCall {
            return internalCall.call(ctx, function, this: nil, count: count, args, &exception)
        }
        return JSObjectCallAsFunction(ctx, function, nil, count, args, &exception)
    }
}
