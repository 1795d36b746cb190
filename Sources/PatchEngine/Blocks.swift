import CJavaScriptCore
import Foundation
import PatchRuntime

/// The JS function behind a block made with `block("ret, args", fn)`. The block holds one
/// reference (released by the block's dispose helper), so the function lives exactly as long as
/// any Objective-C code keeps the block.
final class JSBlock {
    let function: JSObjectRef
    let signature: ObjCSignature
    let script: String?
    /// What made it ("hook", "block(...)"), for error messages.
    let what: String
    private let ctx: JSContextRef
    /// The VM the function belongs to: the block runs there, whichever thread calls it.
    unowned let engine: Engine

    init(engine: Engine, function: JSObjectRef, signature: ObjCSignature, script: String?, what: String) {
        self.engine = engine
        self.ctx = engine.ctx
        self.what = what
        self.function = function
        self.signature = signature
        self.script = script
        JSValueProtect(ctx, function)
    }

    deinit { JSValueUnprotect(ctx, function) }
}

extension Engine {
    /// `block(types, fn)`: an Objective-C block whose body is `fn`.
    func makeBlock(types: String, function: JSObjectRef) throws -> JSValueRef {
        var error: UnsafePointer<CChar>?
        guard let sig = PESignatureFromTypeList(TypeNames.resolveTypeList(types, structs: structs), true, &error) else {
            throw BridgeError("block(\"\(types)\"): \(error.map { String(cString: $0) } ?? "invalid type list")")
        }
        // Its script is known so that errors name it and a runaway block can revert it.
        let block = try engineBlock(ObjCSignature(raw: sig), function: function, script: currentScript(), what: "block(\"\(types)\")")
        // Callable from JS too; the wrapper owns the creation reference.
        return JSObjectMake(ctx, classes.blockFunction, block)
    }

    /// A heap block (+1) of `signature` whose body is `function`; the JS function lives as long as the block.
    func engineBlock(_ signature: ObjCSignature, function: JSObjectRef, script: String?, what: String) throws -> UnsafeMutableRawPointer {
        let record = JSBlock(engine: self, function: function, signature: signature, script: script, what: what)
        let token = UInt(bitPattern: Unmanaged.passRetained(record).toOpaque())
        var error: UnsafeMutablePointer<CChar>?
        guard let block = PEBlockCreate(signature.raw, token, &error) else {
            Unmanaged<JSBlock>.fromOpaque(UnsafeRawPointer(bitPattern: token)!).release()
            defer { free(error) }
            throw BridgeError("\(what): \(error.map { String(cString: $0) } ?? "cannot make the block")")
        }
        return block
    }

    /// Objective-C calling a block made from JS.
    func runBlock(_ token: UInt, _ frame: UnsafeMutablePointer<PEFrame>) {
        let record = Unmanaged<JSBlock>.fromOpaque(UnsafeRawPointer(bitPattern: token)!).takeUnretainedValue()
        let signature = record.signature
        let pool = PEPoolPush()
        var returned: UnsafeMutableRawPointer?
        do {
            var args: [JSValueRef?] = []
            for i in 1..<signature.argumentCount {
                args.append(try toJS(frame.argument(i), signature.argument(i)))
            }
            let result = try call(record.function, args)
            let rt = signature.returnType
            if rt.kind != .void, let ret = frame.pointee.returnValue {
                // A number needs no entry (a comparator's result, per comparison); anything else
                // may run script code when read.
                if !storeReturnedNumber(result, rt, into: ret) {
                    try runningScriptCode { try fromJS(result, rt, into: ret, what: "return value of a block") }
                }
                if rt.kind == .object || rt.kind == .block {
                    returned = ret.load(as: UnsafeMutableRawPointer?.self)
                    _ = PEObjectRetain(returned)
                }
            }
        } catch {
            if let ret = frame.pointee.returnValue { memset(ret, 0, max(signature.returnType.size, 8)) }
            report(patchError(error, script: record.script ?? "block", context: record.what == "hook" ? "hook" : "block"))
            revertIfTimedOut(error, script: record.script)
        }
        PEPoolPop(pool)
        drainReleases()
        if let returned { _ = PEObjectAutorelease(returned) }
    }

    /// A block arriving in JS becomes a callable object that still is the same block when it is
    /// passed back to Objective-C (blocks made from JS included).
    func blockToJS(_ block: UnsafeMutableRawPointer) -> JSValueRef {
        JSObjectMake(ctx, classes.blockFunction, PEBlockCopy(block))
    }

    /// JS calling an Objective-C block.
    func callNativeBlock(_ ctx: JSContextRef, _ function: JSObjectRef, _ argc: Int,
                         _ argv: UnsafePointer<JSValueRef?>?, _ exception: UnsafeMutablePointer<JSValueRef?>?) -> JSValueRef? {
        let block = JSObjectGetPrivate(function)!
        do {
            guard let sig = PEBlockGetSignature(block) else {
                throw BridgeError("this block has no type signature, so it cannot be called from JavaScript")
            }
            let signature = ObjCSignature(raw: sig)
            let expected = signature.argumentCount - 1
            if argc > expected { throw BridgeError("block takes \(expected) arguments, got \(argc)") }
            let pool = PEPoolPush()
            defer { PEPoolPop(pool) }
            return try withCallFrame(signature) { frame in
                frame.argument(0).storeBytes(of: block, as: UnsafeMutableRawPointer.self)
                let undefined = JSValueMakeUndefined(ctx)!
                for i in 0..<expected {
                    try fromJS(i < argc ? argv![i]! : undefined, signature.argument(i + 1), into: frame.argument(i + 1),
                               what: "argument \(i + 1) of a block")
                }
                var error: UnsafeMutablePointer<CChar>?
                guard PEBlockInvoke(block, frame, &error) else {
                    defer { free(error) }
                    throw BridgeError("block raised \(error.map { String(cString: $0) } ?? "an exception")")
                }
                guard signature.returnType.kind != .void, let ret = frame.pointee.returnValue else {
                    return JSValueMakeUndefined(ctx)
                }
                return try toJS(ret, signature.returnType)
            }
        } catch {
            exception?.pointee = JSC.makeError(ctx, "\(error)")
            return JSValueMakeUndefined(ctx)
        }
    }

    /// A JS value for a block parameter: a block box, a block-backed function, or nil.
    func jsToBlock(_ value: JSValueRef, what: @autoclosure () -> String) throws -> UnsafeMutableRawPointer? {
        if JSValueIsNull(ctx, value) || JSValueIsUndefined(ctx, value) { return nil }
        if JSValueIsBoolean(ctx, value) && !JSValueToBoolean(ctx, value) { return nil }
        if let object = unbox(value), PEObjectGetKind(object) == PEObjectKindBlock { return object }
        if let object = JSValueToObject(ctx, value, nil), JSObjectIsFunction(ctx, object) {
            throw BridgeError("\(what()) expects a block: wrap the function with block(\"returnType, argTypes\", fn)")
        }
        throw BridgeError("\(what()) expects a block, got \(jsTypeName(value))")
    }
}
