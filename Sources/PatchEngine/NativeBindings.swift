import CJavaScriptCore
import Foundation
import PatchRuntime

/// The native functions runtime.js builds the public JS API on (the `N` object there).
extension Engine {
    func installBindings(into n: JSObjectRef) {
        func arg(_ args: [JSValueRef], _ i: Int) -> JSValueRef {
            i < args.count ? args[i] : JSValueMakeUndefined(ctx)
        }
        func string(_ args: [JSValueRef], _ i: Int) -> String { JSC.toString(ctx, arg(args, i)) }
        func address(_ value: JSValueRef) -> UnsafeMutableRawPointer? {
            guard JSValueIsNumber(ctx, value) else { return nil }
            return UnsafeMutableRawPointer(bitPattern: UInt(JSValueToNumber(ctx, value, nil)))
        }
        func function(_ value: JSValueRef, _ what: String) throws -> JSObjectRef {
            guard let fn = JSValueToObject(ctx, value, nil), JSObjectIsFunction(ctx, fn) else {
                throw BridgeError("\(what) expects a function, got \(jsTypeName(value))")
            }
            return fn
        }
        func keep(_ fn: JSObjectRef) -> JSObjectRef { JSValueProtect(ctx, fn); return fn }

        // Calls into Objective-C.
        addFunction(n, "callI") { [unowned self] _, _, a in
            try callMethod(arg(a, 0), string(a, 1), arg(a, 2))
        }
        JSC.set(ctx, n, "send", JSObjectMakeFunctionWithCallback(ctx, nil, Engine.sendFunction))
        addFunction(n, "sendSelector") { [unowned self] _, _, a in
            JSValueMakeNumber(ctx, Double(try sendSelectorNumber(jsName: string(a, 0), argumentCount: Int(JSValueToNumber(ctx, arg(a, 1), nil)))))
        }
        addFunction(n, "callSuper") { [unowned self] _, _, a in
            guard let cls = address(arg(a, 2)) else { throw BridgeError("super() outside a defined method") }
            return try callSuper(arg(a, 0), string(a, 1), definingClass: cls, arg(a, 3))
        }
        // super() outside a defineClass method: the receiver's own class (its metaclass for a class).
        addFunction(n, "superStart") { [unowned self] _, _, a in
            guard let receiver = unbox(arg(a, 0)) else { throw BridgeError("super() needs an Objective-C receiver") }
            return JSValueMakeNumber(ctx, Double(UInt(bitPattern: PEObjectGetClass(receiver))))
        }
        addFunction(n, "defineGlobal") { [unowned self] _, _, a in
            defineRecordedGlobal(string(a, 0), arg(a, 1))
            return nil
        }
        addFunction(n, "callOriginal") { [unowned self] _, _, a in
            try callOriginal(arg(a, 0), string(a, 1), definingClass: address(arg(a, 2)), arg(a, 3))
        }
        addFunction(n, "getClass") { [unowned self] _, _, a in
            let name = string(a, 0)
            guard let cls = PEClassLookup(name) else { throw BridgeError("no Objective-C class named \(name)") }
            return box(cls)
        }
        addFunction(n, "classChain") { [unowned self] _, _, a in
            guard let object = unbox(arg(a, 0)) else { return JSC.array(ctx, []) }
            let isClass = PEObjectGetKind(object) == PEObjectKindClass
            var names: [JSValueRef?] = []
            var cls: UnsafeMutableRawPointer? = isClass ? object : PEObjectGetClass(object)
            while let c = cls {
                names.append(JSC.makeString(ctx, (isClass ? "+" : "") + String(cString: PEClassGetName(c))))
                cls = PEClassGetSuperclass(c)
            }
            return JSC.array(ctx, names)
        }

        // Definitions.
        addFunction(n, "defineClass") { [unowned self] _, _, a in
            // The script comes with the call (runtime.js's context), else it is the evaluation's.
            let script = JSValueIsString(ctx, arg(a, 4)) ? string(a, 4) : (currentEvaluation()?.name ?? "<runtime>")
            if isReplaying {
                return try replayDefineClass(string(a, 0), instanceMethods: arg(a, 2), classMethods: arg(a, 3), script: script)
            }
            return try defineClass(string(a, 0), properties: arg(a, 1), instanceMethods: arg(a, 2),
                                   classMethods: arg(a, 3), script: script)
        }
        // A replay defines nothing outside its VM: the registries are every VM's, and the
        // evaluation replayed defined these already.
        addFunction(n, "defineProtocol") { [unowned self] _, _, a in
            if isReplaying { return nil }
            try defineProtocol(string(a, 0), instance: arg(a, 1), classMethods: arg(a, 2))
            return nil
        }
        addFunction(n, "defineStruct") { [unowned self] _, _, a in
            if isReplaying { return nil }
            guard JSValueIsString(ctx, arg(a, 0)), JSValueIsString(ctx, arg(a, 1)), JSValueIsArray(ctx, arg(a, 2)) else {
                throw BridgeError("defineStruct expects {name: string, types: string, keys: [string]}")
            }
            let keysObject = JSValueToObject(ctx, arg(a, 2), nil)!
            let keys = (0..<JSC.arrayLength(ctx, keysObject)).map {
                JSC.toString(ctx, JSObjectGetPropertyAtIndex(ctx, keysObject, UInt32($0), nil))
            }
            let name = string(a, 0)
            let previous = try structs.define(name: name, types: string(a, 1), keys: keys)
            transactions.record(.structDefined(name: name, previous: previous), script: currentScript())
            return nil
        }
        addFunction(n, "setJSOnlyTable") { [unowned self] _, _, a in
            guard let table = JSValueToObject(ctx, arg(a, 0), nil) else { throw BridgeError("setJSOnlyTable expects an object") }
            jsOnlyTable = keep(table)
            return nil
        }
        addFunction(n, "setJSOnlyRemover") { [unowned self] _, _, a in jsOnlyRemover = keep(try function(arg(a, 0), "remover")); return nil }
        addFunction(n, "setCallFrame") { [unowned self] ctx, _, a in
            callFrame = JSValueToObject(ctx, arg(a, 0), nil).map(keep); return nil
        }
        addFunction(n, "setScriptGetter") { [unowned self] _, _, a in scriptGetter = keep(try function(arg(a, 0), "script getter")); return nil }

        // Values.
        addFunction(n, "toJS") { [unowned self] _, _, a in deepToJS(arg(a, 0)) }
        addFunction(n, "makeBlock") { [unowned self] _, _, a in
            try makeBlock(types: string(a, 0), function: try function(arg(a, 1), "block()"))
        }
        addFunction(n, "weak") { [unowned self] _, _, a in
            guard let object = unbox(arg(a, 0)) else { return arg(a, 0) }
            return try makeWeak(object)
        }
        addFunction(n, "strong") { [unowned self] _, _, a in
            guard let object = unbox(arg(a, 0)) else { return arg(a, 0) }
            return box(object, retain: true)
        }
        addFunction(n, "getProperty") { [unowned self] _, _, a in
            guard let object = unbox(arg(a, 0)) else { throw BridgeError("property access on a non-object") }
            let pool = PEPoolPush(); defer { PEPoolPop(pool) }
            return objectToJS(PEPropertyGet(object, string(a, 1)))
        }
        addFunction(n, "setProperty") { [unowned self] _, _, a in
            guard let object = unbox(arg(a, 0)) else { throw BridgeError("property access on a non-object") }
            let pool = PEPoolPush(); defer { PEPoolPop(pool) }
            let name = string(a, 1)
            PEPropertySet(object, name, try jsToObject(arg(a, 2), what: "property \(name)"))
            return nil
        }
        JSC.set(ctx, n, "nsnull", box(PENull()))

        // Pointers and memory (JSPatch's memory extension), for out-parameters such as NSError **.
        addFunction(n, "malloc") { [unowned self] _, _, a in
            let size = Int(JSValueToNumber(ctx, arg(a, 0), nil))
            guard size > 0 else { throw BridgeError("malloc(size) needs a positive size") }
            guard let block = calloc(1, size) else { throw BridgeError("malloc(\(size)): out of memory") }
            registerAllocation(block, size: size, retaining: nil)
            return makePointer(block)
        }
        addFunction(n, "free") { [unowned self] _, _, a in
            guard let p = pointerValue(arg(a, 0)) else { throw BridgeError("free() expects a pointer from malloc()") }
            forgetAllocation(p)
            free(p); return nil
        }
        addFunction(n, "pval") { [unowned self] _, _, a in
            guard let p = pointerValue(arg(a, 0)) else { throw BridgeError("pval() expects a pointer") }
            return objectToJS(p.load(as: UnsafeMutableRawPointer?.self))
        }
        addFunction(n, "assignPointer") { [unowned self] _, _, a in
            // `*error = obj` from JS, for a patched method's NSError ** (JSPatch's memory extension).
            guard let p = pointerValue(arg(a, 0)) else { throw BridgeError("assignPointer() expects a pointer") }
            let object = try jsToObject(arg(a, 1), what: "assignPointer value")
            PEDeferAutorelease(object)
            p.storeBytes(of: object, as: UnsafeMutableRawPointer?.self)
            return nil
        }
        addFunction(n, "sizeof") { [unowned self] _, _, a in
            let name = string(a, 0)
            var error: UnsafePointer<CChar>?
            if let sig = PESignatureFromTypeList(name, false, &error) {
                return JSValueMakeNumber(ctx, Double(ObjCSignature(raw: sig).returnType.size))
            }
            if let type = try? structs.type(named: name) {
                return JSValueMakeNumber(ctx, Double(type.size))
            }
            throw BridgeError("sizeof(\"\(name)\"): unknown type (declare structs with defineStruct)")
        }

        // Helpers.
        addFunction(n, "describe") { [unowned self] _, _, a in
            let value = arg(a, 0)
            if let object = unbox(value) {
                let text = PEObjectDescription(object)!
                defer { free(text) }
                return JSC.makeString(ctx, String(cString: text))
            }
            return JSC.makeString(ctx, describeJS(value))
        }
        addFunction(n, "log") { [unowned self] _, _, a in
            if !isReplaying { log(string(a, 0)) }   // logged once, when the script was applied
            return nil
        }
        addFunction(n, "dispatch") { [unowned self] _, _, a in
            let kind = Int(JSValueToNumber(ctx, arg(a, 0), nil))
            let seconds = JSValueToNumber(ctx, arg(a, 1), nil)
            try dispatch(kind: kind, after: seconds, function(arg(a, 2), "dispatch"))
            return nil
        }
        addFunction(n, "include") { [unowned self] _, _, a in try include(string(a, 0)) }
        addFunction(n, "resourcePath") { [unowned self] _, _, a in
            JSC.makeString(ctx, try resolvePath(string(a, 0)))
        }

        addFunction(n, "defineCFunction") { [unowned self] _, _, a in
            try defineCFunction(string(a, 0), types: string(a, 1))
        }
        addFunction(n, "externConstant") { [unowned self] _, _, a in
            try externConstant(string(a, 0), type: string(a, 1))
        }

        // Toolkit: hooks (routes and other optional modules: `ScriptExtension`).
        addFunction(n, "hook") { [unowned self] _, _, a in
            try addHook(target: arg(a, 0), selector: string(a, 1), position: string(a, 2),
                        function: try function(arg(a, 3), "hook"), once: JSValueToBoolean(ctx, arg(a, 4)),
                        classMethod: JSValueToBoolean(ctx, arg(a, 5)))
        }
    }

    /// The script a definition belongs to: the one whose method is running (from runtime.js's
    /// context), else the one being evaluated on this thread.
    func currentScript() -> String {
        if let getter = scriptGetter, let value = try? call(getter, []), JSValueIsString(ctx, value) {
            return JSC.toString(ctx, value)
        }
        return currentEvaluation()?.name ?? "<runtime>"
    }

    private func describeJS(_ value: JSValueRef) -> String {
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

    private func defineProtocol(_ name: String, instance: JSValueRef, classMethods: JSValueRef) throws {
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

    private func dispatch(kind: Int, after seconds: Double, _ fn: JSObjectRef) throws {
        try countPendingDispatch()
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
            finishPendingDispatch()
        }
        switch kind {
        case 0: DispatchQueue.main.asyncAfter(deadline: .now() + max(0, seconds), execute: run)
        case 1: DispatchQueue.main.async(execute: run)
        case 2:
            if Thread.isMainThread { run() } else { DispatchQueue.main.sync(execute: run) }
        default: DispatchQueue.global().async(execute: run)
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
