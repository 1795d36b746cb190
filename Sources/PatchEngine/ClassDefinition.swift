import CJavaScriptCore
import Foundation
import PatchRuntime

/// `defineClass('Name : Super <P1, P2>', [properties], {instance methods}, {class methods})`.
extension Engine {
    struct ClassDeclaration: Equatable {
        var name: String
        var superclass: String?
        var protocols: [String]

        /// Parses JSPatch's declaration syntax; whitespace is free.
        init(parsing text: String) throws {
            var rest = Substring(text)
            var protocols: [String] = []
            if let open = rest.firstIndex(of: "<") {
                guard let close = rest.lastIndex(of: ">"), close > open else {
                    throw BridgeError("defineClass('\(text)'): unterminated protocol list")
                }
                protocols = rest[rest.index(after: open)..<close].split(separator: ",")
                    .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                rest = rest[..<open]
            }
            let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard let name = parts.first, !name.isEmpty, parts.count <= 2,
                  name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "$" }) else {
                throw BridgeError("defineClass('\(text)'): expected 'ClassName', 'ClassName : Superclass' or 'ClassName : Superclass <Protocol, ...>'")
            }
            self.name = name
            self.superclass = parts.count == 2 ? parts[1] : nil
            if let s = superclass, s.isEmpty { throw BridgeError("defineClass('\(text)'): empty superclass name") }
            self.protocols = protocols
        }
    }

    func defineClass(_ declarationText: String, properties: JSValueRef, instanceMethods: JSValueRef,
                     classMethods: JSValueRef, script: String) throws -> JSValueRef {
        let declaration = try ClassDeclaration(parsing: declarationText)
        try limits.checkMethodCount(methodCount(instanceMethods) + methodCount(classMethods), declaration: declarationText)
        var cls = PEClassLookup(declaration.name)
        if cls == nil {
            let superName = declaration.superclass ?? "NSObject"
            guard let superclass = PEClassLookup(superName) else {
                throw BridgeError("defineClass('\(declarationText)'): no Objective-C class named \(superName) to inherit from")
            }
            try limits.countClassCreation(script: script, name: declaration.name)
            var error: UnsafeMutablePointer<CChar>?
            guard let created = PEClassCreate(declaration.name, superclass, &error) else {
                defer { free(error) }
                throw BridgeError("defineClass('\(declarationText)'): \(error.map { String(cString: $0) } ?? "could not create the class")")
            }
            cls = created
            transactions.record(.classCreated(name: declaration.name), script: script)
        }
        let theClass = cls!
        let metaclass = PEClassGetMetaClass(theClass)!

        // Protocols: runtime ones are attached; JS-defined ones only lend their method types.
        var runtimeProtocols: [UnsafeMutableRawPointer] = []
        for name in declaration.protocols {
            if let proto = PEProtocolLookup(name) {
                runtimeProtocols.append(proto)
                if PEClassAddProtocol(theClass, proto) {
                    transactions.record(.protocolAttached(className: declaration.name, protocol: name), script: script)
                }
            } else if !protocols.contains(name) {
                throw BridgeError("defineClass('\(declarationText)'): no protocol named \(name) (declare it with defineProtocol)")
            }
        }

        let propertyNames = try stringArray(properties, what: "defineClass properties")
        if !propertyNames.isEmpty { try enableObjectStateCleanup(theClass, for: declarationText) }

        let context = DefinitionContext(declaration: declaration, runtimeProtocols: runtimeProtocols, script: script)
        try defineMethods(instanceMethods, on: theClass, isClassMethod: false, context: context)
        try defineMethods(classMethods, on: metaclass, isClassMethod: true, context: context)

        return definitionResult(declaration.name, theClass)
    }

    /// What defineClass gives runtime.js: {cls, superCls, classObject}.
    func definitionResult(_ name: String, _ cls: UnsafeMutableRawPointer) -> JSValueRef {
        let result = JSObjectMake(ctx, nil, nil)!
        JSC.set(ctx, result, "cls", JSC.makeString(ctx, name))
        let superName = PEClassGetSuperclass(cls).map { String(cString: PEClassGetName($0)) } ?? ""
        JSC.set(ctx, result, "superCls", JSC.makeString(ctx, superName))
        JSC.set(ctx, result, "classObject", box(cls))
        return result
    }

    /// The number of methods in a table of methods (0 for anything but an object).
    private func methodCount(_ methods: JSValueRef) -> Int {
        guard JSValueIsObject(ctx, methods), let object = JSValueToObject(ctx, methods, nil) else { return 0 }
        let names = JSObjectCopyPropertyNames(ctx, object)!
        defer { JSPropertyNameArrayRelease(names) }
        return JSPropertyNameArrayGetCount(names)
    }

    private struct DefinitionContext {
        let declaration: ClassDeclaration
        let runtimeProtocols: [UnsafeMutableRawPointer]
        let script: String
    }

    private func stringArray(_ value: JSValueRef, what: String) throws -> [String] {
        if JSValueIsUndefined(ctx, value) || JSValueIsNull(ctx, value) { return [] }
        guard JSValueIsArray(ctx, value), let object = JSValueToObject(ctx, value, nil) else {
            throw BridgeError("\(what) must be an array of names")
        }
        return (0..<(try JSC.arrayLength(ctx, object, atMost: 4_096, what))).map {
            JSC.toString(ctx, JSObjectGetPropertyAtIndex(ctx, object, UInt32($0), nil))
        }
    }

    private func defineMethods(_ methods: JSValueRef, on cls: UnsafeMutableRawPointer, isClassMethod: Bool,
                               context: DefinitionContext) throws {
        var entries: [(name: String, function: JSObjectRef)] = []
        if !(JSValueIsUndefined(ctx, methods) || JSValueIsNull(ctx, methods)) {
            guard let object = JSValueToObject(ctx, methods, nil), !isBox(methods) else {
                throw BridgeError("defineClass('\(context.declaration.name)'): methods must be given as an object of functions")
            }
            for name in JSC.propertyNames(ctx, object) {
                let value = JSC.get(ctx, object, name)
                guard let fn = JSValueToObject(ctx, value, nil), JSObjectIsFunction(ctx, fn) else {
                    throw BridgeError("defineClass('\(context.declaration.name)'): \(name) is not a function")
                }
                entries.append((name, fn))
            }
        }
        let className = context.declaration.name
        var cleanupEnabled = false
        for (jsName, function) in entries {
            // runtime.js's wrapper carries the arity of the function it wraps.
            let arity = Int(JSValueToNumber(ctx, JSC.get(ctx, function, "arity"), nil))
            let selector = SelectorName.selector(jsName: jsName, argumentCount: arity)
            // A slot the class already has knows the method's types: asking the runtime scans the
            // class's method list, which made re-applying a patch of n methods of a class O(n²).
            var types = PESlotFind(cls, selector).map { String(cString: PESignatureGetEncoding(PESlotGetSignature($0))) }
                ?? PEClassInstanceMethodTypes(cls, selector).map { String(cString: $0) }
            if types == nil {
                types = protocolTypes(selector, context: context, instance: !isClassMethod)
            }
            if types == nil && jsName.hasPrefix("_") {
                defineJSOnly(className: (isClassMethod ? "+" : "") + className, name: jsName, method: function,
                             definingClass: cls, script: context.script)
                continue
            }
            let methodTypes = types ?? ("@@:" + String(repeating: "@", count: SelectorName.argumentCount(selector)))
            // Not for a root class: every -dealloc in the process would go through the dispatcher.
            if !isClassMethod && !cleanupEnabled && PEClassGetSuperclass(cls) != nil {
                // A patched method its -dealloc calls gets a box of an object going away
                // (deallocScopedBox): the dispatcher must know which objects are.
                try enableObjectStateCleanup(cls, for: context.declaration.name)
                cleanupEnabled = true
            }
            try installPatch(cls: cls, selector: selector, types: methodTypes, method: function,
                             className: className, script: context.script)
        }
    }

    /// Switches the dispatcher's per-object state at -dealloc on for `cls` (JS properties, boxes
    /// of an object whose -dealloc runs); `declaration` names the defineClass in the error.
    private func enableObjectStateCleanup(_ cls: UnsafeMutableRawPointer, for declaration: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        if !PEClassEnablePropertyCleanup(cls, &error) {
            defer { free(error) }
            throw BridgeError("defineClass('\(declaration)'): \(error.map { String(cString: $0) } ?? "")")
        }
    }

    private func protocolTypes(_ selector: String, context: DefinitionContext, instance: Bool) -> String? {
        for proto in context.runtimeProtocols {
            if let t = PEProtocolMethodTypes(proto, selector, instance) { return String(cString: t) }
        }
        for name in context.declaration.protocols {
            if let t = protocols.types(protocol: name, selector: selector, instance: instance) { return t }
        }
        // GCC's runtime records no @optional protocol methods (docs/platform-notes.md): for a class
        // adopting a runtime protocol, the types compiled code calls the selector with, when that
        // runtime knows one typing. An id-typed method would crash a native caller passing a scalar.
        if !context.runtimeProtocols.isEmpty, let t = PECompiledSelectorTypes(selector) {
            return String(cString: t)
        }
        return nil
    }

    /// Gives runtime.js's wrapper `method` its per-call context (plain properties: no call into JS).
    func bindMethod(_ method: JSObjectRef, definingClass: UnsafeMutableRawPointer, selector: String, script: String) {
        JSC.set(ctx, method, "definingClass", JSValueMakeNumber(ctx, Double(UInt(bitPattern: definingClass))))
        JSC.set(ctx, method, "selectorName", JSC.makeString(ctx, selector))
        JSC.set(ctx, method, "script", JSC.makeString(ctx, script))
    }

    /// Points the slot of (cls, selector) at runtime.js's wrapper `method`.
    func installPatch(cls: UnsafeMutableRawPointer, selector: String, types: String, method function: JSObjectRef,
                      className: String, script: String) throws {
        bindMethod(function, definingClass: cls, selector: selector, script: script)
        JSValueProtect(ctx, function)
        var error: UnsafeMutablePointer<CChar>?
        guard let slot = PESlotInstall(cls, selector, types, &error) else {
            JSValueUnprotect(ctx, function)
            defer { free(error) }
            throw BridgeError(error.map { String(cString: $0) } ?? "could not patch \(className) \(selector)")
        }
        let method = JSMethod(function: function, selector: selector, script: script, className: className,
                              signature: ObjCSignature(raw: PESlotGetSignature(slot)), ctx: ctx)
        transactions.pushPatch(slot: slot, token: method.makeToken(), script: script)
    }

    /// Writes the wrapper into runtime.js's table of JS-only methods, keeping (protected) the one
    /// it replaces for the revert.
    private func defineJSOnly(className: String, name: String, method: JSObjectRef,
                              definingClass: UnsafeMutableRawPointer, script: String) {
        let previousFunction = writeJSOnly(className: className, name: name, method: method, definingClass: definingClass, script: script)
        transactions.record(.jsOnlyMethod(className: className, name: name, previous: previousFunction), script: script)
    }

    /// Takes a JS-only method out of this VM's table, putting back (and unprotecting) the
    /// function it replaced, if any: what `writeJSOnly` did, undone.
    func removeJSOnly(className: String, name: String, restoring previous: JSObjectRef?) {
        _ = try? call(runtime.jsOnlyRemover, [JSC.makeString(ctx, className), JSC.makeString(ctx, name), previous ?? JSValueMakeNull(ctx)])
        if let previous { JSValueUnprotect(ctx, previous) }
    }

    /// Writes the wrapper into this VM's table; returns the function it replaced, protected.
    func writeJSOnly(className: String, name: String, method: JSObjectRef,
                     definingClass: UnsafeMutableRawPointer, script: String) -> JSObjectRef? {
        bindMethod(method, definingClass: definingClass, selector: name, script: script)
        var classTable = JSValueToObject(ctx, JSC.get(ctx, runtime.jsOnlyTable, className), nil)
        if classTable == nil || JSValueIsUndefined(ctx, JSC.get(ctx, runtime.jsOnlyTable, className)) {
            classTable = JSObjectMake(ctx, nil, nil)
            JSC.set(ctx, runtime.jsOnlyTable, className, classTable!)
        }
        let table = classTable!
        let previousFunction = JSC.propertyNames(ctx, table).contains(name)
            ? JSValueToObject(ctx, JSC.get(ctx, table, name), nil) : nil
        if let previousFunction { JSValueProtect(ctx, previousFunction) }
        JSC.set(ctx, table, name, method)
        return previousFunction
    }
}
