import CJavaScriptCore
import Foundation
import PatchRuntime

/// The engine's JS classes: boxes of objects (strong and `__weak`), pointers, blocks callable as
/// functions, and native functions (`NativeFunctionBox`). Made once for the process: a class is
/// not bound to a VM, so every `Engine` holds the same five (inline, read on every crossing).
/// Their callbacks find their VM's engine from the context (`Engine.of`) and run inside
/// `Engine.afterLockDrop`.
struct JSClasses {
    let object: JSClassRef
    let weakObject: JSClassRef
    let pointer: JSClassRef
    let blockFunction: JSClassRef
    let nativeFunction: JSClassRef

    static let shared = JSClasses()

    private init() {
        var def = kJSClassDefinitionEmpty
        def.className = UnsafePointer(strdup("OCObject"))
        def.finalize = { object in PEDeferRelease(JSObjectGetPrivate(object)) }
        let object = JSClassCreate(&def)!

        var weakDef = kJSClassDefinitionEmpty
        weakDef.className = UnsafePointer(strdup("OCWeakObject"))
        // The weak-box table is every VM's (`Engine.lifetimes`).
        weakDef.finalize = { object in Engine.shared.lifetimes.forgetWeakBox(object!, object: JSObjectGetPrivate(object)) }
        let weakObject = JSClassCreate(&weakDef)!

        var pointerDef = kJSClassDefinitionEmpty
        pointerDef.className = UnsafePointer(strdup("OCPointer"))
        let pointer = JSClassCreate(&pointerDef)!

        var blockDef = kJSClassDefinitionEmpty
        blockDef.className = UnsafePointer(strdup("OCBlock"))
        blockDef.finalize = { object in PEDeferRelease(JSObjectGetPrivate(object)) }
        blockDef.callAsFunction = { ctx, function, _, argc, argv, exception in
            Engine.with(ctx!) { engine in
                engine.afterLockDrop {
                    if engine.refusedDuringReplay(ctx!, exception) { return JSValueMakeUndefined(ctx) }
                    return engine.callNativeBlock(ctx!, function!, argc, argv, exception)
                }
            }
        }
        let blockFunction = JSClassCreate(&blockDef)!

        var fnDef = kJSClassDefinitionEmpty
        fnDef.className = UnsafePointer(strdup("NativeFunction"))
        fnDef.callAsFunction = { ctx, function, this, argc, argv, exception in
            let native = Unmanaged<NativeFunctionBox>.fromOpaque(JSObjectGetPrivate(function)!).takeUnretainedValue()
            return native.engine.afterLockDrop {
                if !native.isReplayable, native.engine.refusedDuringReplay(ctx!, exception) { return JSValueMakeUndefined(ctx) }
                let body = native.body
                var args: [JSValueRef] = []
                args.reserveCapacity(argc)
                for i in 0..<argc { args.append(argv![i]!) }
                do {
                    return try body(ctx!, this, args) ?? JSValueMakeUndefined(ctx)
                } catch let thrown as JSThrown {
                    exception?.pointee = thrown.value   // a script's own exception, passed on as it was
                    return JSValueMakeUndefined(ctx)
                } catch {
                    exception?.pointee = JSC.makeError(ctx!, "\(error)")
                    return JSValueMakeUndefined(ctx)
                }
            }
        }
        // Releasing the closure runs no JS, so it can happen during collection.
        fnDef.finalize = { object in Unmanaged<NativeFunctionBox>.fromOpaque(JSObjectGetPrivate(object)!).release() }
        let nativeFunction = JSClassCreate(&fnDef)!
        (self.object, self.weakObject, self.pointer, self.blockFunction, self.nativeFunction) =
            (object, weakObject, pointer, blockFunction, nativeFunction)
    }
}
