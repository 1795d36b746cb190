import CJavaScriptCore
import Foundation
import PatchRuntime

/// Calls from JavaScript into Objective-C: plain messages (JSPatch's callI/callC: a class box as
/// receiver sends a class method), super calls resolved from the defining class, and calls of
/// the implementation below a patch (`self.ORIGfoo()`).
extension Engine {
    enum CallKind {
        case send
        case superFrom(UnsafeMutableRawPointer)      // start class (the defining class's superclass)
        case original(OpaquePointer)                 // the slot whose original runs
    }

    /// `obj.name(args)` from JS (runtime.js has converted the name), or `performSelector`.
    /// `readingInEntry`: called outside every entry (a `performSelectorInOC` request's send), so
    /// the argument list and the arguments are read inside one (`runningScriptCode`): a getter or
    /// proxy trap among them is the script's code, under its limits; the send stays outside.
    func callMethod(_ receiverValue: JSValueRef, _ selector: String, _ argsValue: JSValueRef,
                    readingInEntry: Bool = false) throws -> JSValueRef {
        guard let receiver = unbox(receiverValue) else {
            if (JSValueIsBoolean(ctx, receiverValue) && !JSValueToBoolean(ctx, receiverValue)) || isZeroedWeakBox(receiverValue) {
                return JSValueMakeBoolean(ctx, false)   // a message to nil
            }
            throw BridgeError("cannot send \(selector) to \(jsTypeName(receiverValue)): not an Objective-C object")
        }
        let args = try readingScriptCode(inEntry: readingInEntry) { try argumentValues(argsValue) }
        let site = try callSite(receiver, selector)
        // `stringWithFormat('%@ %@', a, b)`: more arguments than the method's own.
        if args.count > site.argumentCount, VariadicMethods.isVariadic(selector) {
            return try invokeVariadic(receiver, selector, site.signature, args, readingInEntry: readingInEntry)
        }
        return try invoke(receiver, selector, site.signature, args, kind: .send, site: site, readingInEntry: readingInEntry)
    }

    /// Runs `body`, which reads JS values, inside an entry when the caller is outside every entry.
    @inline(__always) private func readingScriptCode<R>(inEntry: Bool, _ body: () throws -> R) throws -> R {
        inEntry ? try runningScriptCode(body) : try body()
    }

    /// What a message send needs to know about (receiver's class, selector), computed once:
    /// method types don't change for a class (overrides keep them).
    struct CallSite {
        let cls: UnsafeMutableRawPointer?
        let selector: UnsafeRawPointer
        let signature: ObjCSignature
        let family: OwnershipFamily
        /// Every argument and the result travel in general-purpose registers (`PEMessageSendRegisters`).
        let isRegisterOnly: Bool
        /// The method's own arguments (not self, not _cmd) and its result's kind, read from the
        /// signature once: each read is a call into the runtime core, ≈ 2.5 ns a send in all.
        let argumentCount: Int
        let returnKind: ObjCType.Kind

        init(cls: UnsafeMutableRawPointer?, selector: UnsafeRawPointer, signature: ObjCSignature,
             family: OwnershipFamily, isRegisterOnly: Bool) {
            self.cls = cls
            self.selector = selector
            self.signature = signature
            self.family = family
            self.isRegisterOnly = isRegisterOnly
            argumentCount = signature.argumentCount - 2
            returnKind = signature.returnType.kind
        }
    }

    func callSite(_ receiver: UnsafeMutableRawPointer, _ selector: String) throws -> CallSite {
        try callSiteRecord(receiver, selector).site
    }

    /// The call site, and its record when it may be cached for the receiver's class: records are
    /// kept for the process (never freed, so a reader on another thread never sees one go away).
    func callSiteRecord(_ receiver: UnsafeMutableRawPointer, _ selector: String) throws
        -> (site: CallSite, record: UnsafeMutablePointer<CallSite>?) {
        let cls = PEObjectGetClass(receiver)
        let key = CallSiteKey(cls: UInt(bitPattern: cls), selector: selector)
        if let record = callSites.record(key) { return (record.pointee, record) }
        let signature = try methodSignature(receiver, selector)
        let site = CallSite(cls: cls, selector: PESelectorRegister(selector), signature: signature,
                            family: OwnershipFamily(selector: selector),
                            isRegisterOnly: PESignatureIsRegisterOnly(signature.raw) && !Self.hasObjectOutParameter(signature))
        // Classes answering through -forwardInvocation: may change their answer: not cached.
        guard PEObjectMethodTypes(receiver, selector) != nil else { return (site, nil) }
        let record = callSites.record(key, making: site)
        return (record.pointee, record)
    }

    /// `self.super().name(args)`: resolved from the superclass of the class that defined the running method.
    func callSuper(_ receiverValue: JSValueRef, _ name: String, definingClass: UnsafeMutableRawPointer, _ argsValue: JSValueRef) throws -> JSValueRef {
        guard let receiver = unbox(receiverValue) else { throw BridgeError("super() needs an Objective-C receiver") }
        let args = try argumentValues(argsValue)
        let selector = SelectorName.selector(jsName: name, argumentCount: args.count)
        guard let start = PEClassGetSuperclass(definingClass) else {
            throw BridgeError("\(String(cString: PEClassGetName(definingClass))) has no superclass for super.\(name)()")
        }
        guard let types = PEClassInstanceMethodTypes(start, selector) else {
            throw BridgeError("super of \(describeClass(definingClass)) does not implement \(selector)")
        }
        if selector == "dealloc" { lifetimes.noteDeallocOriginalCalled(receiver) }
        return try invoke(receiver, selector, try ObjCSignature(types: String(cString: types)), args, kind: .superFrom(start))
    }

    /// `self.ORIGname(args)`: what the method was before the patch (of the defining class when
    /// called from a patched method, else of the receiver's nearest patched class).
    func callOriginal(_ receiverValue: JSValueRef, _ name: String, definingClass: UnsafeMutableRawPointer?, _ argsValue: JSValueRef) throws -> JSValueRef {
        guard let receiver = unbox(receiverValue) else { throw BridgeError("ORIG\(name) needs an Objective-C receiver") }
        let args = try argumentValues(argsValue)
        let selector = SelectorName.selector(jsName: name, argumentCount: args.count)
        var start = definingClass ?? PEObjectGetClass(receiver)
        // A method defined on the class (metaclass) may be asked for an instance's (class's) original.
        if let cls = start, PEClassIsMetaClass(cls) != (PEObjectGetKind(receiver) == PEObjectKindClass) {
            start = PEObjectGetClass(receiver)
        }
        guard let slot = PESlotFindInHierarchy(start, selector) else {
            throw BridgeError("ORIG\(name): \(selector) is not patched on \(describeClass(start!)) or its superclasses")
        }
        if selector == "dealloc" { lifetimes.noteDeallocOriginalCalled(receiver) }
        return try invoke(receiver, selector, ObjCSignature(raw: PESlotGetSignature(slot)), args, kind: .original(slot))
    }

    /// Arguments one message may be sent with from JS (a variadic one's included).
    static let maximumArguments = 1_024

    /// The elements of a JS argument list (runtime.js's, or a script's array for `OCNumber`).
    func argumentValues(_ value: JSValueRef) throws -> [JSValueRef?] {
        guard let object = JSValueToObject(ctx, value, nil) else { return [] }
        let count = try JSC.arrayLength(ctx, object, atMost: Self.maximumArguments, "a message's argument list")
        return (0..<count).map { JSObjectGetPropertyAtIndex(ctx, object, UInt32($0), nil) }
    }

    func describeClass(_ cls: UnsafeMutableRawPointer) -> String {
        (PEClassIsMetaClass(cls) ? "class " : "") + String(cString: PEClassGetName(cls))
    }

    /// "-[Class sel]" or "+[Class sel]" for messages.
    func methodDescription(_ receiver: UnsafeMutableRawPointer, _ selector: String) -> String {
        if PEObjectGetKind(receiver) == PEObjectKindClass {
            return "+[\(String(cString: PEClassGetName(receiver))) \(selector)]"
        }
        return "-[\(String(cString: PEClassGetName(PEObjectGetClass(receiver)))) \(selector)]"
    }

    func methodSignature(_ receiver: UnsafeMutableRawPointer, _ selector: String) throws -> ObjCSignature {
        if let types = PEObjectMethodTypes(receiver, selector) {
            return try ObjCSignature(types: String(cString: types))
        }
        var error: UnsafeMutablePointer<CChar>?
        if let types = PEObjectForwardedMethodTypes(receiver, selector, &error) {
            defer { free(types) }
            return try ObjCSignature(types: String(cString: types))
        }
        if let error { free(error) }
        throw BridgeError("unrecognized selector \(methodDescription(receiver, selector))")
    }

    /// Marshals `args`, performs the call of the given kind, and converts the result (an object
    /// result only boxed when `boxesResult`: an NSNumber stays an object). `readingInEntry`: as
    /// for `callMethod`, the marshalling runs inside an entry, the call outside it.
    func invoke<Arguments: RandomAccessCollection<JSValueRef?>>(
        _ receiver: UnsafeMutableRawPointer, _ selector: String, _ signature: ObjCSignature,
        _ args: Arguments, kind: CallKind, site: CallSite? = nil, boxesResult: Bool = false,
        readingInEntry: Bool = false) throws -> JSValueRef where Arguments.Index == Int {
        let expected = signature.argumentCount - 2
        var extras: [JSValueRef] = []
        if args.count > expected {
            // A JS method gets them all (ExtraArguments); a native one takes only its own.
            guard case .send = kind, ExtraArguments.entersJSPatch(receiver, selector) else {
                throw BridgeError("\(methodDescription(receiver, selector)) takes \(expected) argument\(expected == 1 ? "" : "s"), got \(args.count)")
            }
            extras = args.dropFirst(expected).map { $0 ?? undefinedValue }
        }
        let family = site?.family ?? OwnershipFamily(selector: selector)
        let selectorPointer = site?.selector ?? PESelectorRegister(selector)
        let pool = PEPoolBatchEnter()
        defer { PEPoolBatchExit(pool) }
        return try withCallFrame(signature) { frame in
            frame.argument(0).storeBytes(of: receiver, as: UnsafeMutableRawPointer.self)
            frame.argument(1).storeBytes(of: selectorPointer, as: UnsafeRawPointer?.self)
            let undefined = undefinedValue
            try readingScriptCode(inEntry: readingInEntry) {
                for i in 0..<expected {
                    let type = signature.argument(i + 2)
                    try fromJS(i < args.count ? args[args.startIndex + i] ?? undefined : undefined, type, into: frame.argument(i + 2),
                               what: "argument \(i + 1) of \(methodDescription(receiver, selector))")
                }
            }
            if family == .initializer { _ = PEObjectRetain(receiver) }   // init consumes its receiver
            var error: UnsafeMutablePointer<CChar>?
            let ok: Bool
            switch kind {
            case .send where !extras.isEmpty:
                ok = extraArguments.withPending(extras, receiver: receiver, selector: selector, ctx: ctx) { PEMessageSend(frame, &error) }
            case .send: ok = PEMessageSend(frame, &error)
            case .superFrom(let start): ok = PESuperSend(start, frame, &error)
            case .original(let slot): ok = PESlotInvokeOriginalCatching(slot, frame, &error)
            }
            if !ok {
                if family == .initializer { PEObjectRelease(receiver) }
                let message = error.map { String(cString: $0) } ?? "unknown error"
                free(error)
                throw BridgeError("\(methodDescription(receiver, selector)) raised \(message)")
            }
            keepOutParameters(frame, signature)
            let returnType = signature.returnType
            guard returnType.kind != .void, let ret = frame.pointee.returnValue else { return undefinedValue }
            let result = boxesResult && returnType.kind == .object ? box(ret.load(as: UnsafeMutableRawPointer?.self)) : try toJS(ret, returnType)
            if family.returnsRetained, returnType.kind == .object {
                PEObjectRelease(ret.load(as: UnsafeMutableRawPointer?.self))   // the box holds its own reference
            }
            return result
        }
    }

    static func hasObjectOutParameter(_ signature: ObjCSignature) -> Bool {
        (2..<signature.argumentCount).contains { i in
            let type = signature.argument(i)
            return type.kind == .pointer && type.pointee?.kind == .object
        }
    }

    /// Objects a callee wrote through `id *` out-parameters (`NSError **`) are autoreleased in the
    /// call's pool; they are kept until the current JS entry returns, so `pval()` can read them.
    func keepOutParameters(_ frame: UnsafeMutablePointer<PEFrame>, _ signature: ObjCSignature) {
        for i in 2..<signature.argumentCount {
            let type = signature.argument(i)
            guard type.kind == .pointer, let pointee = type.pointee, pointee.kind == .object,
                  let slot = frame.argument(i).load(as: UnsafeMutablePointer<UnsafeMutableRawPointer?>?.self),
                  let object = slot.pointee else { continue }
            PEDeferRelease(PEObjectRetain(object))
        }
    }

    /// A variadic method (`stringWithFormat:`, `arrayWithObjects:`): the extra arguments are passed
    /// as objects, as in JSPatch (use %@ in formats); object lists get their nil terminator.
    func invokeVariadic<Arguments: RandomAccessCollection<JSValueRef?>>(
        _ receiver: UnsafeMutableRawPointer, _ selector: String, _ fixed: ObjCSignature,
        _ args: Arguments, readingInEntry: Bool = false) throws -> JSValueRef where Arguments.Index == Int {
        let fixedCount = fixed.argumentCount - 2
        var extra = args.count - fixedCount
        let terminated = VariadicMethods.isNilTerminated(selector)
        if terminated { extra += 1 }
        let types = fixed.encoding + String(repeating: "@", count: extra)
        let signature = try ObjCSignature(types: types)
        let pool = PEPoolBatchEnter()
        defer { PEPoolBatchExit(pool) }
        return try withCallFrame(signature) { frame in
            frame.argument(0).storeBytes(of: receiver, as: UnsafeMutableRawPointer.self)
            frame.argument(1).storeBytes(of: PESelectorRegister(selector), as: UnsafeRawPointer?.self)
            try readingScriptCode(inEntry: readingInEntry) {
                for i in 0..<args.count {
                    try fromJS(args[args.startIndex + i] ?? JSValueMakeUndefined(ctx), signature.argument(i + 2), into: frame.argument(i + 2),
                               what: "argument \(i + 1) of \(methodDescription(receiver, selector))")
                }
            }
            var error: UnsafeMutablePointer<CChar>?
            guard PEMessageSendVariadic(frame, UInt32(fixed.argumentCount), &error) else {
                defer { free(error) }
                throw BridgeError("\(methodDescription(receiver, selector)) raised \(error.map { String(cString: $0) } ?? "an exception")")
            }
            guard signature.returnType.kind != .void, let ret = frame.pointee.returnValue else { return JSValueMakeUndefined(ctx) }
            let result = try toJS(ret, signature.returnType)
            if OwnershipFamily(selector: selector).returnsRetained, signature.returnType.kind == .object {
                PEObjectRelease(ret.load(as: UnsafeMutableRawPointer?.self))
            }
            return result
        }
    }
}

/// Foundation's variadic methods, which type encodings don't mark.
enum VariadicMethods {
    private static let nilTerminated: Set<String> = [
        "arrayWithObjects:", "initWithObjects:", "setWithObjects:", "dictionaryWithObjectsAndKeys:",
        "initWithObjectsAndKeys:", "orderedSetWithObjects:",
    ]

    static func isNilTerminated(_ selector: String) -> Bool { nilTerminated.contains(selector) }

    static func isVariadic(_ selector: String) -> Bool {
        nilTerminated.contains(selector) || selector.hasSuffix("Format:") || selector.hasSuffix("format:")
    }
}
