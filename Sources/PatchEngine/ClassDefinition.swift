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
        var cls = PEClassLookup(declaration.name)
        if cls == nil {
            let superName = declaration.superclass ?? "NSObject"
            guard let superclass = PEClassLookup(superName) else {
                throw BridgeError("defineClass('\(declarationText)'): no Objective-C class named \(superName) to inherit from")
            }
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
        if !propertyNames.isEmpty {
            var error: UnsafeMutablePointer<CChar>?
            if !PEClassEnablePropertyCleanup(theClass, &error) {
                defer { free(error) }
                throw BridgeError("defineClass('\(declarationText)'): \(error.map { String(cString: $0) } ?? "")")
            }
        }

        let context = DefinitionContext(declaration: declaration, runtimeProtocols: runtimeProtocols, script: script)
        try defineMethods(instanceMethods, on: theClass, isClassMethod: false, context: context)
        try defineMethods(classMethods, on: metaclass, isClassMethod: true, context: context)

        let result = JSObjectMake(ctx, nil, nil)!
        JSC.set(ctx, result, "cls", JSC.makeString(ctx, declaration.name))
        let superName = PEClassGetSuperclass(theClass).map { String(cString: PEClassGetName($0)) } ?? ""
        JSC.set(ctx, result, "superCls", JSC.makeString(ctx, superName))
        return result
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
        return (0..<JSC.arrayLength(ctx, object)).map {
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
        for (jsName, function) in entries {
            let arity = Int(JSValueToNumber(ctx, JSC.get(ctx, function, "length"), nil))
            let selector = SelectorName.selector(jsName: jsName, argumentCount: arity)
            var types = PEClassInstanceMethodTypes(cls, selector).map { String(cString: $0) }
            if types == nil {
                types = protocolTypes(selector, context: context, instance: !isClassMethod)
            }
            if types == nil && jsName.hasPrefix("_") {
                try defineJSOnly(className: (isClassMethod ? "+" : "") + className, name: jsName, function: function,
                                 definingClass: cls, script: context.script)
                continue
            }
            let methodTypes = types ?? ("@@:" + String(repeating: "@", count: SelectorName.argumentCount(selector)))
            try installPatch(cls: cls, selector: selector, types: methodTypes, function: function,
                             className: className, script: context.script)
        }
    }

    private func protocolTypes(_ selector: String, context: DefinitionContext, instance: Bool) -> String? {
        for proto in context.runtimeProtocols {
            if let t = PEProtocolMethodTypes(proto, selector, instance) { return String(cString: t) }
        }
        for name in context.declaration.protocols {
            if let t = protocols.types(protocol: name, selector: selector, instance: instance) { return t }
        }
        return nil
    }

    /// Wraps `function` for per-call context and points the slot of (cls, selector) at it.
    func installPatch(cls: UnsafeMutableRawPointer, selector: String, types: String, function: JSObjectRef,
                      className: String, script: String) throws {
        let wrapped = try call(methodMaker, [function, JSValueMakeNumber(ctx, Double(UInt(bitPattern: cls))),
                                             JSC.makeString(ctx, selector), JSC.makeString(ctx, script)])
        let wrappedFunction = JSValueToObject(ctx, wrapped, nil)!
        JSValueProtect(ctx, wrappedFunction)
        var error: UnsafeMutablePointer<CChar>?
        guard let slot = PESlotInstall(cls, selector, types, &error) else {
            JSValueUnprotect(ctx, wrappedFunction)
            defer { free(error) }
            throw BridgeError(error.map { String(cString: $0) } ?? "could not patch \(className) \(selector)")
        }
        let method = JSMethod(function: wrappedFunction, selector: selector, script: script, className: className, ctx: ctx)
        transactions.pushPatch(slot: slot, token: method.makeToken(), script: script)
    }

    private func defineJSOnly(className: String, name: String, function: JSObjectRef,
                              definingClass: UnsafeMutableRawPointer, script: String) throws {
        let previous = try call(jsOnlyLookup, [JSC.makeString(ctx, className), JSC.makeString(ctx, name)])
        let previousFunction = JSValueIsNull(ctx, previous) ? nil : JSValueToObject(ctx, previous, nil)
        if let previousFunction { JSValueProtect(ctx, previousFunction) }
        _ = try call(jsOnlyRegistrar, [JSC.makeString(ctx, className), JSC.makeString(ctx, name), function,
                                       JSValueMakeNumber(ctx, Double(UInt(bitPattern: definingClass))),
                                       JSC.makeString(ctx, script)])
        transactions.record(.jsOnlyMethod(className: className, name: name, previous: previousFunction), script: script)
    }
}
