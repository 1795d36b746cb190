import CJavaScriptCore
import Foundation
import CPatchEngine
import PatchRuntime
import PatchSupport

/// JSPatch's state in one VM (CPatchEngine's Scripts/jspatch.js, which runtime.js loads on first use): the JS
/// values jspatch.js handed this VM, and the C functions defined in it. Touched under the VM's
/// API lock (native callbacks of that VM); the caches have locks of their own.
final class JSPatchState: @unchecked Sendable {
    /// What every VM shares.
    let process: JSPatchProcessState
    /// `autoConvertOCType` (the process's setting, `JSPatchProcessState.autoConvert`).
    var autoConvert: Bool {
        get { process.autoConvert }
        set { process.autoConvert = newValue }
    }
    /// jspatch.js's exports ({JPEngine, defineJSClass, autoConvertOCType}), once loaded.
    var surface: JSObjectRef?
    var jsClassRemover: JSObjectRef?
    /// defineCFunction's functions by name and resolved types (kept for the VM's life: a few).
    let cFunctions = LockedValue<[String: JSValueRef]>([:])
    /// The same by name and types as written, while the struct definitions are those of
    /// `generation` (emptied when they change: what a written type list means can change then).
    let cFunctionsAsWritten = LockedValue<(generation: Int, functions: [String: JSValueRef])>((0, [:]))

    init(process: JSPatchProcessState) {
        self.process = process
    }
}

/// JSPatch's state every VM shares: the conversion setting, the blocks of memory scripts
/// allocated, and the extensions the app registered. What a script changes here is recorded in
/// its transaction and undone with it.
final class JSPatchProcessState: @unchecked Sendable {
    /// `autoConvertOCType(1)`: NSString, NSArray, NSDictionary and NSNull returned to JS arrive as
    /// JS values instead of boxes. Read on every boxed object's crossing, written by scripts: a
    /// plain flag (a stale read only converts one value the old way).
    var autoConvert = false

    struct Allocation { let size: Int; var retained: UnsafeMutableRawPointer? }
    /// Blocks from malloc(), newStruct() and getPointer(): their sizes, so memset/memcpy/memmove
    /// cannot write past them, and the object a getPointer() block keeps alive until free().
    private let allocations = LockedValue<[UInt: Allocation]>([:])
    /// Extensions the app registered (`PatchEngine.registerExtension`): name → JS source.
    let registeredExtensions = LockedValue<[String: String]>([:])

    // MARK: Blocks of memory scripts allocate

    func registerAllocation(_ p: UnsafeMutableRawPointer, size: Int, retaining object: UnsafeMutableRawPointer?) {
        allocations.withLock { $0[UInt(bitPattern: p)] = .init(size: size, retained: object) }
    }

    /// Forgets a block (before free()), releasing what getPointer() kept alive in it.
    func forgetAllocation(_ p: UnsafeMutableRawPointer) {
        let entry = allocations.withLock { $0.removeValue(forKey: UInt(bitPattern: p)) }
        if let retained = entry?.retained { PEObjectRelease(retained) }
    }

    /// Refuses `count` bytes at `p` when `p` is a block the engine allocated and they do not fit
    /// in it. Pointers from native code carry no size, and are trusted as JSPatch trusted them.
    func checkWrite(_ p: UnsafeMutableRawPointer, _ count: Int, _ what: String) throws {
        guard count >= 0 else { throw BridgeError("\(what): negative size \(count)") }
        let size = allocations.withLock { $0[UInt(bitPattern: p)]?.size }
        let fits = size.map { count <= $0 }
        if fits == false { throw BridgeError("\(what): \(count) bytes do not fit in the block allocated at \(p)") }
    }
}

extension PatchEngine {
    /// Makes `name` an extension scripts can add with `require('JPEngine').addExtensions([name])`,
    /// as JSPatch apps add their own `JPExtension` classes. `script` is the body of a function of
    /// `global` (the global object) that defines what the extension offers; it runs each time a
    /// script adds the extension, as part of that script: what it assigns to `global` is reverted
    /// with that script.
    public static func registerExtension(_ name: String, script: String) {
        Engine.shared.jspatch.process.registeredExtensions.withLock { $0[name] = script }
    }
}

extension Engine {
    /// `N.loadJSPatch()`: evaluates jspatch.js once with its own native bindings (`J`: the
    /// `.jspatch` holder of `NativeBinding.table`). jspatch.js hands back `{surface, jsClassRemover}`.
    func loadJSPatch() throws -> JSValueRef {
        if let surface = jspatch.surface { return surface }
        let module = try evaluateRaw(EngineScript.jspatch.source, sourceURL: EngineScript.jspatch.fileName)
        guard let function = JSValueToObject(ctx, module, nil), JSObjectIsFunction(ctx, function) else {
            throw BridgeError("jspatch.js did not evaluate to a function")
        }
        let bindings = JSObjectMake(ctx, nil, nil)!
        installBindings(.jspatch, into: bindings)
        let result = try call(function, [runtimeBindings, bindings, JSContextGetGlobalObject(ctx)])
        guard let handshake = JSValueToObject(ctx, result, nil),
              let surface = JSValueToObject(ctx, JSC.get(ctx, handshake, "surface"), nil),
              let remover = JSValueToObject(ctx, JSC.get(ctx, handshake, "jsClassRemover"), nil), JSObjectIsFunction(ctx, remover) else {
            throw BridgeError("jspatch.js returned no surface")
        }
        JSValueProtect(ctx, surface)
        JSValueProtect(ctx, remover)
        jspatch.jsClassRemover = remover
        jspatch.surface = surface
        return surface
    }

    /// `value` as a pointer, or an error naming `what` wanted one.
    func requirePointer(_ value: JSValueRef, _ what: String) throws -> UnsafeMutableRawPointer {
        guard let p = pointerValue(value) else {
            throw BridgeError("\(what) expects a pointer (from malloc() or a native call), got \(jsTypeName(value))")
        }
        return p
    }

    /// Sets a global for the running script, recording what was there so a revert restores it
    /// (unless something else has set the global since).
    func defineRecordedGlobal(_ name: String, _ value: JSValueRef) {
        let global = JSContextGetGlobalObject(ctx)!
        let jsName = JSC.string(name)
        defer { JSStringRelease(jsName) }
        if isReplaying {   // a secondary VM's global, gone with it; nothing to record
            JSObjectSetProperty(ctx, global, jsName, value, JSPropertyAttributes(kJSPropertyAttributeNone), nil)
            return
        }
        let had = JSObjectHasProperty(ctx, global, jsName)
        let previous: JSValueRef? = had ? JSObjectGetProperty(ctx, global, jsName, nil) : nil
        if let previous { JSValueProtect(ctx, previous) }
        JSValueProtect(ctx, value)
        JSObjectSetProperty(ctx, global, jsName, value, JSPropertyAttributes(kJSPropertyAttributeNone), nil)
        transactions.record(.custom(description: "global \(name)", undo: { [unowned self] in
            let jsName = JSC.string(name)
            defer { JSStringRelease(jsName) }
            if JSValueIsStrictEqual(ctx, JSObjectGetProperty(ctx, global, jsName, nil), value) {
                if let previous {
                    JSObjectSetProperty(ctx, global, jsName, previous, JSPropertyAttributes(kJSPropertyAttributeNone), nil)
                } else {
                    JSObjectDeleteProperty(ctx, global, jsName, nil)
                }
            }
            if let previous { JSValueUnprotect(ctx, previous) }
            JSValueUnprotect(ctx, value)
        }), script: currentScript())
    }
}
