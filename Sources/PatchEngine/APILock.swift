import CJavaScriptCore

/// JavaScriptCore's API lock, held across several C API calls.
///
/// Each C API call takes and releases the lock itself unless the thread holds it: ≈ 35 ns per
/// call on the CI machine kind, and a release can drain JavaScriptCore's queued work. A call from
/// native code into a patched method makes a box or two and calls the JS function; holding the
/// lock once around them saves that per call. `JSLock` / `JSUnlock` are looked up at run time
/// (`JSCPrivateFunctions`); where they are missing `withLock` just runs its body and every call
/// locks itself.
///
/// JavaScriptCore runs the promise jobs JS queued (`then` callbacks, `async` continuations) when
/// the lock is last released. Held across an entry, that release comes after the entry has ended,
/// where the limits no longer apply (a patch's `Promise.resolve().then(() => { while (true) {} })`
/// hung the app). So the entry runs them itself before it ends (`runJobs`,
/// `JSC::VM::drainMicrotasks`, JSEntry.swift's `settled`); where that function is missing the
/// lock is not held across entries at all, and each C API call's own release runs them, inside.
///
/// Never held around native code that can block or run arbitrary work (method implementations,
/// releases, pool drains): another thread waiting for JS would wait for it. JavaScriptCore itself
/// drops every level of the lock around native callbacks made from JS.
struct APILock {
    private let lock: PEJSLockFunction?
    private let unlock: PEJSLockFunction?
    /// Runs the VM's queued promise jobs now (under the lock, with no JS on the VM's stack).
    let runJobs: PEJSVMDrainMicrotasksFunction?

    init() {
        let functions = JSCPrivateFunctions.lockFunctions
        (lock, unlock, runJobs) = (functions?.lock, functions?.unlock, functions?.runJobs)
    }

    var isAvailable: Bool { lock != nil }

    @inline(__always) func withLock<R>(_ ctx: JSContextRef, _ body: () throws -> R) rethrows -> R {
        guard let lock, let unlock else { return try body() }
        lock(ctx)
        defer { unlock(ctx) }
        return try body()
    }
}
