import CJavaScriptCore
import Foundation

/// What runtime.js evaluates to in a VM: the JS state the engine reads and calls, each member
/// checked and kept protected for the VM's life. Taken once by `Engine.start`, before the VM is
/// published; read without a lock afterwards.
struct RuntimeHandshake {
    /// runtime.js's table of `_`-prefixed JS-only methods (className → name → wrapper).
    let jsOnlyTable: JSObjectRef
    /// Removes a JS-only method from that table (a revert).
    let jsOnlyRemover: JSObjectRef
    /// runtime.js's entries for a native call of a JS method with exactly its selector's
    /// arguments, by their count (0 …, `nativeEntryCount` of them): `entry(method wrapper,
    /// receiver, arguments...)`. Kept in memory of their own, so a call reads one without a
    /// retain of an array.
    let nativeEntries: UnsafeMutablePointer<JSObjectRef>
    let nativeEntryCount: Int
    /// runtime.js's `frame`, whose `context` is the JS method running (`Engine.resetCallContext`).
    let callFrame: JSObjectRef
    /// The script of the JS method running (`Engine.currentScript`).
    let scriptGetter: JSObjectRef
    /// Swap a script's top level's context of no method in, and back (`Engine.enterTopLevel`).
    let topLevelEnter: JSObjectRef
    let topLevelLeave: JSObjectRef
    /// What `InternalCall` is checked with at start.
    let internalCallProbe: JSObjectRef
    /// Forgets the calls runtime.js's names keep, with their receivers (KeptCalls.swift).
    let forgetKeptCalls: JSObjectRef

    init(_ value: JSValueRef, ctx: JSContextRef) throws {
        guard let handshake = JSValueToObject(ctx, value, nil) else { throw BridgeError("runtime.js returned no handshake") }
        func member(_ name: String, function: Bool) throws -> JSObjectRef {
            guard let object = JSValueToObject(ctx, JSC.get(ctx, handshake, name), nil), !function || JSObjectIsFunction(ctx, object) else {
                throw BridgeError("runtime.js's handshake has no \(name)")
            }
            JSValueProtect(ctx, object)
            return object
        }
        jsOnlyTable = try member("jsOnlyTable", function: false)
        jsOnlyRemover = try member("jsOnlyRemover", function: true)
        let entries = try member("nativeEntries", function: false)
        let count = Int(JSValueToNumber(ctx, JSC.get(ctx, entries, "length"), nil))
        guard count > 0, count <= 16 else { throw BridgeError("runtime.js's handshake has no native entries") }
        nativeEntries = .allocate(capacity: count)
        for i in 0..<count {
            guard let entry = JSValueToObject(ctx, JSObjectGetPropertyAtIndex(ctx, entries, UInt32(i), nil), nil),
                  JSObjectIsFunction(ctx, entry) else { throw BridgeError("runtime.js's native entry \(i) is not a function") }
            JSValueProtect(ctx, entry)
            (nativeEntries + i).initialize(to: entry)
        }
        nativeEntryCount = count
        callFrame = try member("callFrame", function: false)
        scriptGetter = try member("scriptGetter", function: true)
        topLevelEnter = try member("topLevelEnter", function: true)
        topLevelLeave = try member("topLevelLeave", function: true)
        internalCallProbe = try member("internalCallProbe", function: true)
        forgetKeptCalls = try member("forgetKeptCalls", function: true)
    }
}
