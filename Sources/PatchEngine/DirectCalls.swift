import CJavaScriptCore
import Foundation
import PatchRuntime

/// Calls from JS of methods defined in JS, kept inside JS when nothing native sits on the method
/// (the JS half: CPatchEngine's Scripts/direct.js).
///
/// `o.value()` where `value` is a JS patch of `o`'s class used to cross into Objective-C and back
/// (a send, the dispatcher, a native → JS call: ≈ 1.2 µs). JSPatch's "advanced" release called
/// such methods inside JS; it did so by class name alone, skipping whatever native code sat on the
/// method. Here runtime.js asks once per object, selector and dispatch generation
/// (`N.resolveDirect`) whether a message to the object would run nothing but a JS patch: the
/// method resolves to an installed slot whose only layer is its patch (no hook, no swizzle, no
/// native override in a subclass: `PEDirectPatchRun`), of the usual ownership family, with
/// arguments and result that JS can check cheaply. If so, it calls the patch's wrapper directly,
/// with the same `self`, `super` and `ORIG` context a native call gives it.
///
/// While an execution time limit is set, no call is made directly: each stays an entry from
/// native code, so that a runaway method is ended and reverted as its own script's.
///
/// What keeps the answer true:
/// - Every change of a slot's layers bumps the dispatch generation of the slot's class and its
///   subclasses (`PEDispatchGenerationBumpClass`: counters in static memory runtime.js reads
///   through a typed array); an answer from an older generation of the receiver's class is asked
///   again. A hook added on another thread is seen by the next call from JS that starts after it;
///   a change to another class leaves the answer (and JavaScriptCore's inlined call) alone.
/// - The method's IMP: a method replaced by other code (`method_setImplementation`,
///   `method_exchangeImplementations`: no slot changes) is seen by the next call, which compares
///   the word the runtime keeps the IMP in (`PEMethodIMPAddress`) with the slot's entry.
/// - A method added behind the engine's back (`class_addMethod` in a subclass, over the patched
///   method it inherits) changes no IMP word: every change the engine makes, to any class, checks
///   the answers it gave (`PEDispatchGenerationWatch`: what a send to the class finds now) and
///   moves the counter of a class whose send finds another implementation, so its callers ask again.
/// - The object's class: runtime.js reads the object's class word through an 8-byte view of the
///   object (`PEObjectClassWord`: the bits that say the class), kept out of scripts' reach, so an
///   object whose class changes (KVO subclassing it when an observer is added) is asked again.
///   JavaScriptCore turns its "primitive Gigacage" hardening off for the process once such a view
///   onto native memory exists (see docs/platform-notes.md); it exists only once a JS-defined
///   method has been called from JS.
/// - Arguments and results: runtime.js passes on unchanged what the round trip would give back
///   unchanged (numbers in range for their type, booleans, nil, boxes) and asks native code to
///   convert anything else (`N.convertArgument`), exactly as a send would. A result that isn't
///   plain, a performSelectorInOC request, or a JS exception is finished natively
///   (`N.finishDirect`): converted, or reported to `errorHandler` with the original implementation
///   run in its place, as a native caller's call would be.
extension Engine {
    /// How direct.js checks an argument or result of a directly called method (`argumentSource`
    /// and `resultSource` there), which reads these by name (`N.codes.value`).
    enum DirectValueCode: Int, ScriptCodes {
        case object = 0, int8, uint8, int16, uint16, int32, uint32, int64, uint64, float, double, bool, void
        static let scriptName = "value"

        init?(_ type: ObjCType) {
            switch type.kind {
            case .object: self = .object
            case .char: self = .int8
            case .uchar: self = .uint8
            case .short: self = .int16
            case .ushort: self = .uint16
            case .int: self = .int32
            case .uint: self = .uint32
            case .long, .longLong: self = .int64
            case .ulong, .ulongLong: self = .uint64
            case .float: self = .float
            case .double: self = .double
            case .bool: self = .bool
            case .void: self = .void
            default: return nil
            }
        }
    }

    /// What `PEDirectPatchRun` found, read inside its read section.
    private struct DirectPatch {
        /// The VM asking (`Engine.index`): its function is the one found.
        var vm = 0
        var function: JSObjectRef?
        var family = OwnershipFamily.none
        var isDealloc = false
        var script = ""
        var className = ""
        var signature: OpaquePointer?
        /// Where the method's IMP is kept, and the slot's entry it must be for the call to be direct.
        var impAddress: UnsafeRawPointer?
        var imp: UnsafeRawPointer?
    }

    private func directPatch(_ cls: UnsafeMutableRawPointer, _ selector: String) -> DirectPatch? {
        var found = DirectPatch(vm: index)
        let direct = withUnsafeMutablePointer(to: &found) { pointer in
            PEDirectPatchRun(cls, selector, { token, signature, impAddress, imp, context in
                let found = context!.assumingMemoryBound(to: DirectPatch.self)
                Unmanaged<JSMethod>.fromOpaque(UnsafeRawPointer(bitPattern: token)!)._withUnsafeGuaranteedRef { method in
                    found.pointee.function = method.function(forVM: found.pointee.vm)
                    found.pointee.family = method.family
                    found.pointee.isDealloc = method.isDealloc
                    found.pointee.script = method.script
                    found.pointee.className = method.className
                }
                found.pointee.signature = signature
                found.pointee.impAddress = impAddress
                found.pointee.imp = imp
            }, pointer)
        }
        return direct ? found : nil
    }

    /// Before the first box is stamped (runtime.js's DirectStamp keeps a DirectState on it), so
    /// that `BoxBits` reads stamped boxes without the C API too: a template box, stamped.
    private func learnStampedBoxStructure() {
        guard let boxes = shortcuts.boxes, !boxes.knowsStampedStructure, let stamp = directStamp,
              let set = JSValueToObject(ctx, JSC.get(ctx, stamp, "set"), nil) else { return }
        apiLock.withLock(ctx) {
            let handle = JSObjectMake(ctx, classes.object, nil)!
            let box = Self.makeBoxObject(ctx, handle: handle, prototype: objectPrototype)
            var args: [JSValueRef?] = [box, JSValueMakeNull(ctx)]
            _ = JSObjectCallAsFunction(ctx, set, stamp, 2, &args, nil)
            boxes.learnStampedStructure(of: box, handle: handle, ctx)
        }
    }

    /// `N.loadDirectCalls(shared)`: direct.js's module function applied to N and `shared`, with
    /// `generation`, the dispatch generations (PEDispatchGenerations), added. The first caller
    /// loads; the others wait here and get the same object. Its `states` is the class runtime.js
    /// keeps each box's DirectState with, on a private field a box gains by "constructing" the
    /// class on it (a base class that returns its argument): `BoxBits` learns the structure a
    /// stamped box has from it.
    func loadDirectCalls(_ shared: JSValueRef) throws -> JSValueRef {
        try directCallsModule.withLock { loaded in
            if let loaded { return loaded }
            guard let module = JSValueToObject(ctx, try evaluateRaw(EngineScript.directCalls.source, sourceURL: EngineScript.directCalls.fileName), nil),
                  let made = JSValueToObject(ctx, try call(module, [runtimeBindings, shared]), nil),
                  let stamp = JSValueToObject(ctx, JSC.get(ctx, made, "states"), nil) else {
                throw BridgeError("direct.js did not load")
            }
            let counters = JSObjectMakeTypedArrayWithBytesNoCopy(ctx, kJSTypedArrayTypeUint32Array, PEDispatchGenerations(),
                                                                 Int(PE_DISPATCH_GENERATION_CAPACITY) * MemoryLayout<UInt32>.size,
                                                                 nil, nil, nil)
            JSC.set(ctx, made, "generation", counters)
            JSValueProtect(ctx, made)
            JSValueProtect(ctx, stamp)
            directStamp = stamp
            loaded = made
            return made
        }
    }

    /// What runtime.js needs to call `name` with `argumentCount` arguments on the object in `boxValue`
    /// directly: `{index, generation, mask0, mask1, word0, word1, view?, number, method?, codes,
    /// result, impView, imp0, imp1, impKey}`,
    /// `method` missing when the call must go through Objective-C; null for anything but a box of
    /// an object with a class word.
    func resolveDirect(_ boxValue: JSValueRef, name: String, argumentCount: Int, needsView: Bool) throws -> JSValueRef? {
        guard let object = strongBoxObject(boxValue) else { return JSValueMakeNull(ctx) }
        learnStampedBoxStructure()
        var mask: UInt = 0
        guard PEObjectClassWord(object, &mask) else { return JSValueMakeNull(ctx) }
        let word = object.load(as: UInt.self) & mask
        guard let cls = PEObjectGetClass(object) else { return JSValueMakeNull(ctx) }
        // Read before what it guards: a change made meanwhile leaves this answer already stale.
        let generationIndex = PEDispatchGenerationIndex(cls)
        let generation = PEDispatchGenerationRead(generationIndex)
        let selector = SelectorName.selector(jsName: name, argumentCount: argumentCount)
        let number = try sendSelectors.number(for: selector)

        let result = JSObjectMake(ctx, nil, nil)!
        func set(_ key: String, _ value: JSValueRef?) { JSC.set(ctx, result, key, value) }
        func int32(_ bits: UInt) -> JSValueRef { JSValueMakeNumber(ctx, Double(Int32(truncatingIfNeeded: bits))) }
        set("index", JSValueMakeNumber(ctx, Double(generationIndex)))
        set("generation", JSValueMakeNumber(ctx, Double(generation)))
        // Where every bit of the word says the class, runtime.js compares it as one double: a class
        // pointer (user space, far below 2^52) has a zero exponent, so its bits are a number no
        // other word's bits equal, never a NaN. Otherwise it compares two masked int32s.
        let masked = mask != UInt.max || word >> 52 != 0
        set("masked", JSValueMakeBoolean(ctx, masked))
        set("word", JSValueMakeNumber(ctx, Double(bitPattern: UInt64(word))))
        set("mask0", int32(mask)); set("mask1", int32(mask >> 32))
        set("word0", int32(word)); set("word1", int32(word >> 32))
        set("number", JSValueMakeNumber(ctx, Double(number)))
        if needsView {
            // The object outlives the view: the view is kept only with the object's box, which
            // holds the object.
            set("view", JSObjectMakeTypedArrayWithBytesNoCopy(ctx, masked ? kJSTypedArrayTypeInt32Array : kJSTypedArrayTypeFloat64Array,
                                                              object, MemoryLayout<UInt>.size, nil, nil, nil))
        }
        // With an execution time limit too: a runaway method called directly is ended with the
        // entry around it, and reverted as its own script's (`ExecutionTimeout.script`).
        if let patch = directPatch(cls, selector), let function = patch.function,
           let raw = patch.signature, patch.family == .none, !patch.isDealloc, let impAddress = patch.impAddress {
            let signature = ObjCSignature(raw: raw)
            let codes = (2..<signature.argumentCount).map { DirectValueCode(signature.argument($0)) }
            if let resultCode = DirectValueCode(signature.returnType), !codes.contains(nil) {
                set("method", function)
                set("codes", JSC.array(ctx, codes.map { JSValueMakeNumber(ctx, Double($0!.rawValue)) }))
                set("result", JSValueMakeNumber(ctx, Double(resultCode.rawValue)))
                // The caller compares the method's IMP with the slot's entry on every call (two
                // int32s through a view of the word the runtime keeps it in): a replacement by other
                // code is seen by the next call, with no dispatch generation passing.
                let imp = UInt(bitPattern: patch.imp)
                set("impView", JSObjectMakeTypedArrayWithBytesNoCopy(ctx, kJSTypedArrayTypeInt32Array, UnsafeMutableRawPointer(mutating: impAddress),
                                                                    MemoryLayout<UInt>.size, nil, nil, nil))
                set("imp0", int32(imp)); set("imp1", int32(imp >> 32))
                set("impKey", JSC.makeString(ctx, "\(UInt(bitPattern: impAddress)):\(imp)"))
            }
        }
        return result
    }

    /// The receiver, selector and call site of a direct call, for its slow paths.
    private func directCall(_ boxValue: JSValueRef, number: Int) throws -> (UnsafeMutableRawPointer, String, CallSite) {
        guard let receiver = strongBoxObject(boxValue), sendSelectors.selector(number) != nil else {
            throw BridgeError("direct call: no receiver or no selector \(number)")
        }
        let selector = sendSelectors.name(number)
        return (receiver, selector, try callSite(receiver, selector))
    }

    func convertDirectArgument(_ boxValue: JSValueRef, number: Int, index: Int, _ value: JSValueRef) throws -> JSValueRef {
        let (receiver, selector, site) = try directCall(boxValue, number: number)
        guard index + 2 < site.signature.argumentCount else { throw BridgeError("direct call: no argument \(index + 1)") }
        return try roundTrip(value, site.signature.argument(index + 2),
                             what: "argument \(index + 1) of \(methodDescription(receiver, selector))")
    }

    /// `value` as it arrives on the other side of a crossing into Objective-C: converted to `type`
    /// and back (what a send does to an argument, and a native caller to a result).
    private func roundTrip(_ value: JSValueRef, _ type: ObjCType, what: @autoclosure () -> String) throws -> JSValueRef {
        let pool = PEPoolBatchEnter()
        defer { PEPoolBatchExit(pool) }
        return try withUnsafeTemporaryAllocation(byteCount: max(type.size, 16), alignment: 16) { storage in
            storage.initializeMemory(as: UInt8.self, repeating: 0)
            try fromJS(value, type, into: storage.baseAddress!, what: what())
            return try toJS(storage.baseAddress!, type)
        }
    }

    /// The end of a direct call that JS couldn't finish: `value` converted to the method's result
    /// type and back (performSelectorInOC requests run first), as a native caller would receive
    /// it; or, when the method threw (`failed`) or its result can't be converted, the error
    /// reported and the original implementation run with `arguments` in its place.
    func finishDirect(_ boxValue: JSValueRef, number: Int, value: JSValueRef, failed: Bool,
                              arguments: [JSValueRef]) throws -> JSValueRef {
        let (receiver, selector, site) = try directCall(boxValue, number: number)
        let returnType = site.signature.returnType
        do {
            if failed { throw JSException(ctx: ctx, value: value) }
            var result = value
            while let deferred = performInOCRequest(result) { result = try deferred() }
            if returnType.kind == .void { return undefinedValue }
            return try roundTrip(result, returnType, what: "return value of \(methodDescription(receiver, selector))")
        } catch {
            let cls = PEObjectGetClass(receiver)!
            let patch = directPatch(cls, selector)
            let description = "\(PEObjectGetKind(receiver) == PEObjectKindClass ? "+" : "-")[\(patch?.className ?? String(cString: PEClassGetName(cls))) \(selector)]"
            let failure = patchError(error, script: patch?.script ?? currentScript(), context: description)
            report(failure)
            stopIfStrict(failure)
            guard let slot = PESlotFindInHierarchy(cls, selector) else { return undefinedValue }
            do {
                let signature = ObjCSignature(raw: PESlotGetSignature(slot))
                return try invoke(receiver, selector, signature, arguments.prefix(signature.argumentCount - 2).map { Optional($0) },
                                  kind: .original(slot))
            } catch {
                // As for a native caller: logged, and the caller gets zero / nil.
                log("original of \(description) raised \(error)")
                return try withUnsafeTemporaryAllocation(byteCount: max(returnType.size, 16), alignment: 16) { storage in
                    storage.initializeMemory(as: UInt8.self, repeating: 0)
                    return returnType.kind == .void ? undefinedValue : try toJS(storage.baseAddress!, returnType)
                }
            }
        }
    }
}
