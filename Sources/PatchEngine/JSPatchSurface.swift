import CJavaScriptCore
import Foundation
import PatchRuntime
import PatchSupport

/// State of JSPatch's engine object and extensions (Resources/jspatch.js), which runtime.js loads
/// on first use. What a script changes here is recorded in its transaction and undone with it.
final class JSPatchState: @unchecked Sendable {
    /// `autoConvertOCType(1)`: NSString, NSArray, NSDictionary and NSNull returned to JS arrive as
    /// JS values instead of boxes. Read on every boxed object's crossing, written by scripts: a
    /// plain flag (a stale read only converts one value the old way).
    var autoConvert: Bool {
        get { flags.autoConvert }
        set { flags.autoConvert = newValue }
    }
    /// The process's setting (every VM converts alike).
    final class Flags: @unchecked Sendable { var autoConvert = false }
    private let flags: Flags
    /// jspatch.js's exports ({JPEngine, defineJSClass, autoConvertOCType}), once loaded.
    var surface: JSObjectRef?
    var jsClassRemover: JSObjectRef?

    struct Allocation { let size: Int; var retained: UnsafeMutableRawPointer? }
    /// Blocks from malloc(), newStruct() and getPointer(): their sizes, so memset/memcpy/memmove
    /// cannot write past them, and the object a getPointer() block keeps alive until free().
    let allocations: LockedValue<[UInt: Allocation]>
    /// defineCFunction's functions by name and resolved types (kept for the process: a few).
    let cFunctions = LockedValue<[String: JSValueRef]>([:])
    /// The same by name and types as written, while the struct definitions are those of
    /// `generation` (emptied when they change: what a written type list means can change then).
    let cFunctionsAsWritten = LockedValue<(generation: Int, functions: [String: JSValueRef])>((0, [:]))
    /// Extensions the app registered (`PatchEngine.registerExtension`): name → JS source.
    let registeredExtensions: LockedValue<[String: String]>

    /// The allocations and the registered extensions are the process's (every VM's); the rest
    /// holds JS values of one VM.
    init(sharingWith other: JSPatchState? = nil) {
        allocations = other?.allocations ?? LockedValue([:])
        flags = other?.flags ?? Flags()
        registeredExtensions = other?.registeredExtensions ?? LockedValue([:])
    }
}

extension PatchEngine {
    /// Makes `name` an extension scripts can add with `require('JPEngine').addExtensions([name])`,
    /// as JSPatch apps add their own `JPExtension` classes. `script` is the body of a function of
    /// `global` (the global object) that defines what the extension offers; it runs each time a
    /// script adds the extension, as part of that script: what it assigns to `global` is reverted
    /// with that script.
    public static func registerExtension(_ name: String, script: String) {
        Engine.shared.jspatch.registeredExtensions.withLock { $0[name] = script }
    }
}

extension Engine {
    /// Installs `N.loadJSPatch()`: evaluates jspatch.js once with its own native bindings.
    func installJSPatchLoader(into n: JSObjectRef) {
        addFunction(n, "loadJSPatch") { [unowned self] _, _, _ in
            if let surface = jspatch.surface { return surface }
            let module = try evaluateRaw(Self.jspatchSource(), sourceURL: Self.jspatchScriptName)
            guard let function = JSValueToObject(ctx, module, nil), JSObjectIsFunction(ctx, function) else {
                throw BridgeError("jspatch.js did not evaluate to a function")
            }
            let bindings = JSObjectMake(ctx, nil, nil)!
            installJSPatchBindings(into: bindings)
            let result = try call(function, [n, bindings, JSContextGetGlobalObject(ctx)])
            guard let surface = JSValueToObject(ctx, result, nil) else { throw BridgeError("jspatch.js returned no surface") }
            JSValueProtect(ctx, surface)
            jspatch.surface = surface
            return surface
        }
    }

    static let jspatchScriptName = "jspatch.js"
    static func jspatchSource() -> String { engineScript(PEJSPatchScriptSource(), "jspatch") }

    // MARK: The bindings jspatch.js builds on (its `J`)

    private func installJSPatchBindings(into j: JSObjectRef) {
        func arg(_ args: [JSValueRef], _ i: Int) -> JSValueRef { i < args.count ? args[i] : JSValueMakeUndefined(ctx) }
        func string(_ args: [JSValueRef], _ i: Int) -> String { JSC.toString(ctx, arg(args, i)) }
        func int(_ args: [JSValueRef], _ i: Int) -> Int {
            let d = JSValueToNumber(ctx, arg(args, i), nil)
            return d.isFinite ? Int(max(min(d, 9.0e15), -9.0e15)) : 0
        }
        func pointer(_ args: [JSValueRef], _ i: Int, _ what: String) throws -> UnsafeMutableRawPointer {
            guard let p = pointerValue(arg(args, i)) else {
                throw BridgeError("\(what) expects a pointer (from malloc() or a native call), got \(jsTypeName(arg(args, i)))")
            }
            return p
        }

        addFunction(j, "defineGlobal") { [unowned self] _, _, a in
            defineRecordedGlobal(string(a, 0), arg(a, 1))
            return nil
        }
        addFunction(j, "memset") { [unowned self] _, _, a in
            let p = try pointer(a, 0, "memset()"), count = int(a, 2)
            try checkWrite(p, count, "memset()")
            memset(p, Int32(truncatingIfNeeded: int(a, 1)), count)
            return nil
        }
        addFunction(j, "memcpy") { [unowned self] _, _, a in
            let what = JSValueToBoolean(ctx, arg(a, 3)) ? "memmove()" : "memcpy()"
            let dest = try pointer(a, 0, what), src = try pointer(a, 1, what), count = int(a, 2)
            try checkWrite(dest, count, what)
            try checkWrite(src, count, what)
            memmove(dest, src, count)
            return makePointer(dest)
        }
        addFunction(j, "getPointer") { [unowned self] _, _, a in
            let value = arg(a, 0)
            let slot = calloc(1, MemoryLayout<UnsafeMutableRawPointer>.size)!
            var retained: UnsafeMutableRawPointer?
            if let p = pointerValue(value) {
                slot.storeBytes(of: p, as: UnsafeMutableRawPointer.self)
            } else {
                let pool = PEPoolPush(); defer { PEPoolPop(pool) }
                // Kept alive until the block is freed: the slot may be the only reference.
                retained = PEObjectRetain(try jsToObject(value, what: "getPointer()"))
                slot.storeBytes(of: retained, as: UnsafeMutableRawPointer?.self)
            }
            registerAllocation(slot, size: MemoryLayout<UnsafeMutableRawPointer>.size, retaining: retained)
            return makePointer(slot)
        }
        addFunction(j, "pvalBool") { [unowned self] _, _, a in
            JSValueMakeBoolean(ctx, try pointer(a, 0, "pvalBool()").load(as: UInt8.self) != 0)
        }
        addFunction(j, "checkPointer") { [unowned self] _, _, a in
            _ = try pointer(a, 0, string(a, 1) + "()")
            return nil
        }
        addFunction(j, "assignScalar") { [unowned self] _, _, a in
            let p = try pointer(a, 0, "assignScalarTypePointer()")
            let letter = string(a, 2)
            let value = arg(a, 1)
            if letter == "c" || letter == "C", JSValueIsString(ctx, value) {
                // JSPatch's rule for chars: the string's first byte.
                p.storeBytes(of: JSC.toString(ctx, value).utf8.first ?? 0, as: UInt8.self)
                return nil
            }
            guard letter.count == 1, let type = TypeNames.scalarType(letter: letter) else {
                throw BridgeError("assignScalarTypePointer(): \"\(letter)\" is not a scalar type letter (c C s S i I l L q Q f d F N U B)")
            }
            try checkWrite(p, type.size, "assignScalarTypePointer()")
            try fromJS(value, type, into: p, what: "assignScalarTypePointer() value")
            return nil
        }
        addFunction(j, "autoreleasepool") { [unowned self] _, _, a in
            guard let fn = JSValueToObject(ctx, arg(a, 0), nil), JSObjectIsFunction(ctx, fn) else {
                throw BridgeError("autoreleasepool() expects a function")
            }
            let pool = PEPoolPush()
            defer { PEPoolPop(pool) }
            return try call(fn, [])
        }
        addFunction(j, "newStruct") { [unowned self] _, _, a in
            let name = string(a, 0)
            let type = try structs.type(named: name)
            let p = calloc(1, max(type.size, 1))!
            do {
                try structs.fromJS(self, arg(a, 1), type, into: p, what: "newStruct('\(name)')")
            } catch { free(p); throw error }
            registerAllocation(p, size: type.size, retaining: nil)
            return makePointer(p)
        }
        addFunction(j, "pvalStruct") { [unowned self] _, _, a in
            let name = string(a, 0)
            let type = try structs.type(named: name)
            return try structs.toJS(self, try pointer(a, 1, "pvalStruct('\(name)')"), type)
        }
        addFunction(j, "ocNumber") { [unowned self] _, _, a in
            let className = string(a, 0), selector = string(a, 1)
            guard let cls = PEClassLookup(className) else { throw BridgeError("OCNumber(): no class named \(className)") }
            guard let number = PEClassLookup("NSNumber"),
                  sequence(first: cls, next: { PEClassGetSuperclass($0) }).contains(number) else {
                throw BridgeError("OCNumber(): \(className) is not NSNumber or a subclass of it")
            }
            let signature = try methodSignature(cls, selector)
            return try invoke(cls, selector, signature, argumentValues(arg(a, 2)), kind: .send, boxesResult: true)
        }
        addFunction(j, "toOCNumber") { [unowned self] _, _, a in
            let pool = PEPoolPush(); defer { PEPoolPop(pool) }
            return box(PENumberCreateDouble(JSValueToNumber(ctx, arg(a, 0), nil)))
        }
        addFunction(j, "toJSNumber") { [unowned self] _, _, a in
            let value = arg(a, 0)
            if JSValueIsNumber(ctx, value) { return value }
            guard let object = unbox(value), PEObjectGetKind(object) == PEObjectKindNumber || PEObjectGetKind(object) == PEObjectKindBoolean else {
                throw BridgeError("toJSNumber() expects an NSNumber, got \(jsTypeName(value))")
            }
            return JSValueMakeNumber(ctx, PENumberGetDouble(object))
        }
        addFunction(j, "setAutoConvert") { [unowned self] _, _, a in
            if isReplaying { return nil }   // set for every VM when the script was applied
            let previous = jspatch.autoConvert
            jspatch.autoConvert = JSValueToBoolean(ctx, arg(a, 0))
            transactions.record(.custom(description: "autoConvertOCType", undo: { [unowned self] in jspatch.autoConvert = previous }),
                                script: currentScript())
            return nil
        }
        addFunction(j, "registeredExtension") { [unowned self] _, _, a in
            let name = string(a, 0)
            guard let source = jspatch.registeredExtensions.withLock({ $0[name] }) else { return JSValueMakeNull(ctx) }
            return try evaluateRaw("(function (global) {\n" + source + "\n})", sourceURL: "extension \(name)")
        }
        addFunction(j, "setJSClassRemover") { [unowned self] _, _, a in
            guard let fn = JSValueToObject(ctx, arg(a, 0), nil) else { throw BridgeError("setJSClassRemover expects a function") }
            JSValueProtect(ctx, fn)
            jspatch.jsClassRemover = fn
            return nil
        }
        addFunction(j, "recordJSClass") { [unowned self] _, _, a in
            // A replay's JS classes live and go with the secondary VM.
            if isReplaying { return nil }
            let name = JSC.makeString(ctx, string(a, 0))
            let previous = arg(a, 1)
            JSValueProtect(ctx, name); JSValueProtect(ctx, previous)
            transactions.record(.custom(description: "defineJSClass \(string(a, 0))", undo: { [unowned self] in
                if let remover = jspatch.jsClassRemover { _ = try? call(remover, [name, previous]) }
                JSValueUnprotect(ctx, name); JSValueUnprotect(ctx, previous)
            }), script: currentScript())
            return nil
        }
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

    // MARK: Blocks of memory scripts allocate

    func registerAllocation(_ p: UnsafeMutableRawPointer, size: Int, retaining object: UnsafeMutableRawPointer?) {
        jspatch.allocations.withLock { $0[UInt(bitPattern: p)] = .init(size: size, retained: object) }
    }

    /// Forgets a block (before free()), releasing what getPointer() kept alive in it.
    func forgetAllocation(_ p: UnsafeMutableRawPointer) {
        let entry = jspatch.allocations.withLock { $0.removeValue(forKey: UInt(bitPattern: p)) }
        if let retained = entry?.retained { PEObjectRelease(retained) }
    }

    /// Refuses `count` bytes at `p` when `p` is a block the engine allocated and they do not fit
    /// in it. Pointers from native code carry no size, and are trusted as JSPatch trusted them.
    func checkWrite(_ p: UnsafeMutableRawPointer, _ count: Int, _ what: String) throws {
        guard count >= 0 else { throw BridgeError("\(what): negative size \(count)") }
        let size = jspatch.allocations.withLock { $0[UInt(bitPattern: p)]?.size }
        let fits = size.map { count <= $0 }
        if fits == false { throw BridgeError("\(what): \(count) bytes do not fit in the block allocated at \(p)") }
    }
}
