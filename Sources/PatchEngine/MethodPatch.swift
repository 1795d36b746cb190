import CJavaScriptCore
import Foundation
import CPatchEngine
import PatchRuntime

/// A JS implementation installed in a slot. The slot's patch token is the record's address, so the
/// hot path needs no table lookup. The transaction that installed it owns one reference (taken with
/// `makeToken`); a revert hands the token to the runtime's epochs (`PEPatchTokenRetire`), which
/// release that reference only after every call that could have read the token has returned, so a
/// call still running while its patch is reverted keeps a live record.
final class JSMethod {
    let function: JSObjectRef          // the runtime.js wrapper that sets self / the defining class; protected
    let selector: String
    let script: String
    let className: String
    /// Decided once at install time, not per call.
    let family: OwnershipFamily
    let isDealloc: Bool
    /// Some argument is a struct: entered through the signature's call adapter when it has one.
    let hasStructArguments: Bool
    private let ctx: JSGlobalContextRef
    /// The method's functions in the secondary VMs its script was replayed into: a table of
    /// `VMPool.capacity` pointers at the VMs' indexes (`VMPool`; the main VM's is `function`), each
    /// published with release and read on every call there. The table is made by the first
    /// `setReplica` and published into this one-word cell (most methods never run in a secondary
    /// VM: a table is 256 bytes); nil: no VM has a function yet. Once published it stays put until
    /// `deinit`: a fixed array, not a table that grows or moves, because a reader holds no lock
    /// (docs/threads.md, "What remains": a locked dictionary read returned a code address).
    private let replicaTable: UnsafeMutablePointer<UnsafeMutableRawPointer?>

    init(function: JSObjectRef, selector: String, script: String, className: String, signature: ObjCSignature,
         ctx: JSGlobalContextRef) {
        self.function = function
        self.selector = selector
        self.script = script
        self.className = className
        self.ctx = ctx
        family = OwnershipFamily(selector: selector)
        isDealloc = selector == "dealloc"
        hasStructArguments = (2..<signature.argumentCount).contains { signature.argument($0).kind == .structure }
        replicaTable = .allocate(capacity: 1)
        replicaTable.initialize(to: nil)
        PELiveRecordAdjust(PELiveRecordJSMethod, 1)
    }

    deinit {
        JSValueUnprotect(ctx, function)
        if let replicas {
            for index in 1..<VMPool.capacity {
                if let replica = replicas[index], let vm = Engine.shared.pool.vm(index) { JSValueUnprotect(vm.ctx, OpaquePointer(replica)) }
            }
            replicas.deallocate()
        }
        replicaTable.deallocate()
        PELiveRecordAdjust(PELiveRecordJSMethod, -1)
    }

    /// The function to run in the VM of `index`: nil in a secondary VM its script was not (or not
    /// yet) replayed into.
    @inline(__always) func function(forVM index: Int) -> JSObjectRef? {
        if index == 0 { return function }
        guard let replicas else { return nil }
        return PEAtomicLoadPointer(replicas + index).map { OpaquePointer($0) }
    }

    /// The table of functions per VM, if one was made (acquire: its nil entries are seen).
    @inline(__always) private var replicas: UnsafeMutablePointer<UnsafeMutableRawPointer?>? {
        PEAtomicLoadPointer(replicaTable)?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
    }

    /// A replay made `function` (protected in that VM) this method's function in the VM of
    /// `index`, or took it back (nil). Only the thread holding that VM calls it; threads holding
    /// other VMs may at the same time, so the table is published with a compare-and-exchange.
    func setReplica(_ function: JSObjectRef?, vm index: Int, ctx: JSGlobalContextRef) {
        guard let replicas = replicas ?? (function == nil ? nil : makeReplicas()) else { return }
        let old = replicas[index]
        PEAtomicStorePointer(replicas + index, function.map { UnsafeMutableRawPointer($0) })
        if let old { JSValueUnprotect(ctx, OpaquePointer(old)) }
    }

    /// The table, made and published now unless another thread published one first.
    private func makeReplicas() -> UnsafeMutablePointer<UnsafeMutableRawPointer?> {
        let made = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: VMPool.capacity)
        made.initialize(repeating: nil, count: VMPool.capacity)
        if PEAtomicCompareExchangePointer(replicaTable, nil, UnsafeMutableRawPointer(made)) { return made }
        made.deallocate()
        return replicas!
    }

    /// The slot's token: a +1 reference, given back by `PEPatchTokenRetire` through the releaser.
    func makeToken() -> UInt { UInt(bitPattern: Unmanaged.passRetained(self).toOpaque()) }
}

extension Engine {
    func installRuntimeHandlers() {
        PESetPatchHandler { slot, frame, token in
            // Inside an entry (native code called from JS), the thread stays in that entry's VM;
            // else it takes a VM no other thread is in (`VMPool`).
            // No retain of an engine or the pool per call: each is alive while the process
            // runs (a retain is an atomic operation on a count every thread's calls share).
            if let current = PEThreadEngineCurrent() {
                Unmanaged<Engine>.fromOpaque(current)._withUnsafeGuaranteedRef { $0.runPatch(slot!, frame!, token) }
            } else {
                Engine.withFreeVM { $0.runPatch(slot!, frame!, token) }
            }
        }
        PESetPatchTokenReleaser { token in
            Unmanaged<JSMethod>.fromOpaque(UnsafeRawPointer(bitPattern: token)!).release()
        }
        PESetBlockHandlers({ token, frame in
            // A block runs in the VM that made it (its function is that VM's).
            let record = Unmanaged<JSBlock>.fromOpaque(UnsafeRawPointer(bitPattern: token)!).takeUnretainedValue()
            record.engine.runBlock(token, frame!)
        }, { token in
            Unmanaged<JSBlock>.fromOpaque(UnsafeRawPointer(bitPattern: token)!).release()
        })
    }

    /// A native call of a patched method: runs the JS implementation; if it throws, reports the
    /// error and runs the original instead (zero/nil for an added method), so the app keeps going.
    func runPatch(_ slot: OpaquePointer, _ frame: UnsafeMutablePointer<PEFrame>, _ token: UInt) {
        // No retain per call: the dispatcher runs this inside an epoch, which keeps the record
        // alive until the call has returned even if its patch is reverted meanwhile.
        // A patched call made while this VM replays a script (app code a class lookup ran, such as
        // +initialize) is a call like any other: its natives are not the replay's (its entry is
        // not the replay's, `entering`).
        Unmanaged<JSMethod>.fromOpaque(UnsafeRawPointer(bitPattern: token)!)._withUnsafeGuaranteedRef { method in
            if let function = method.function(forVM: index) {
                runPatch(slot, frame, method: method, function: function)
            } else {
                // Not replayed here (its script calls native code at its top level, or was applied
                // after this VM last caught up while an evaluation was running): the main VM runs it.
                // Extra arguments a JS call here left for it are this VM's values: dropped.
                if !extraArguments.isEmpty { _ = extraArguments.take(receiver: frame.receiver, selector: method.selector) }
                let main = Engine.shared
                main.runPatch(slot, frame, method: method, function: method.function)
            }
        }
    }

    private func runPatch(_ slot: OpaquePointer, _ frame: UnsafeMutablePointer<PEFrame>, method: JSMethod, function: JSObjectRef) {
        let signature = frame.signature
        let receiver = frame.receiver
        let isDealloc = method.isDealloc
        let returnType = signature.returnType
        // No autorelease pool of its own: what the JS autoreleases is in the batch its sends use,
        // drained when the JS returns (PEPools.h); the result conversion autoreleases into the
        // caller's pool, where a method's autoreleased result belongs.
        var returnedObject: UnsafeMutableRawPointer?
        do {
            var result = try callWithFrameArguments(method, function, frame, signature, receiverRetained: !isDealloc)
            let returnKind = returnType.kind
            // The usual results skip the general checks (each a call into JavaScriptCore, which takes
            // its lock) that would only say what is known already.
            if result == undefinedValue, returnKind == .void {
                // No result, and undefined is not a performSelectorInOC request.
            } else if let ret = frame.pointee.returnValue, storeReturnedNumber(result, returnType, into: ret) {
                // A number is not a performSelectorInOC request either.
            } else if returnKind == .object, let ret = frame.pointee.returnValue, let object = strongBoxObject(result) {
                // The usual object result, a strong box: its object directly (a box is never a
                // performSelectorInOC request, and fromJS would find the same object).
                ret.storeBytes(of: object, as: UnsafeMutableRawPointer.self)
                returnedObject = object
                _ = PEObjectRetain(returnedObject)   // survive the box
            } else {
                // Reading a returned object (a request's fields, a struct's or a dictionary's
                // properties) runs its getters: script code, inside one entry per result
                // (`runningScriptCode`). A performSelectorInOC request's send runs outside it, and
                // the result it leads to is read the same way.
                let ret = returnKind == .void ? nil : frame.pointee.returnValue
                while let deferred = try runningScriptCode({ () throws -> (() throws -> JSValueRef)? in
                    if let deferred = performInOCRequest(result) { return deferred }
                    // The description is built only if the conversion fails.
                    if let ret { try fromJS(result, returnType, into: ret, what: "return value of \(describeMethod(method, receiver))") }
                    return nil
                }) { result = try deferred() }
                if let ret, returnKind == .object || returnKind == .block {
                    returnedObject = ret.load(as: UnsafeMutableRawPointer?.self)
                    _ = PEObjectRetain(returnedObject)   // survive the box
                }
            }
        } catch {
            PEFlushDeferredAutoreleases()
            let failure = patchError(error, script: method.script, context: describeMethod(method, receiver))
            report(failure)
            stopIfStrict(failure)
            var nativeError: UnsafeMutablePointer<CChar>?
            if !PESlotInvokeOriginalCatching(slot, frame, &nativeError) {
                log("original of \(describeMethod(method, receiver)) raised \(nativeError.map { String(cString: $0) } ?? "")")
                free(nativeError)
            }
            revertIfTimedOut(error, script: method.script)
            return
        }
        PEFlushDeferredAutoreleases()
        drainReleases()
        if let returnedObject {
            switch method.family {
            case .initializer: PEObjectRelease(receiver)        // init consumed its receiver; the result is +1
            case .alloc, .new, .copy, .mutableCopy: break      // caller owns the +1
            case .none: _ = PEObjectAutorelease(returnedObject)
            }
        }
        if isDealloc, let receiver, !lifetimes.takeDeallocOriginalCalled(receiver) {
            // The object must still be freed when the JS dealloc didn't chain to the original.
            PESlotInvokeOriginal(slot, frame)
        }
    }

    /// Calls `function` as runtime.js's wrappers expect, `function(receiver, arg1, ...)`, with the
    /// frame's receiver and arguments as JS values, made and passed under one hold of the API lock.
    private func callWithFrameArguments(_ method: JSMethod, _ function: JSObjectRef, _ frame: UnsafeMutablePointer<PEFrame>,
                                        _ signature: ObjCSignature, receiverRetained: Bool) throws -> JSValueRef {
        // A call from JS with more arguments than the selector takes (ExtraArguments). The
        // closures below get the engine as their parameter and capture no reference: a captured
        // `self` (plain or `unowned(unsafe)`) cost a retain and a release per call.
        if !extraArguments.isEmpty, case let extras = extraArguments.take(receiver: frame.receiver, selector: method.selector),
           !extras.isEmpty {
            let count = signature.argumentCount - 1
            return try call(function, argumentCount: count + extras.count) { engine, args in
                args[0] = engine.box(frame.receiver, retain: receiverRetained, inEntry: true)
                for i in 2..<signature.argumentCount { args[i - 1] = try engine.toJS(frame.argument(i), signature.argument(i), inEntry: true) }
                for (i, value) in extras.enumerated() { args[count + i] = value }
            }
        }
        if method.hasStructArguments, let adapter = try structs.callAdapter(for: signature, ctx) {
            return try call(adapter.function, argumentCount: 2 + adapter.parameterCount, madeByEngine: true) { engine, args in
                args[0] = function
                args[1] = engine.box(frame.receiver, retain: receiverRetained, inEntry: true)
                var next = 2
                for i in 2..<signature.argumentCount {
                    if let layout = adapter.structArguments[i - 2] {
                        for field in layout.fields {
                            args[next] = try engine.toJS(frame.argument(i) + field.offset, field.type, inEntry: true)
                            next += 1
                        }
                    } else {
                        args[next] = try engine.toJS(frame.argument(i), signature.argument(i), inEntry: true)
                        next += 1
                    }
                }
            }
        }
        let count = signature.argumentCount - 1   // the receiver, then the arguments after _cmd
        if count - 1 < runtime.nativeEntryCount {
            // The usual call: through the entry for its argument count, the wrapper first.
            return try call(runtime.nativeEntries[count - 1], argumentCount: count + 1, madeByEngine: true) { engine, args in
                args[0] = function
                args[1] = engine.box(frame.receiver, retain: receiverRetained, inEntry: true)
                for i in 2..<signature.argumentCount {
                    args[i] = try engine.toJS(frame.argument(i), signature.argument(i), inEntry: true)
                }
            }
        }
        return try call(function, argumentCount: count) { engine, args in
            // self inside dealloc must not be retained: the object is going away.
            args[0] = engine.box(frame.receiver, retain: receiverRetained, inEntry: true)
            for i in 2..<signature.argumentCount {
                args[i - 1] = try engine.toJS(frame.argument(i), signature.argument(i), inEntry: true)
            }
        }
    }

    func describeMethod(_ method: JSMethod, _ receiver: UnsafeMutableRawPointer?) -> String {
        let isClass = receiver.map { PEObjectGetKind($0) == PEObjectKindClass } ?? false
        return "\(isClass ? "+" : "-")[\(method.className) \(method.selector)]"
    }

    /// A script whose JS ran past the time limit (or grew memory past the heap growth limit) is
    /// taken out: it would most likely do it again.
    /// After JS that native code entered failed: a timeout reverts the script whose JS ran away,
    /// the innermost JS method's (`ExecutionTimeout.script`), else the entry's `script`.
    func revertIfTimedOut(_ error: Error, script: String?) {
        guard let timeout = error as? ExecutionTimeout else { return }
        if let blamed = timeout.script ?? script { revertAfterTimeout(blamed, timeout) }
        collectAfterHeapGrowth(timeout)
    }

    func revertAfterTimeout(_ script: String, _ timeout: ExecutionTimeout) {
        guard transactions.isApplied(script) else { return }
        rollBack(script)
        log("\(script) was reverted: \(timeout.bound)")
    }

    /// After an entry ended for its heap growth, once the thread is out of JS: what it grew is
    /// collected and handed back to the system now, not whenever the next collection comes.
    func collectAfterHeapGrowth(_ timeout: ExecutionTimeout) {
        guard timeout.heapGrowth != nil, PEThreadEntryCurrent() == 0 else { return }
        collectGarbageNow()
        releaseFreeMemory()
    }

    /// A JS exception or bridge failure as a PatchError positioned in the user's source.
    func patchError(_ error: Error, script: String, context: String? = nil) -> PatchError {
        if let timeout = error as? ExecutionTimeout {
            let what = context ?? "JS code"
            let relation = what.hasPrefix("-[") || what.hasPrefix("+[") ? "patched by" : "from"
            guard let running = timeout.script, running != script else {
                return PatchError(kind: timeout.kind, message: timeout.message(for: "\(what) (\(relation) \(script))"), scriptName: script)
            }
            // A JS method of another script, called directly from this one's JS, ran away.
            return PatchError(kind: timeout.kind, message: timeout.message(for: "\(what) (\(relation) \(script)), in JS of \(running),"),
                              scriptName: running)
        }
        let prefix = context.map { "\($0): " } ?? ""
        if let js = error as? JSException {
            let location = userLocation(of: js, script: script)
            return PatchError(kind: .runtime, message: prefix + js.message, scriptName: location.scriptName,
                              line: location.line, column: location.column)
        }
        return PatchError(kind: .runtime, message: prefix + "\(error)", scriptName: script)
    }

    // MARK: performSelectorInOC

    /// JSPatch's performSelectorInOC: the JS method returns a request; the call runs natively after
    /// JS has returned, then the callback's result becomes the method's result.
    func performInOCRequest(_ value: JSValueRef) -> (() throws -> JSValueRef)? {
        guard JSValueIsObject(ctx, value), !isBox(value), let object = JSValueToObject(ctx, value, nil),
              JSValueToBoolean(ctx, JSC.get(ctx, object, "__performInOC")) else { return nil }
        return { [self] in
            let (target, selector, args, callback) = try runningScriptCode {
                (JSC.get(ctx, object, "obj"), JSC.toString(ctx, JSC.get(ctx, object, "selector")), JSC.get(ctx, object, "args"),
                 JSC.get(ctx, object, "callback"))
            }
            // The send itself runs outside every entry, as JSPatch's does (the API lock is not held
            // around native code); reading `args` and converting them runs inside one.
            let result = try callMethod(target, selector, args, readingInEntry: true)
            guard let fn = JSValueToObject(ctx, callback, nil), JSObjectIsFunction(ctx, fn) else { return result }
            return try call(fn, [result])
        }
    }
}
