import CJavaScriptCore
import Foundation
import PatchRuntime

/// `defineCFunction(name, "returnType, argType, ...")` (JSPatch's C-function extension): makes
/// the exported C function `name` callable from JS as a global. Only functions the app allows
/// (`PatchEngine.allowedCFunctions`) can be defined: unrestricted dlsym reach from downloaded code
/// is what got JSPatch apps rejected in review.
extension Engine {
    func defineCFunction(_ name: String, types: String) throws -> JSValueRef {
        guard PatchEngine.allowedCFunctions.contains(name) else {
            throw BridgeError("defineCFunction: \(name) is not in PatchEngine.allowedCFunctions")
        }
        // Defining the same function with the same types again (scripts do it in loops: JSPatch's
        // test.js 100,000 times) gives the same JS function, found by the types as written while
        // no struct definition changed. Resolving them is most of a definition's time (test.js's
        // evaluation: 1.15 s of CPU in a debug build, ≈ 35 % of it resolving). A class appearing
        // later can't change a list that resolved: an unknown name fails to parse below, and
        // failures are not kept.
        let generation = structs.generation, writtenKey = name + "\u{0}" + types
        if let known = jspatch.cFunctionsAsWritten.withLock({ $0.generation == generation ? $0.functions[writtenKey] : nil }) {
            return known
        }
        func remember(_ function: JSValueRef) {
            jspatch.cFunctionsAsWritten.withLock {
                if $0.generation != generation { $0 = (generation, [:]) }
                $0.functions[writtenKey] = function
            }
        }
        // Struct types by name or as JSPatch's {Name}; class names without *.
        let resolved = TypeNames.resolveTypeList(types, structs: structs)
        let key = name + "\u{0}" + resolved
        if let known = jspatch.cFunctions.withLock({ $0[key] }) { remember(known); return known }
        var parseError: UnsafePointer<CChar>?
        guard let sig = PEFunctionSignatureFromTypeList(resolved, &parseError) else {
            throw BridgeError("defineCFunction \(name): \(parseError.map { String(cString: $0) } ?? "bad types") in \"\(types)\"")
        }
        guard let address = PESymbolLookup(name) else {
            throw BridgeError("defineCFunction: no C function named \(name) in the process")
        }
        let signature = ObjCSignature(raw: sig)
        let function = JSObjectMake(ctx, nil, nil)!
        addFunction(function, "call") { [unowned self] _, _, args in
            let count = signature.argumentCount
            guard args.count <= count else { throw BridgeError("\(name) takes \(count) arguments, got \(args.count)") }
            let pool = PEPoolPush()
            defer { PEPoolPop(pool) }
            return try withCallFrame(signature) { frame in
                let undefined = JSValueMakeUndefined(ctx)!
                for i in 0..<count {
                    try fromJS(i < args.count ? args[i] : undefined, signature.argument(i), into: frame.argument(i),
                               what: "argument \(i + 1) of \(name)()")
                }
                var error: UnsafeMutablePointer<CChar>?
                guard PEInvokeFunction(address, frame, &error) else {
                    defer { free(error) }
                    throw BridgeError("\(name)() raised \(error.map { String(cString: $0) } ?? "an exception")")
                }
                guard signature.returnType.kind != .void, let ret = frame.pointee.returnValue else { return JSValueMakeUndefined(ctx) }
                return try toJS(ret, signature.returnType)
            }
        }
        let callable = JSC.get(ctx, function, "call")
        JSValueProtect(ctx, callable)
        jspatch.cFunctions.withLock { $0[key] = callable }
        remember(callable)
        return callable
    }
}
