import CJavaScriptCore
import CPatchEngine
import Foundation

/// The entry of a patched method into JS by JavaScriptCore's internal call (`PEJSCInternalCall.h`)
/// instead of `JSObjectCallAsFunction`, which takes the API lock again under the engine's hold,
/// copies the arguments and dispatches through the object's method table.
///
/// Only for functions runtime.js made (`RuntimeHandshake.nativeEntries`), which are plain script
/// functions; only where the engine holds the API lock across its entries (`APILock`); only once
/// the checks below passed in this VM at start: results, `this`, a nil argument passed as null and
/// an exception's value read back as the C API reads them. Otherwise nil, and the engine calls
/// through the C API.
struct InternalCall {
    /// The most arguments a direct call passes (`PEJSCInternalCallRaw` copies them to its stack).
    static let maximumArguments = 16
    /// Where an Exception cell keeps its thrown value (found by `make`).
    private let exceptionValueOffset: Int
    /// What the C API passes as `this` for none: the global object's `this` value.
    private let globalThis: JSObjectRef

    /// Checked in `ctx` with the API lock held; nil where the symbols are missing or a check fails.
    static func make(_ ctx: JSGlobalContextRef, lockHeld: Bool) -> InternalCall? {
        guard lockHeld, PEJSCInternalCallLookUp() else { return nil }
        let strings = ["(function (a, b) { if (a === 'throw') throw b; return [this, a, b, arguments.length]; })", "x", "throw"]
            .map { JSC.string($0) }
        defer { strings.forEach { JSStringRelease($0) } }
        guard let value = JSEvaluateScript(ctx, strings[0], nil, nil, 1, nil),
              let probe = JSValueToObject(ctx, value, nil) else { return nil }
        let marker = JSObjectMake(ctx, nil, nil)!
        let (text, throwWord) = (JSValueMakeString(ctx, strings[1])!, JSValueMakeString(ctx, strings[2])!)
        for value in [probe, marker, text, throwWord] as [JSValueRef] { JSValueProtect(ctx, value) }
        defer { for value in [probe, marker, text, throwWord] as [JSValueRef] { JSValueUnprotect(ctx, value) } }
        // `this` for none: what the C API passes.
        var viaAPI: JSValueRef?
        guard let apiResult = JSObjectCallAsFunction(ctx, probe, nil, 0, nil, &viaAPI), viaAPI == nil,
              let apiArray = JSValueToObject(ctx, apiResult, nil),
              let globalThis = JSValueToObject(ctx, JSObjectGetPropertyAtIndex(ctx, apiArray, 0, nil), nil) else { return nil }
        let made = InternalCall(exceptionValueOffset: 0, globalThis: globalThis)
        // Results: `this` (none, or an object), both arguments and their count; nil arrives as null.
        for (this, second) in [(nil, marker), (marker, nil)] as [(JSObjectRef?, JSValueRef?)] {
            var args: [JSValueRef?] = [text, second]
            var exception: JSValueRef?
            guard let result = made.call(ctx, probe, this: this, count: 2, &args, &exception), exception == nil,
                  let array = JSValueToObject(ctx, result, nil) else { return nil }
            let expected: [JSValueRef?] = [this ?? globalThis, text, second ?? JSValueMakeNull(ctx), JSValueMakeNumber(ctx, 2)]
            for (i, value) in expected.enumerated() where !JSValueIsStrictEqual(ctx, JSObjectGetPropertyAtIndex(ctx, array, UInt32(i), nil), value) {
                return nil
            }
        }
        // An exception: the Exception cell keeps the value thrown at one place.
        var args: [JSValueRef?] = [throwWord, marker]
        var cell: UnsafeRawPointer?
        let thrown = args.withUnsafeMutableBufferPointer {
            PEJSCInternalCallRaw(UnsafeRawPointer(ctx), UnsafeRawPointer(probe), UnsafeRawPointer(globalThis), 2,
                                 UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: UnsafeRawPointer?.self), &cell)
        }
        guard thrown == nil, let cell else { return nil }
        let offset = PEJSCInternalCallFindExceptionValueOffset(cell, UnsafeRawPointer(marker))
        return offset == 0 ? nil : InternalCall(exceptionValueOffset: offset, globalThis: globalThis)
    }

    /// Calls `function` (made by runtime.js) with `count` arguments, the API lock held: its result,
    /// or nil with `exception` set to the value it threw (JavaScriptCore's termination included).
    @inline(__always)
    func call(_ ctx: JSContextRef, _ function: JSObjectRef, this: JSObjectRef?, count: Int,
              _ args: UnsafePointer<JSValueRef?>, _ exception: inout JSValueRef?) -> JSValueRef? {
        var cell: UnsafeRawPointer?
        let result = PEJSCInternalCallRaw(UnsafeRawPointer(ctx), UnsafeRawPointer(function), UnsafeRawPointer(this ?? globalThis),
                                          count, UnsafeRawPointer(args).assumingMemoryBound(to: UnsafeRawPointer?.self), &cell)
        if let cell {
            exception = exceptionValueOffset == 0 ? nil : OpaquePointer(PEJSCInternalCallExceptionValue(cell, exceptionValueOffset))
            return nil
        }
        return OpaquePointer(result)
    }
}
