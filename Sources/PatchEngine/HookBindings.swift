import CJavaScriptCore
import Foundation
import PatchRuntime

/// Hooks from patch scripts: `hook(target, 'selector:', 'before' | 'instead' | 'after', fn, {once})`
/// on every instance of a class (target = class) or one object, `hookClass(Cls, ...)` for class
/// methods. `fn(info, args...)`; `info.invokeOriginal()` runs what the hook wraps and returns its
/// value; an instead hook's return value is the method's. Hooks belong to the script's transaction.
extension Engine {
    func addHook(target: JSValueRef, selector: String, position: String, function: JSObjectRef,
                 once: Bool, classMethod: Bool) throws -> JSValueRef {
        guard let object = unbox(target) else {
            throw BridgeError("hook: the target must be a class or an Objective-C object, got \(jsTypeName(target))")
        }
        let positionValue: Int32
        switch position.lowercased() {
        case "before": positionValue = Int32(PEHookPositionBefore.rawValue)
        case "instead": positionValue = Int32(PEHookPositionInstead.rawValue)
        case "after": positionValue = Int32(PEHookPositionAfter.rawValue)
        default: throw BridgeError("hook: position must be 'before', 'instead' or 'after', got '\(position)'")
        }
        // Before looking the method up: some of these exist only on some classes.
        if let reason = PEReservedSelectorReason(selector) {
            throw BridgeError("hook refused (Aspects error \(PEHookErrorSelectorBlacklisted.rawValue)): Selector \(selector) is blacklisted: it \(String(cString: reason)).")
        }
        let isClass = PEObjectGetKind(object) == PEObjectKindClass
        if classMethod && !isClass { throw BridgeError("hookClass: the target must be a class") }
        let cls: UnsafeMutableRawPointer? = classMethod ? PEClassGetMetaClass(object) : (isClass ? object : nil)
        let instance: UnsafeMutableRawPointer? = (classMethod || isClass) ? nil : object
        let lookupClass = cls ?? PEObjectGetClass(object)!
        guard let encoding = PEHookBlockEncoding(lookupClass, selector, positionValue == Int32(PEHookPositionInstead.rawValue)) else {
            throw BridgeError("hook: \(describeClass(lookupClass)) does not respond to \(selector)")
        }
        let signature = try ObjCSignature(types: String(cString: encoding))
        let script = currentScript()
        let block = try engineBlock(signature, function: function, script: script, what: "hook")
        defer { PEBlockRelease(block) }          // the hook keeps its own copy
        var code: Int32 = 0
        var error: UnsafeMutablePointer<CChar>?
        let options = positionValue | (once ? Int32(PEHookOptionAutomaticRemoval) : 0)
        let identifier = PEHookAdd(cls, instance, selector, options, block, &code, &error)
        guard identifier != 0 else {
            defer { free(error) }
            throw BridgeError("hook refused (Aspects error \(code)): \(error.map { String(cString: $0) } ?? "")")
        }
        transactions.record(.custom(description: "hook \(selector)", undo: { _ = PEHookRemove(identifier) }), script: script)
        let tokenObject = JSObjectMake(ctx, nil, nil)!
        addFunction(tokenObject, "remove") { [unowned self] _, _, _ in
            JSValueMakeBoolean(ctx, PEHookRemove(identifier))
        }
        return tokenObject
    }
}
