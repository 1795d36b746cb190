import CJavaScriptCore
import CPatchEngine
import Foundation
import PatchSupport

/// The entry of a patched method into JS by JavaScriptCore's internal call (`PEJSCInternalCall.h`)
/// instead of `JSObjectCallAsFunction`, which takes the API lock again under the engine's hold,
/// copies the arguments and dispatches through the object's method table.
///
/// Only for plain script functions the engine made (runtime.js's entry functions,
/// `RuntimeHandshake.nativeEntries`, and the struct adapters `StructRegistry.callAdapter` compiles),
/// never a function a script hands over (a bound function, a proxy or an API object would be read
/// as something it is not); only where the engine holds the API lock across its entries
/// (`APILock`); only once the checks below passed at the first VM's start: results, `this`, a nil
/// argument passed as null and an exception's value read back as the C API reads them. Otherwise
/// nil, and the engine calls through the C API.
struct InternalCall {
    /// The most arguments an internal call passes (`PEJSCInternalCallRaw` copies them to its stack).
    static let maximumArguments = 16
    /// Where an Exception cell keeps its thrown value (found by `make`).
    private let exceptionValueOffset: Int
    /// What the C API passes as `this` for none: the global object's `this` value.
    private let globalThis: JSObjectRef

    /// The process's answer, from the first VM's check (every VM shares the ABI and layouts it
    /// checks): where an Exception cell keeps its value, or nil when the internal call is not used.
    private static let checked = LockedValue<Int??>(nil)

    /// This VM's internal call, with the API lock held: the first VM's start checks it with
    /// runtime.js's `probe` (≈ 0.1 ms); nil where the symbols are missing or a check failed.
    static func make(_ ctx: JSGlobalContextRef, probe: JSObjectRef, lockHeld: Bool) -> InternalCall? {
        guard lockHeld, PEJSCInternalCallLookUp() else { return nil }
        let offset = checked.withLock { known -> Int? in
            if let known { return known }
            let found = check(ctx, probe)
            known = .some(found)
            return found
        }
        return offset.map { InternalCall(exceptionValueOffset: $0, globalThis: JSContextGetGlobalObject(ctx)) }
    }

    /// Calls `probe` through the C API and through the internal call and compares; the offset of an
    /// Exception cell's value, or nil at the first difference.
    private static func check(_ ctx: JSGlobalContextRef, _ probe: JSObjectRef) -> Int? {
        let strings = ["x", "throw"].map { JSC.string($0) }
        defer { strings.forEach { JSStringRelease($0) } }
        let marker = JSObjectMake(ctx, nil, nil)!
        let (text, throwWord) = (JSValueMakeString(ctx, strings[0])!, JSValueMakeString(ctx, strings[1])!)
        for value in [marker, text, throwWord] as [JSValueRef] { JSValueProtect(ctx, value) }
        defer { for value in [marker, text, throwWord] as [JSValueRef] { JSValueUnprotect(ctx, value) } }
        // `this` for none: what the C API passes, the global object's `this` value.
        var viaAPI: JSValueRef?
        guard let apiResult = JSObjectCallAsFunction(ctx, probe, nil, 0, nil, &viaAPI), viaAPI == nil,
              let apiArray = JSValueToObject(ctx, apiResult, nil),
              let globalThis = JSContextGetGlobalObject(ctx),
              JSValueIsStrictEqual(ctx, JSObjectGetPropertyAtIndex(ctx, apiArray, 0, nil), globalThis) else { return nil }
        let unchecked = InternalCall(exceptionValueOffset: 0, globalThis: globalThis)
        // Results: `this` (none, or an object), both arguments and their count; nil arrives as null.
        for (this, second) in [(nil, marker), (marker, nil)] as [(JSObjectRef?, JSValueRef?)] {
            var args: [JSValueRef?] = [text, second]
            var exception: JSValueRef?
            guard let result = unchecked.call(ctx, probe, this: this, count: 2, &args, &exception), exception == nil,
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
        return offset == 0 ? nil : offset
    }

    /// Calls `function` (a plain script function the engine made) with `count` arguments, the API lock held: its result,
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
