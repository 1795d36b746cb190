import CJavaScriptCore

/// The calls runtime.js's names keep, and when the engine makes them forget.
///
/// Why: `o.name()` in a script asks `__c` for a function that sends `name` to `o`, and made a new
/// one (and its scope) for every call. JavaScriptCore keeps that allocation where the call site
/// inlines it as a closure call, so a loop of sends filled the young generation and collected it
/// every ≈ 100,000 calls; each name now keeps the last function it made with its receiver
/// (runtime.js, `nativeCall`).
///
/// A kept function holds its receiver's box, and so the Objective-C object: a receiver must not
/// outlive its last use by JS because a name remembered it. runtime.js's entries (a patched
/// method's, a script's top level) forget every kept call as they end; JS entered another way (a
/// block's or a hook's function, promise jobs, an entry ended by a limit, whose `finally` blocks
/// don't run) leaves a word set (`keptCalls`, runtime.js's `N.keptCalls`), and the engine has
/// runtime.js forget them when the thread's outermost entry into the VM ends, and before each
/// collection `PatchEngine.collectGarbage()` asks for.
extension Engine {
    /// `keptCalls` as the typed array runtime.js writes.
    func makeKeptCallsArray() -> JSObjectRef? {
        JSObjectMakeTypedArrayWithBytesNoCopy(ctx, kJSTypedArrayTypeUint32Array, keptCalls, MemoryLayout<UInt32>.size, nil, nil, nil)
    }

    /// After an entry's JS, under the API lock: one load when nothing is kept.
    @inline(__always) func forgetKeptCallsAfterEntry() {
        if keptCalls.pointee != 0 { forgetKeptCallsNow() }
    }

    /// Has runtime.js forget its kept calls now (a collection is next).
    func forgetKeptCalls() {
        apiLock.withLock(ctx) { forgetKeptCallsNow() }
    }

    /// Under the API lock. A VM still ending a runaway ends this call too: the word stays set and
    /// the next entry's end forgets them.
    @inline(never) private func forgetKeptCallsNow() {
        guard let runtime else { return }
        var exception: JSValueRef?
        var none: JSValueRef? = nil
        _ = callMadeByEngine(runtime.forgetKeptCalls, count: 0, &none, &exception)
    }
}
