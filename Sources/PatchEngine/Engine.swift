import CJavaScriptCore
import Foundation
import PatchRuntime
import PatchSupport

/// One JavaScript VM of the engine (a context group and its global context) with the state of
/// that VM, and the process-wide state every VM shares (tables, transactions, registries).
///
/// `shared` is the main VM: scripts are evaluated there. A thread whose patched call finds the
/// main VM in use by another thread runs it in a secondary VM of `pool`, into which the applied
/// scripts' definitions were replayed (VMPool.swift, docs/threads.md): JavaScriptCore hands its
/// API lock back last-in first-out across the threads of one VM, so threads sharing a VM wait for
/// each other.
///
/// Threading: JavaScriptCore serialises execution per VM (its API lock is held for the whole of a
/// JS call, native callbacks included), so per-call JS state lives in runtime.js. Swift tables are
/// in `tables`, whose lock is never held while entering JavaScript (a patched method running on
/// another thread may be inside JS waiting for it); per-script state is in `transactions`.
final class Engine: @unchecked Sendable {
    /// The engine, started on first use. A static let is initialised once (swift_once): other
    /// first users wait until start-up is complete, so the engine is published only then, and
    /// every later read is a plain load with no lock (it is on every JS-patched and block call).
    /// Start-up must not reach `shared` again (it would wait for itself).
    static let shared: Engine = {
        let engine = Engine(main: nil, index: 0)
        engine.start()
        PEEngineMarkStarted()
        return engine
    }()

    /// Place in `pool`: 0 for the main VM (`shared`).
    let index: Int
    /// The VMs of the process (VMPool.swift); the same object in every engine.
    let pool: VMPool
    /// Who is in this VM, in one word changed atomically: the threads holding it for a call
    /// (`VMPool`: `claimIfFree` / `giveBack`, at most one) in the low bits, the threads with an
    /// entry open (`entering`) in units of `openEntry` above them. Zero: free. One word, so an
    /// entry and a claim each cost one atomic operation in and one out (they were two words).
    let occupancy: UnsafeMutablePointer<Int>
    /// One thread's entry in `occupancy` (`PEVMOpenEntry`, shared with the drop-order tracker).
    static let openEntry = PEVMOpenEntry
    /// A secondary VM's record of the scripts replayed into it (nil for the main VM).
    let replayed: ReplayLog?

    /// Holds this VM for the calling thread if no thread is in it or holds it (`occupancy` 0 → 1):
    /// how `VMPool` hands a VM to one thread. `giveBack` ends the hold.
    @inline(__always) func claimIfFree() -> Bool { PEAtomicCompareExchangeLong(occupancy, 0, 1) }
    @inline(__always) func giveBack() { PEAtomicAddLong(occupancy, -1) }

    /// The engine if it has been started, without starting it: the flag is set after start-up,
    /// so reading `shared` then never waits nor starts anything.
    static var ifStarted: Engine? { PEEngineIsStarted() ? shared : nil }

    static var isStarted: Bool { PEEngineIsStarted() }

    let ctx: JSGlobalContextRef
    /// The time limit applies per context group, so the context gets a group of its own.
    let contextGroup: JSContextGroupRef
    let timeLimit: ExecutionTimeLimit
    /// JavaScriptCore's undefined, to recognise a result without a call into JavaScriptCore (on
    /// 64-bit it is one constant; where values are wrapped, a comparison only misses). Protected,
    /// so a wrapper's address is never reused for another value.
    let undefinedValue: JSValueRef
    /// Reads values, boxes and objects of the engine's classes without a (lock-taking) C API
    /// call, where the layouts checked at start allow it and the environment doesn't turn that off
    /// (`LayoutShortcuts`). The value encoding is checked in `init`, the object layouts in
    /// `start()`, after runtime.js and before the engine is published; read without a lock afterwards.
    @exclusivity(unchecked) private(set) var shortcuts: LayoutShortcuts
    /// The live box of each object that has one (see `BoxCache`).
    let boxCache: BoxCache
    /// JavaScriptCore's API lock held across several calls, where JavaScriptCore offers it.
    let apiLock: APILock
    let objectClass: JSClassRef
    let weakObjectClass: JSClassRef
    let pointerClass: JSClassRef
    let blockFunctionClass: JSClassRef
    private let nativeFunctionClass: JSClassRef
    /// The prototype of every box (runtime.js's `OCObject`): a plain object, so that property
    /// lookups through it are cached by JavaScriptCore. Protected for the process.
    let objectPrototype: JSObjectRef
    /// runtime.js's DirectStamp (DirectCalls.swift), which stamps a box with a private field.
    var directStamp: JSObjectRef?
    /// runtime.js's `N`: the `.runtime` bindings of `NativeBinding.table` (protected).
    var runtimeBindings: JSObjectRef!
    /// What direct.js's module gave runtime.js, once loaded (DirectCalls.swift): the lock makes
    /// every other first caller wait for the one loading it.
    let directCallsModule = LockedValue<JSObjectRef?>(nil)
    /// What one patch may ask of the runtime (`PatchLimits`), and the counts held against it.
    let limits: LockedValue<PatchLimits>
    let createdClasses: LockedValue<[String: Int]>
    let pendingDispatchCount: LockedValue<Int>
    /// runtime.js's table of `_`-prefixed JS-only methods (className → name → wrapper); this and
    /// the next three come from runtime.js's handshake (`takeHandshake`).
    var jsOnlyTable: JSObjectRef!
    var jsOnlyRemover: JSObjectRef!

    /// A native function callable from JS; its closure is the private data of its JS object.
    typealias NativeFunction = (_ ctx: JSContextRef, _ this: JSObjectRef?, _ args: [JSValueRef]) throws -> JSValueRef?

    var scriptGetter: JSObjectRef?
    /// runtime.js's `frame`, whose `context` is the JS method running (see `resetCallContext`).
    var callFrame: JSObjectRef?

    /// Tables any thread may read or change (see `EngineTables`).
    let tables: LockedValue<EngineTables>
    /// Selector numbers of JS → Objective-C sends (`MessageSends.swift`); guarded by the JS lock.
    let sendSelectors = SendSelectors()

    /// Serialises evaluate() (include() nests on the same thread) and replays.
    let evaluationLock: NSRecursiveLock
    /// The evaluations in progress, innermost last: which script a definition made at the top level
    /// of a script belongs to. Read by native callbacks, possibly while another thread pushes.
    let evaluationStack: LockedValue<[Evaluation]>

    let structs: StructRegistry
    /// JSPatch's engine object and extensions (JSPatchSurface.swift).
    let jspatch: JSPatchState
    /// Arguments beyond a selector's, on their way to the JS method a call enters.
    let extraArguments = ExtraArguments()
    let protocols: ProtocolRegistry
    let transactions: TransactionLog

    /// The main VM (`main` nil) or a secondary one sharing `main`'s process-wide state.
    init(main: Engine?, index: Int) {
        self.index = index
        occupancy = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        occupancy.initialize(to: 0)
        pool = main?.pool ?? VMPool()
        replayed = main == nil ? nil : ReplayLog()
        limits = main?.limits ?? LockedValue(PatchLimits())
        createdClasses = main?.createdClasses ?? LockedValue([:])
        pendingDispatchCount = main?.pendingDispatchCount ?? LockedValue(0)
        tables = main?.tables ?? LockedValue(EngineTables())
        evaluationLock = main?.evaluationLock ?? NSRecursiveLock()
        evaluationStack = main?.evaluationStack ?? LockedValue([])
        structs = main?.structs ?? StructRegistry()
        jspatch = JSPatchState(sharingWith: main?.jspatch)
        protocols = main?.protocols ?? ProtocolRegistry()
        transactions = main?.transactions ?? TransactionLog()
        contextGroup = JSContextGroupCreate()
        ctx = JSGlobalContextCreateInGroup(contextGroup, nil)
        timeLimit = ExecutionTimeLimit(group: contextGroup)
        undefinedValue = JSValueMakeUndefined(ctx)
        JSValueProtect(ctx, undefinedValue)
        shortcuts = LayoutShortcuts(verifyingValuesIn: ctx)
        let classes = Self.jsClasses
        objectClass = classes.object
        weakObjectClass = classes.weakObject
        pointerClass = classes.pointer
        blockFunctionClass = classes.blockFunction
        nativeFunctionClass = classes.nativeFunction
        objectPrototype = JSObjectMake(ctx, nil, nil)!
        JSValueProtect(ctx, objectPrototype)
        boxCache = BoxCache(ctx: ctx)
        apiLock = APILock()
    }

    /// Starts the VM: the native bindings and runtime.js; for the main VM also the runtime's
    /// handlers. A secondary VM takes the main VM's limits (`VMPool.makeVM`).
    func start() {
        let isMain = index == 0
        if isMain {
            PEThreadRegister()
            // getenv, not ProcessInfo's environment, which builds a dictionary of it all (≈ 0.2 ms).
            if let route = getenv("PATCHENGINE_DISPATCH_ROUTE"), String(cString: route) == "forwarding" {
                PESetDefaultRoute(PERouteForwarding)
            }
        }
        let native = JSObjectMake(ctx, nil, nil)!
        JSValueProtect(ctx, native)
        runtimeBindings = native
        JSC.set(ctx, native, "objectPrototype", objectPrototype)
        JSC.set(ctx, native, "send", JSObjectMakeFunctionWithCallback(ctx, nil, Engine.sendFunction))
        JSC.set(ctx, native, "nsnull", box(PENull()))
        JSC.set(ctx, native, "codes", makeScriptCodes([DirectValueCode.self, DispatchKind.self]))
        installBindings(.runtime, into: native)
        installBindings(.global, into: JSContextGetGlobalObject(ctx))
        JSC.set(ctx, JSContextGetGlobalObject(ctx), "__PatchEngineNative", native)
        if isMain {
            installRuntimeHandlers()
            PESetObjectDeallocHandler { object in
                if let object, let engine = Engine.ifStarted { engine.objectDeallocated(object) }
            }
            PESetObjectDeallocEndHandler { object in
                if let object, let engine = Engine.ifStarted { engine.objectDeallocEnded(object) }
            }
        }
        do {
            try takeHandshake(evaluateRaw(Self.runtimeSource(), sourceURL: Self.runtimeScriptName))
        } catch {
            fatalError("PatchEngine: runtime.js failed to load: \(error)")
        }
        let (context, prototype) = (ctx, objectPrototype)
        shortcuts.verifyObjects(in: ctx, classes: [objectClass, pointerClass], handleClass: objectClass,
                                makeBox: { Self.makeBoxObject(context, handle: $0, prototype: prototype) })
        // After runtime.js, which must load however slow the machine is.
        if !timeLimit.isAvailable {
            if isMain {
                log("this JavaScriptCore has no execution time limit: scripts are not stopped when they run away or grow memory without bound")
            }
        } else if isMain {
            timeLimit.heapGrowth.bytes = PatchEngine.defaultHeapGrowthLimit
            apiLock.withLock(ctx) { _ = timeLimit.set(PatchEngine.defaultExecutionTimeLimit) }
        }
    }

    /// What runtime.js evaluates to: the JS state the engine reads and calls (`{jsOnlyTable,
    /// jsOnlyRemover, callFrame, scriptGetter}`), kept protected for the VM's life.
    private func takeHandshake(_ value: JSValueRef) throws {
        guard let handshake = JSValueToObject(ctx, value, nil) else { throw BridgeError("runtime.js returned no handshake") }
        func member(_ name: String, function: Bool) throws -> JSObjectRef {
            guard let object = JSValueToObject(ctx, JSC.get(ctx, handshake, name), nil), !function || JSObjectIsFunction(ctx, object) else {
                throw BridgeError("runtime.js's handshake has no \(name)")
            }
            JSValueProtect(ctx, object)
            return object
        }
        jsOnlyTable = try member("jsOnlyTable", function: false)
        jsOnlyRemover = try member("jsOnlyRemover", function: true)
        callFrame = try member("callFrame", function: false)
        scriptGetter = try member("scriptGetter", function: true)
    }

    /// This VM's limits set to the main VM's (for a new secondary VM, and when they change).
    func takeLimits(from main: Engine) {
        guard timeLimit.isAvailable else { return }
        timeLimit.heapGrowth.bytes = main.timeLimit.heapGrowth.bytes
        apiLock.withLock(ctx) { _ = timeLimit.set(main.timeLimit.seconds) }
    }

    /// runtime.js: compiled into the library where the compiler can embed it (PERuntimeScript.h),
    /// else read from the package's resources.
    static func runtimeSource() -> String { engineScript(PERuntimeScriptSource(), "runtime") }

    /// direct.js (DirectCalls.swift), the same way.
    static func directCallsSource() -> String { engineScript(PEDirectCallsScriptSource(), "direct") }

    static func engineScript(_ embedded: UnsafePointer<CChar>?, _ name: String) -> String {
        if let embedded { return String(cString: embedded) }
        guard let url = Bundle.module.url(forResource: name, withExtension: "js"),
              let source = try? String(contentsOf: url, encoding: .utf8) else {
            fatalError("PatchEngine: \(name).js is missing from the package resources")
        }
        return source
    }

    // MARK: JS classes

    /// The engine's JS classes, the same for every VM (a class is not bound to a VM).
    private static let jsClasses = makeJSClasses()

    private static func makeJSClasses() -> (object: JSClassRef, weakObject: JSClassRef, pointer: JSClassRef,
                                            blockFunction: JSClassRef, nativeFunction: JSClassRef) {
        var def = kJSClassDefinitionEmpty
        def.className = UnsafePointer(strdup("OCObject"))
        def.finalize = { object in PEDeferRelease(JSObjectGetPrivate(object)) }
        let objectClass = JSClassCreate(&def)!

        var weakDef = kJSClassDefinitionEmpty
        weakDef.className = UnsafePointer(strdup("OCWeakObject"))
        // The weak-box table is every VM's (`tables`).
        weakDef.finalize = { object in Engine.shared.forgetWeakBox(object!, object: JSObjectGetPrivate(object)) }
        let weakObjectClass = JSClassCreate(&weakDef)!

        var pointerDef = kJSClassDefinitionEmpty
        pointerDef.className = UnsafePointer(strdup("OCPointer"))
        let pointerClass = JSClassCreate(&pointerDef)!

        var blockDef = kJSClassDefinitionEmpty
        blockDef.className = UnsafePointer(strdup("OCBlock"))
        blockDef.finalize = { object in PEDeferRelease(JSObjectGetPrivate(object)) }
        blockDef.callAsFunction = { ctx, function, _, argc, argv, exception in
            let engine = Engine.of(ctx!)
            return engine.afterLockDrop {
                if engine.refusedDuringReplay(ctx!, exception) { return JSValueMakeUndefined(ctx) }
                return engine.callNativeBlock(ctx!, function!, argc, argv, exception)
            }
        }
        let blockFunctionClass = JSClassCreate(&blockDef)!

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
        let nativeFunctionClass = JSClassCreate(&fnDef)!
        return (objectClass, weakObjectClass, pointerClass, blockFunctionClass, nativeFunctionClass)
    }

    /// Adds a native function as property `name` of `object`. It inherits Function.prototype, so
    /// scripts can bind, call and apply it like any function.
    /// Only a `replayable` one may be called by a replay (`NativeBinding.Replay`).
    func addFunction(_ object: JSObjectRef, _ name: String, replayable: Bool = false, _ body: @escaping NativeFunction) {
        let box = Unmanaged.passRetained(NativeFunctionBox(body, replayable: replayable, engine: self)).toOpaque()
        let fn = JSObjectMake(ctx, nativeFunctionClass, box)
        if functionPrototype == nil {
            let function = JSC.get(ctx, JSContextGetGlobalObject(ctx), "Function")
            functionPrototype = JSC.get(ctx, JSValueToObject(ctx, function, nil)!, "prototype")
            JSValueProtect(ctx, functionPrototype)
        }
        JSObjectSetPrototype(ctx, fn, functionPrototype)
        JSC.set(ctx, object, name, fn)
    }
    private var functionPrototype: JSValueRef?

    // MARK: Evaluation

    /// Evaluates code as is; a JS exception becomes `JSException` (`JSThrown` when
    /// `passingExceptions`, for a native function to raise it again unchanged), a termination by
    /// the time limit `ExecutionTimeout`.
    /// `topLevel`: a script's top level, which runs with runtime.js's per-call context of no
    /// method (restored after). Without it, an evaluation made while another thread is inside a
    /// patched call's native call (its JS nested in that call's entry) found that call's method as
    /// the context, and recorded its definitions under that method's script.
    /// `replaying`: the code is a replay's (`Replay`), whose native calls are restricted.
    func evaluateRaw(_ code: String, sourceURL: String, passingExceptions: Bool = false, topLevel: Bool = false,
                     replaying: Bool = false) throws -> JSValueRef {
        let script = JSC.string(code), url = JSC.string(sourceURL)
        defer { JSStringRelease(script); JSStringRelease(url) }
        var exception: JSValueRef?
        var error: Error?
        var outerBatch = PEPoolBatchState()
        PEPoolEntryBegin(&outerBatch)
        let result = entering { () -> JSValueRef? in
            let saved = topLevel ? enterTopLevel() : nil
            let outerReplay = replaying ? PEThreadReplayingSwap(Unmanaged.passUnretained(self).toOpaque()) : nil
            defer {
                if replaying { PEThreadReplayingSwap(outerReplay) }
                if let saved { leaveTopLevel(saved) }
            }
            let result = JSEvaluateScript(ctx, script, nil, url, 1, &exception)
            if let exception { error = thrownError(exception) }
            return result
        }
        PEPoolEntryEnd(&outerBatch)
        if let exception, let error {
            if passingExceptions, error is JSException { throw JSThrown(value: exception) }
            throw error
        }
        return result ?? JSValueMakeUndefined(ctx)
    }

    /// Runs `body`, an entry into JS, under the API lock and inside the thread's entry record, so
    /// the time limit judges this thread by this entry (`ExecutionTimeLimit`). An exception is
    /// classified inside too: after a termination runtime.js's per-call context is reset before
    /// another thread can run JS with it.
    /// The drop-order tracker (`PELockDropOrder.h`) learns that this thread's JS begins here.
    /// The thread's current engine is this one inside (`PEThreadEngineCurrent`), and the VM
    /// counts the thread as inside it (`occupancy`), so a patched call on another thread takes
    /// another VM (`VMPool`).
    /// An entry into a secondary VM is no replay's JS (`PEThreadReplaying`): a replay marks its
    /// own inside its entry (`evaluateRaw(replaying:)`); this one may be app code a replay's native
    /// call ran on this thread (+initialize).
    @inline(__always) func entering<R>(_ body: () throws -> R) rethrows -> R {
        let me = Unmanaged.passUnretained(self).toOpaque()
        let previous = PEThreadEngineSwap(me)
        let arriving = previous != me
        let replaying = replayed == nil ? nil : PEThreadReplaying()
        if replaying != nil { PEThreadReplayingSwap(nil) }
        defer { if replaying != nil { PEThreadReplayingSwap(replaying) } }
        // Whether another thread has an entry open in this VM (then JavaScriptCore nests this
        // entry in that thread's and starts no clock for it: `ExecutionTimeLimit.beginEntry`).
        let othersInVM = arriving && PEAtomicAddLong(occupancy, Engine.openEntry) >= 2 * Engine.openEntry
        defer {
            PEThreadEngineSwap(previous)
            if arriving { PEAtomicAddLong(occupancy, -Engine.openEntry) }
        }
        return try apiLock.withLock(ctx) {
            let dropOrder = PELockDropOrderJSBegin()
            timeLimit.beginEntry(othersInVM: othersInVM)
            defer { timeLimit.endEntry(); PELockDropOrderJSEnd(dropOrder) }
            return try body()
        }
    }

    /// Runs `body`, the native work of a JS → native callback (JavaScriptCore has just dropped
    /// the API lock), inside the drop-order tracker: when it is done the thread waits, blocked,
    /// for every thread that entered a callback after it to leave its own, instead of spinning in
    /// JavaScriptCore's `grabAllLocks` (docs/threads.md). Every callback the engine registers
    /// goes through here: native functions (`addFunction`), `N.send`, block functions.
    /// The tracker may skip its list while this thread is alone in the VM (`occupancy`), which it
    /// can tell only when the thread's entry is counted there: JS run outside `entering` (a JS
    /// getter a C API call on native code's side ran) passes no occupancy and is listed.
    @inline(__always) func afterLockDrop<R>(_ body: () -> R) -> R {
        let counted = PEThreadEngineCurrent() == Unmanaged.passUnretained(self).toOpaque()
        let record = PELockDropOrderPush(UnsafeRawPointer(contextGroup), counted ? UnsafePointer(occupancy) : nil)
        defer { PELockDropOrderPop(record) }
        return body()
    }

    func checkSyntax(_ code: String, sourceURL: String) throws {
        let script = JSC.string(code), url = JSC.string(sourceURL)
        defer { JSStringRelease(script); JSStringRelease(url) }
        var exception: JSValueRef?
        if !JSCheckScriptSyntax(ctx, script, url, 1, &exception), let exception {
            throw JSException(ctx: ctx, value: exception)
        }
    }

    /// Performs the releases JS finalizers queued (see PEDeferRelease). Called where no JS
    /// collection can be running: after each native → JS entry returns.
    @inline(__always) func drainReleases() { PEDrainDeferredReleases() }

    /// What an exception returned by an entry into JS becomes: `ExecutionTimeout` for a
    /// termination by the time limit, `JSException` otherwise.
    /// Called inside `entering`, with the API lock held.
    private func thrownError(_ exception: JSValueRef) -> Error {
        let js = JSException(ctx: ctx, value: exception)
        let termination = timeLimit.termination(of: exception, js, ctx: ctx)
        if termination == .none { return js }
        let running = runningScript()
        resetCallContext()
        switch termination {
        case .otherThreads: return ExecutionEndedForAnotherThread()
        case let .heapGrowth(exceeded): return ExecutionTimeout(limit: timeLimit.seconds ?? 0, script: running, heapGrowth: exceeded)
        default: return ExecutionTimeout(limit: timeLimit.seconds ?? 0, script: running)
        }
    }

    /// The script of the JS method runtime.js's per-call context names (a plain property read).
    private func runningScript() -> String? {
        guard let callFrame, let context = JSValueToObject(ctx, JSC.get(ctx, callFrame, "context"), nil) else { return nil }
        let script = JSC.get(ctx, context, "script")
        return JSValueIsString(ctx, script) ? JSC.toString(ctx, script) : nil
    }

    /// Swaps runtime.js's per-call context (and the global `self`) for those of no method
    /// (`resetCallContext`); returns the previous ones, protected. Under the API lock.
    private func enterTopLevel() -> (context: JSValueRef, globalSelf: JSValueRef)? {
        guard let callFrame else { return nil }
        let saved = (context: JSC.get(ctx, callFrame, "context"), globalSelf: JSC.get(ctx, JSContextGetGlobalObject(ctx), "self"))
        JSValueProtect(ctx, saved.context); JSValueProtect(ctx, saved.globalSelf)
        resetCallContext()
        return saved
    }

    private func leaveTopLevel(_ saved: (context: JSValueRef, globalSelf: JSValueRef)) {
        guard let callFrame else { return }
        JSC.set(ctx, callFrame, "context", saved.context)
        JSC.set(ctx, JSContextGetGlobalObject(ctx), "self", saved.globalSelf)
        JSValueUnprotect(ctx, saved.context); JSValueUnprotect(ctx, saved.globalSelf)
    }

    /// Makes runtime.js's per-call context that of no method (`self` undefined, no defining class),
    /// by property stores through the C API, which run no JS. After a termination: the terminated
    /// JS skipped its `finally` blocks, so the context is the terminated method's; the stores are
    /// done even while the VM is still terminating (a JS resetter was itself ended then, and the
    /// next script's definitions were recorded under the runaway's name). Under the API lock,
    /// before another thread runs JS.
    private func resetCallContext() {
        guard let callFrame else { return }
        let context = JSObjectMake(ctx, nil, nil)!
        JSC.set(ctx, context, "self", undefinedValue)
        JSC.set(ctx, context, "definingClass", JSValueMakeNull(ctx))
        JSC.set(ctx, callFrame, "context", context)
        JSC.set(ctx, JSContextGetGlobalObject(ctx), "self", undefinedValue)
    }

    /// Calls a JS function; a JS exception becomes `JSException`, a termination by the time
    /// limit `ExecutionTimeout`.
    func call(_ function: JSObjectRef, this: JSObjectRef? = nil, _ args: [JSValueRef?]) throws -> JSValueRef {
        try args.withUnsafeBufferPointer { try call(function, this: this, arguments: $0) }
    }

    /// The same, with the arguments in caller-provided storage.
    func call(_ function: JSObjectRef, this: JSObjectRef? = nil, arguments: UnsafeBufferPointer<JSValueRef?>) throws -> JSValueRef {
        var exception: JSValueRef?
        var error: Error?
        var outerBatch = PEPoolBatchState()
        PEPoolEntryBegin(&outerBatch)
        let result = entering { () -> JSValueRef? in
            let result = JSObjectCallAsFunction(ctx, function, this, arguments.count, arguments.baseAddress, &exception)
            if let exception { error = thrownError(exception) }
            return result
        }
        PEPoolEntryEnd(&outerBatch)
        if let error { throw error }
        return result ?? JSValueMakeUndefined(ctx)
    }

    /// Calls a JS function with `count` arguments that `makeArguments` writes into a stack buffer
    /// (where JavaScriptCore's conservative stack scan sees each while the next is made), making
    /// them and calling under one hold of the API lock.
    func call(_ function: JSObjectRef, argumentCount count: Int,
              _ makeArguments: (UnsafeMutablePointer<JSValueRef?>) throws -> Void) throws -> JSValueRef {
        var exception: JSValueRef?
        var error: Error?
        var outerBatch = PEPoolBatchState()
        PEPoolEntryBegin(&outerBatch)
        defer { PEPoolEntryEnd(&outerBatch) }   // after the lock is released: draining runs -dealloc
        let result = try withUnsafeTemporaryAllocation(of: JSValueRef?.self, capacity: max(count, 1)) { buffer in
            let args = buffer.baseAddress!
            args.initialize(repeating: nil, count: max(count, 1))
            return try entering { () -> JSValueRef? in
                try makeArguments(args)
                let result = JSObjectCallAsFunction(ctx, function, nil, count, args, &exception)
                if let exception { error = thrownError(exception) }
                return result
            }
        }
        if let error { throw error }
        return result ?? undefinedValue
    }

    /// A full, synchronous collection. JSGarbageCollect only hints one in current JavaScriptCore;
    /// JSSynchronousGarbageCollectForDebugging (`JSCPrivateFunctions`) collects now. Without it,
    /// the hint.
    func collectGarbageNow() {
        if let collect = JSCPrivateFunctions.synchronousGarbageCollect { collect(ctx) } else { JSGarbageCollect(ctx) }
    }

    /// Gives the memory JavaScriptCore's allocator keeps after a collection back to the system now.
    /// Its scavenger does so on its own only a second or so later: right after collecting 1M boxes,
    /// resident memory was still 17 % above where it started, 1 % after this call. WebKit's
    /// `WTF::releaseFastMallocFreeMemory()` (what WebKit calls under memory pressure) is one of
    /// `JSCPrivateFunctions`; where it is absent (Apple's framework keeps WTF private) the
    /// scavenger's timing stands. The C heap's free pages go back too (the objects boxes kept are
    /// malloc blocks: PEPlatformReleaseFreeMallocMemory says what held them).
    func releaseFreeMemory() {
        JSCPrivateFunctions.releaseFastMallocFreeMemory?()
        PEReleaseFreeMallocMemory()
    }

    // MARK: Logging and errors

    func log(_ message: String) {
        if let handler = PatchEngine.logHandler { handler(message) } else {
            FileHandle.standardError.write(Data(("PatchEngine: " + message + "\n").utf8))
        }
    }

    func report(_ error: PatchError) {
        if let handler = PatchEngine.errorHandler { handler(error) } else { log(error.description) }
    }
}

/// A JS exception a native function passes on unchanged (its position stays the thrower's),
/// e.g. one raised by a file `include()` evaluated.
struct JSThrown: Error {
    let value: JSValueRef
}

/// Holds a native function's closure for its JS object.
final class NativeFunctionBox {
    let body: Engine.NativeFunction
    /// Whether a replay of a script's top level may call it (`NativeBinding.Replay`).
    let isReplayable: Bool
    unowned let engine: Engine
    init(_ body: @escaping Engine.NativeFunction, replayable: Bool, engine: Engine) {
        self.body = body
        self.engine = engine
        isReplayable = replayable
    }
}
