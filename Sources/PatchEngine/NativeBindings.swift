import CJavaScriptCore
import CPatchEngine
import Foundation
import PatchRuntime

/// Every native function the engine's scripts call, declared once: name, holder (runtime.js's
/// `N`, jspatch.js's `J`, or the global object), area, replay policy, and a body whose parameter
/// types say how each argument is decoded (`NativeArgument`). To add a binding, add an entry
/// here: `Engine.start` installs it and `Replay.allowedNatives` lists it when it is replayable.
///
/// Not here: `N.send` (a bare JavaScriptCore callback, the message-send hot path:
/// MessageSends.swift), `N.nsnull`, `N.objectPrototype` and `N.codes` (values, not functions),
/// and functions made per object (a C function's `call`, a hook token's `remove`, script
/// extensions), which are never replayable.
extension NativeBinding {
    static let table: [NativeBinding] = objectiveC + definitions + values + memory + helpers + directCalls + jspatch + toolkit

    private static let objectiveC: [NativeBinding] = [
        .init("callI", .objectiveC) { (e: Engine, receiver: JSValueRef, name: String, args: JSValueRef) in
            try e.callMethod(receiver, name, args)
        },
        .init("sendSelector", .objectiveC, .replayable) { (e: Engine, name: String, argumentCount: Int) in
            JSValueMakeNumber(e.ctx, Double(try e.sendSelectorNumber(jsName: name, argumentCount: argumentCount)))
        },
        .init("callSuper", .objectiveC) { (e: Engine, receiver: JSValueRef, name: String, cls: UnsafeMutableRawPointer?, args: JSValueRef) in
            guard let cls else { throw BridgeError("super() outside a defined method") }
            return try e.callSuper(receiver, name, definingClass: cls, args)
        },
        // super() outside a defineClass method: the receiver's own class (its metaclass for a class).
        .init("superStart", .objectiveC, .replayable) { (e: Engine, receiver: JSValueRef) in
            guard let receiver = e.unbox(receiver) else { throw BridgeError("super() needs an Objective-C receiver") }
            return JSValueMakeNumber(e.ctx, Double(UInt(bitPattern: PEObjectGetClass(receiver))))
        },
        .init("callOriginal", .objectiveC) { (e: Engine, receiver: JSValueRef, name: String, cls: UnsafeMutableRawPointer?, args: JSValueRef) in
            try e.callOriginal(receiver, name, definingClass: cls, args)
        },
        .init("getClass", .objectiveC, .replayable) { (e: Engine, name: String) in
            guard let cls = PEClassLookup(name) else { throw BridgeError("no Objective-C class named \(name)") }
            return e.box(cls)
        },
        .init("classChain", .objectiveC, .replayable) { (e: Engine, value: JSValueRef) in
            guard let object = e.unbox(value) else { return JSC.array(e.ctx, []) }
            let isClass = PEObjectGetKind(object) == PEObjectKindClass
            var names: [JSValueRef?] = []
            var cls: UnsafeMutableRawPointer? = isClass ? object : PEObjectGetClass(object)
            while let c = cls {
                names.append(JSC.makeString(e.ctx, (isClass ? "+" : "") + String(cString: PEClassGetName(c))))
                cls = PEClassGetSuperclass(c)
            }
            return JSC.array(e.ctx, names)
        },
        .init("getProperty", .objectiveC) { (e: Engine, value: JSValueRef, name: String) in
            guard let object = e.unbox(value) else { throw BridgeError("property access on a non-object") }
            let pool = PEPoolPush(); defer { PEPoolPop(pool) }
            return e.objectToJS(PEPropertyGet(object, name))
        },
        .init("setProperty", .objectiveC) { (e: Engine, value: JSValueRef, name: String, newValue: JSValueRef) in
            guard let object = e.unbox(value) else { throw BridgeError("property access on a non-object") }
            let pool = PEPoolPush(); defer { PEPoolPop(pool) }
            PEPropertySet(object, name, try e.jsToObject(newValue, what: "property \(name)"))
            return nil
        },
    ]

    private static let definitions: [NativeBinding] = [
        .init("defineGlobal", .definitions, .replayable) { (e: Engine, name: String, value: JSValueRef) in
            e.defineRecordedGlobal(name, value)
            return nil
        },
        .init("defineClass", .definitions, .replayable) {
            (e: Engine, declaration: String, properties: JSValueRef, instanceMethods: JSValueRef, classMethods: JSValueRef, script: JSValueRef) in
            // The script comes with the call (runtime.js's context), else it is the evaluation's.
            let script = JSValueIsString(e.ctx, script) ? JSC.toString(e.ctx, script) : (e.evaluations.current()?.name ?? "<runtime>")
            if e.isReplaying {
                return try e.replayDefineClass(declaration, instanceMethods: instanceMethods, classMethods: classMethods, script: script)
            }
            return try e.defineClass(declaration, properties: properties, instanceMethods: instanceMethods,
                                     classMethods: classMethods, script: script)
        },
        // A replay defines nothing outside its VM: the registries are every VM's, and the
        // evaluation replayed defined these already.
        .init("defineProtocol", .definitions, .replayable) { (e: Engine, name: String, instanceMethods: JSValueRef, classMethods: JSValueRef) in
            if e.isReplaying { return nil }
            try e.defineProtocol(name, instance: instanceMethods, classMethods: classMethods)
            return nil
        },
        .init("defineStruct", .definitions, .replayable) { (e: Engine, name: JSValueRef, types: JSValueRef, keys: JSValueRef) in
            if e.isReplaying { return nil }
            let ctx = e.ctx
            guard JSValueIsString(ctx, name), JSValueIsString(ctx, types), JSValueIsArray(ctx, keys) else {
                throw BridgeError("defineStruct expects {name: string, types: string, keys: [string]}")
            }
            let keysObject = JSValueToObject(ctx, keys, nil)!
            let keyNames = (0..<(try JSC.arrayLength(ctx, keysObject, atMost: 4_096, "defineStruct keys"))).map {
                JSC.toString(ctx, JSObjectGetPropertyAtIndex(ctx, keysObject, UInt32($0), nil))
            }
            let structName = JSC.toString(ctx, name)
            let previous = try e.structs.define(name: structName, types: JSC.toString(ctx, types), keys: keyNames)
            e.transactions.record(.structDefined(name: structName, previous: previous), script: e.currentScript())
            return nil
        },
        .init("defineCFunction", .definitions) { (e: Engine, name: String, types: String) in
            try e.defineCFunction(name, types: types)
        },
        .init("externConstant", .definitions) { (e: Engine, name: String, type: String) in
            try e.externConstant(name, type: type)
        },
        .init("include", .definitions, .replayable) { (e: Engine, path: String) in try e.include(path) },
    ]

    private static let values: [NativeBinding] = [
        .init("toJS", .values, .replayable) { (e: Engine, value: JSValueRef) in e.deepToJS(value) },
        .init("makeBlock", .values, .replayable) { (e: Engine, types: String, function: JSValueRef) in
            try e.makeBlock(types: types, function: try e.requireFunction(function, "block()"))
        },
        .init("weak", .values, .replayable) { (e: Engine, value: JSValueRef) in
            guard let object = e.unbox(value) else { return value }
            return try e.makeWeak(object)
        },
        .init("strong", .values, .replayable) { (e: Engine, value: JSValueRef) in
            guard let object = e.unbox(value) else { return value }
            return e.box(object, retain: true)
        },
        // protocol('NSCopying'): `@protocol(NSCopying)`, the runtime's protocol object, for
        // conformsToProtocol: and other `Protocol *` parameters (defineProtocol's ones included).
        .init("protocol", .values, .replayable) { (e: Engine, name: String) in
            guard let proto = PEProtocolLookup(name) else {
                throw BridgeError("protocol('\(name)'): no Objective-C protocol named \(name) in the runtime (declare it with "
                    + "defineProtocol; on GCC's runtime a protocol no class or category adopts isn't there)")
            }
            return e.box(proto)
        },
    ]

    // Pointers and memory (JSPatch's memory extension), for out-parameters such as NSError **.
    private static let memory: [NativeBinding] = [
        .init("malloc", .memory) { (e: Engine, size: Int) in
            guard size > 0 else { throw BridgeError("malloc(size) needs a positive size") }
            guard let block = calloc(1, size) else { throw BridgeError("malloc(\(size)): out of memory") }
            e.jspatch.process.registerAllocation(block, size: size, retaining: nil)
            return e.makePointer(block)
        },
        .init("free", .memory) { (e: Engine, pointer: JSValueRef) in
            guard let p = e.pointerValue(pointer) else { throw BridgeError("free() expects a pointer from malloc()") }
            e.jspatch.process.forgetAllocation(p)
            free(p); return nil
        },
        .init("pval", .memory) { (e: Engine, pointer: JSValueRef) in
            guard let p = e.pointerValue(pointer) else { throw BridgeError("pval() expects a pointer") }
            return e.objectToJS(p.load(as: UnsafeMutableRawPointer?.self))
        },
        // `*error = obj` from JS, for a patched method's NSError ** (JSPatch's memory extension).
        .init("assignPointer", .memory) { (e: Engine, pointer: JSValueRef, value: JSValueRef) in
            guard let p = e.pointerValue(pointer) else { throw BridgeError("assignPointer() expects a pointer") }
            let object = try e.jsToObject(value, what: "assignPointer value")
            PEDeferAutorelease(object)
            p.storeBytes(of: object, as: UnsafeMutableRawPointer?.self)
            return nil
        },
        .init("sizeof", .memory, .replayable) { (e: Engine, name: String) in
            var error: UnsafePointer<CChar>?
            if let sig = PESignatureFromTypeList(name, false, &error) {
                return JSValueMakeNumber(e.ctx, Double(ObjCSignature(raw: sig).returnType.size))
            }
            if let type = try? e.structs.type(named: name) {
                return JSValueMakeNumber(e.ctx, Double(type.size))
            }
            throw BridgeError("sizeof(\"\(name)\"): unknown type (declare structs with defineStruct)")
        },
    ]

    private static let helpers: [NativeBinding] = [
        // A check point's call-out (`__peTock`): false, which the check points' forms rely on; or,
        // without JavaScriptCore's watchdog, the end of an entry past a bound, thrown.
        .init("tock", .helpers, .replayable) { (e: Engine) in
            if e.apiLock.withLock(e.ctx, { e.timeLimit.tock() }) { throw e.thrownEnd() }
            return JSValueMakeBoolean(e.ctx, false)
        },
        // Source made at run time (eval, Function…: runtime.js), preprocessed with check points.
        .init("preprocess", .helpers, .replayable) { (e: Engine, code: String, functionBody: Bool) in
            JSC.makeString(e.ctx, try Preprocessor.checked(code, functionBody: functionBody).code)
        },
        .init("describe", .helpers) { (e: Engine, value: JSValueRef) in
            if let object = e.unbox(value) {
                let text = PEObjectDescription(object)!
                defer { free(text) }
                return JSC.makeString(e.ctx, String(cString: text))
            }
            return JSC.makeString(e.ctx, e.describeJS(value))
        },
        .init("log", .helpers, .replayable) { (e: Engine, message: String) in
            if !e.isReplaying { e.log(message) }   // logged once, when the script was applied
            return nil
        },
        .init("dispatch", .helpers) { (e: Engine, kind: DispatchKind, seconds: Double, function: JSValueRef) in
            try e.dispatch(kind: kind, after: seconds, e.requireFunction(function, "dispatch"))
            return nil
        },
        .init("resourcePath", .helpers, .replayable) { (e: Engine, path: String) in
            JSC.makeString(e.ctx, try e.resolvePath(path))
        },
        // isMainThread(): whether the script runs on the main thread (a patch that must not block
        // it, or must touch UI only there, branches on it).
        .init("isMainThread", .helpers, .replayable, on: .global) { (e: Engine) in
            JSValueMakeBoolean(e.ctx, Thread.isMainThread)
        },
    ]

    // Calls of JS-defined methods kept inside JS (DirectCalls.swift, direct.js).
    private static let directCalls: [NativeBinding] = [
        // N.loadDirectCalls(shared): direct.js loaded once for every thread, in this one native call
        // (JavaScriptCore runs other threads' JS while a native call is out, so a load made of several
        // steps in JS could be seen half done, or done twice).
        .init("loadDirectCalls", .directCalls, .replayable) { (e: Engine, shared: JSValueRef) in try e.loadDirectCalls(shared) },
        // N.resolveDirect(box, name, argc, needView) → null, or what runtime.js keeps for the object.
        .init("resolveDirect", .directCalls, .replayable) { (e: Engine, box: JSValueRef, name: String, argumentCount: Int, needsView: Bool) in
            try e.resolveDirect(box, name: name, argumentCount: argumentCount, needsView: needsView)
        },
        // N.convertArgument(box, number, index, value): `value` as a send's argument would arrive.
        .init("convertArgument", .directCalls, .replayable) { (e: Engine, box: JSValueRef, number: Int, index: Int, value: JSValueRef) in
            try e.convertDirectArgument(box, number: number, index: index, value)
        },
        // N.finishDirect(box, number, value, failed, args...): the result, or the original's on failure.
        .init("finishDirect", .directCalls, .replayable) {
            (e: Engine, box: JSValueRef, number: Int, value: JSValueRef, failed: Bool, rest: RestArguments) in
            try e.finishDirect(box, number: number, value: value, failed: failed, arguments: rest.values)
        },
    ]

    // The bindings jspatch.js builds JSPatch's surface on (its `J`; JSPatchSurface.swift).
    private static let jspatch: [NativeBinding] = [
        .init("defineGlobal", .jspatch, .replayable, on: .jspatch) { (e: Engine, name: String, value: JSValueRef) in
            e.defineRecordedGlobal(name, value)
            return nil
        },
        .init("memset", .jspatch, on: .jspatch) { (e: Engine, pointer: JSValueRef, byte: Int, count: Int) in
            let p = try e.requirePointer(pointer, "memset()")
            try e.jspatch.process.checkWrite(p, count, "memset()")
            memset(p, Int32(truncatingIfNeeded: byte), count)
            return nil
        },
        .init("memcpy", .jspatch, on: .jspatch) { (e: Engine, destination: JSValueRef, source: JSValueRef, count: Int, isMove: Bool) in
            let what = isMove ? "memmove()" : "memcpy()"
            let dest = try e.requirePointer(destination, what), src = try e.requirePointer(source, what)
            try e.jspatch.process.checkWrite(dest, count, what)
            try e.jspatch.process.checkWrite(src, count, what)
            memmove(dest, src, count)
            return e.makePointer(dest)
        },
        .init("getPointer", .jspatch, on: .jspatch) { (e: Engine, value: JSValueRef) in
            let slot = calloc(1, MemoryLayout<UnsafeMutableRawPointer>.size)!
            var retained: UnsafeMutableRawPointer?
            if let p = e.pointerValue(value) {
                slot.storeBytes(of: p, as: UnsafeMutableRawPointer.self)
            } else {
                let pool = PEPoolPush(); defer { PEPoolPop(pool) }
                // Kept alive until the block is freed: the slot may be the only reference.
                retained = PEObjectRetain(try e.jsToObject(value, what: "getPointer()"))
                slot.storeBytes(of: retained, as: UnsafeMutableRawPointer?.self)
            }
            e.jspatch.process.registerAllocation(slot, size: MemoryLayout<UnsafeMutableRawPointer>.size, retaining: retained)
            return e.makePointer(slot)
        },
        .init("pvalBool", .jspatch, on: .jspatch) { (e: Engine, pointer: JSValueRef) in
            JSValueMakeBoolean(e.ctx, try e.requirePointer(pointer, "pvalBool()").load(as: UInt8.self) != 0)
        },
        .init("checkPointer", .jspatch, on: .jspatch) { (e: Engine, pointer: JSValueRef, function: String) in
            _ = try e.requirePointer(pointer, function + "()")
            return nil
        },
        .init("assignScalar", .jspatch, on: .jspatch) { (e: Engine, pointer: JSValueRef, value: JSValueRef, letter: String) in
            let p = try e.requirePointer(pointer, "assignScalarTypePointer()")
            if letter == "c" || letter == "C", JSValueIsString(e.ctx, value) {
                // JSPatch's rule for chars: the string's first byte.
                p.storeBytes(of: JSC.toString(e.ctx, value).utf8.first ?? 0, as: UInt8.self)
                return nil
            }
            guard letter.count == 1, let type = TypeNames.scalarType(letter: letter) else {
                throw BridgeError("assignScalarTypePointer(): \"\(letter)\" is not a scalar type letter (c C s S i I l L q Q f d F N U B)")
            }
            try e.jspatch.process.checkWrite(p, type.size, "assignScalarTypePointer()")
            try e.fromJS(value, type, into: p, what: "assignScalarTypePointer() value")
            return nil
        },
        .init("autoreleasepool", .jspatch, on: .jspatch) { (e: Engine, function: JSValueRef) in
            guard let fn = JSValueToObject(e.ctx, function, nil), JSObjectIsFunction(e.ctx, fn) else {
                throw BridgeError("autoreleasepool() expects a function")
            }
            let pool = PEPoolPush()
            defer { PEPoolPop(pool) }
            return try e.call(fn, [])
        },
        .init("newStruct", .jspatch, on: .jspatch) { (e: Engine, name: String, value: JSValueRef) in
            let type = try e.structs.type(named: name)
            let p = calloc(1, max(type.size, 1))!
            do {
                try e.structs.fromJS(e, value, type, into: p, what: "newStruct('\(name)')")
            } catch { free(p); throw error }
            e.jspatch.process.registerAllocation(p, size: type.size, retaining: nil)
            return e.makePointer(p)
        },
        .init("pvalStruct", .jspatch, on: .jspatch) { (e: Engine, name: String, pointer: JSValueRef) in
            let type = try e.structs.type(named: name)
            return try e.structs.toJS(e, try e.requirePointer(pointer, "pvalStruct('\(name)')"), type)
        },
        .init("ocNumber", .jspatch, .replayable, on: .jspatch) { (e: Engine, className: String, selector: String, args: JSValueRef) in
            guard let cls = PEClassLookup(className) else { throw BridgeError("OCNumber(): no class named \(className)") }
            guard let number = PEClassLookup("NSNumber"),
                  sequence(first: cls, next: { PEClassGetSuperclass($0) }).contains(number) else {
                throw BridgeError("OCNumber(): \(className) is not NSNumber or a subclass of it")
            }
            let signature = try e.methodSignature(cls, selector)
            return try e.invoke(cls, selector, signature, try e.argumentValues(args), kind: .send, boxesResult: true)
        },
        .init("toOCNumber", .jspatch, .replayable, on: .jspatch) { (e: Engine, value: Double) in
            let pool = PEPoolPush(); defer { PEPoolPop(pool) }
            return e.box(PENumberCreateDouble(value))
        },
        .init("toJSNumber", .jspatch, .replayable, on: .jspatch) { (e: Engine, value: JSValueRef) in
            if JSValueIsNumber(e.ctx, value) { return value }
            guard let object = e.unbox(value), PEObjectGetKind(object) == PEObjectKindNumber || PEObjectGetKind(object) == PEObjectKindBoolean else {
                throw BridgeError("toJSNumber() expects an NSNumber, got \(e.jsTypeName(value))")
            }
            return JSValueMakeNumber(e.ctx, PENumberGetDouble(object))
        },
        .init("setAutoConvert", .jspatch, .replayable, on: .jspatch) { (e: Engine, on: Bool) in
            if e.isReplaying { return nil }   // set for every VM when the script was applied
            let previous = e.jspatch.autoConvert
            e.jspatch.autoConvert = on
            e.transactions.record(.custom(description: "autoConvertOCType", undo: { [unowned e] in e.jspatch.autoConvert = previous }),
                                  script: e.currentScript())
            return nil
        },
        .init("registeredExtension", .jspatch, .replayable, on: .jspatch) { (e: Engine, name: String) in
            guard let source = e.jspatch.process.registeredExtensions.withLock({ $0[name] }) else { return JSValueMakeNull(e.ctx) }
            return try e.evaluateRaw("(function (global) {\n" + source + "\n})", sourceURL: "extension \(name)")
        },
        .init("recordJSClass", .jspatch, .replayable, on: .jspatch) { (e: Engine, className: String, previous: JSValueRef) in
            // A replay's JS classes live and go with the secondary VM.
            if e.isReplaying { return nil }
            let ctx = e.ctx
            let name = JSC.makeString(ctx, className)
            JSValueProtect(ctx, name); JSValueProtect(ctx, previous)
            e.transactions.record(.custom(description: "defineJSClass \(className)", undo: { [unowned e] in
                if let remover = e.jspatch.jsClassRemover { _ = try? e.call(remover, [name, previous]) }
                JSValueUnprotect(ctx, name); JSValueUnprotect(ctx, previous)
            }), script: e.currentScript())
            return nil
        },
    ]

    // Toolkit: hooks (routes and other optional modules: `ScriptExtension`).
    private static let toolkit: [NativeBinding] = [
        .init("hook", .toolkit) {
            (e: Engine, target: JSValueRef, selector: String, position: String, function: JSValueRef, once: Bool, classMethod: Bool) in
            try e.addHook(target: target, selector: selector, position: position,
                          function: try e.requireFunction(function, "hook"), once: once, classMethod: classMethod)
        },
        .init("loadJSPatch", .jspatch, .replayable) { (e: Engine) in try e.loadJSPatch() },
    ]
}

/// How `dispatch_*` runs its function (runtime.js passes `N.codes.dispatch.<kind>`).
enum DispatchKind: Int, ScriptCodes, NativeArgument {
    case after = 0, main, mainSync, global
    static let scriptName = "dispatch"

    static func decode(_ args: [JSValueRef], _ i: Int, _ engine: Engine) throws -> DispatchKind {
        let code = Int.decode(args, i, engine)
        guard let kind = DispatchKind(rawValue: code) else { throw BridgeError("dispatch: no dispatch kind \(code)") }
        return kind
    }
}

extension Engine {
    /// `value` as a function, or an error naming `what` wanted one.
    func requireFunction(_ value: JSValueRef, _ what: String) throws -> JSObjectRef {
        guard let fn = JSValueToObject(ctx, value, nil), JSObjectIsFunction(ctx, fn) else {
            throw BridgeError("\(what) expects a function, got \(jsTypeName(value))")
        }
        return fn
    }

    /// The script a definition belongs to: the one whose method is running (from runtime.js's
    /// context), else the one being evaluated on this thread.
    func currentScript() -> String {
        if let getter = runtime?.scriptGetter, let value = try? call(getter, []), JSValueIsString(ctx, value) {
            return JSC.toString(ctx, value)
        }
        return evaluations.current()?.name ?? "<runtime>"
    }

    func describeJS(_ value: JSValueRef) -> String {
        if JSValueIsObject(ctx, value), !JSValueIsArray(ctx, value),
           let object = JSValueToObject(ctx, value, nil), !JSObjectIsFunction(ctx, object) {
            var exception: JSValueRef?
            if let json = JSValueCreateJSONString(ctx, value, 0, &exception) {
                defer { JSStringRelease(json) }
                return JSC.swiftString(json)
            }
        }
        return JSC.toString(ctx, value)
    }

    func defineProtocol(_ name: String, instance: JSValueRef, classMethods: JSValueRef) throws {
        var methods: [String: ProtocolRegistry.Method] = [:]
        for (table, isInstance) in [(instance, true), (classMethods, false)] {
            guard let object = JSValueToObject(ctx, table, nil) else { continue }
            for jsName in JSC.propertyNames(ctx, object) {
                guard let spec = JSValueToObject(ctx, JSC.get(ctx, object, jsName), nil) else {
                    throw BridgeError("defineProtocol \(name): \(jsName) must be {paramsType, returnType}")
                }
                let params = JSValueIsString(ctx, JSC.get(ctx, spec, "paramsType")) ? JSC.toString(ctx, JSC.get(ctx, spec, "paramsType")) : ""
                let returns = JSValueIsString(ctx, JSC.get(ctx, spec, "returnType")) ? JSC.toString(ctx, JSC.get(ctx, spec, "returnType")) : "void"
                let paramList = params.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                let selector = SelectorName.selector(jsName: jsName, argumentCount: paramList.count)
                let encodingValue = JSC.get(ctx, spec, "typeEncode")
                if JSValueIsString(ctx, encodingValue) {
                    // JSPatch's typeEncode: the method's encoding as written; the type names are ignored.
                    let written = JSC.toString(ctx, encodingValue)
                    guard let signature = try? ObjCSignature(types: written) else {
                        throw BridgeError("defineProtocol \(name): \(jsName): typeEncode \"\(written)\" is not a method type encoding")
                    }
                    methods[SelectorName.selector(jsName: jsName, argumentCount: signature.argumentCount - 2)] =
                        .init(types: String(cString: PESignatureGetEncoding(signature.raw)), isInstance: isInstance)
                    continue
                }
                let list = TypeNames.resolveTypeList(([returns] + paramList).joined(separator: ","), structs: structs)
                var error: UnsafePointer<CChar>?
                guard let sig = PESignatureFromTypeList(list, false, &error) else {
                    throw BridgeError("defineProtocol \(name): \(jsName): \(error.map { String(cString: $0) } ?? "bad types") in \"\(list)\"")
                }
                methods[selector] = .init(types: String(cString: PESignatureGetEncoding(sig)), isInstance: isInstance)
            }
        }
        let previous = protocols.define(name, methods: methods)
        transactions.record(.protocolDefined(name: name, previous: previous), script: currentScript())
        // Also a runtime protocol (conformsToProtocol:, protocol_getMethodDescription), unless one
        // with that name exists already: runtime protocols cannot be changed or removed.
        if PEProtocolLookup(name) == nil {
            let entries = methods.sorted { $0.key < $1.key }
            var error: UnsafeMutablePointer<CChar>?
            let created = withCStrings(entries.map(\.key)) { selectors in
                withCStrings(entries.map(\.value.types)) { types in
                    PEProtocolCreate(name, UInt32(entries.count), selectors, types,
                                     entries.map { $0.value.isInstance }, &error)
                }
            }
            if created == nil {
                defer { free(error) }
                throw BridgeError("defineProtocol \(name): \(error.map { String(cString: $0) } ?? "could not create the protocol")")
            }
        }
    }

    func dispatch(kind: DispatchKind, after seconds: Double, _ fn: JSObjectRef) throws {
        try limits.countPendingDispatch()
        JSValueProtect(ctx, fn)
        let script = currentScript()
        let function = UncheckedSendable(fn)   // protected until it has run; JSC locks its own calls
        let run: @Sendable () -> Void = { [unowned self] in
            PEThreadRegister()
            do { _ = try call(function.value, []) } catch {
                report(patchError(error, script: script, context: "dispatched function"))
                revertIfTimedOut(error, script: script)
            }
            JSValueUnprotect(ctx, function.value)
            limits.finishPendingDispatch()
        }
        switch kind {
        case .after: DispatchQueue.main.asyncAfter(deadline: .now() + max(0, seconds), execute: run)
        case .main: DispatchQueue.main.async(execute: run)
        case .mainSync:
            if Thread.isMainThread { run() } else { DispatchQueue.main.sync(execute: run) }
        case .global: DispatchQueue.global().async(execute: run)
        }
    }
}

/// Runs `body` with the strings as a C array of C strings.
func withCStrings<R>(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { UnsafePointer(strdup($0)) }
    defer { copies.forEach { free(UnsafeMutableRawPointer(mutating: $0)) } }
    var array = copies + [nil]
    return array.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
}
