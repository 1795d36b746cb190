import CJavaScriptCore
import Foundation
import CPatchEngine
import PatchRuntime
import PatchSupport

/// One JavaScript VM of the engine, and the composition of the engine's components.
///
/// `shared` is the main VM: scripts are evaluated there. A thread whose patched call finds the
/// main VM in use by another thread runs it in a secondary VM of `pool`, into which the applied
/// scripts' definitions were replayed (VMPool.swift, docs/threads.md): JavaScriptCore hands its
/// API lock back last-in first-out across the threads of one VM, so threads sharing a VM wait for
/// each other.
///
/// What an `Engine` holds, and who may touch it:
///
/// | State | Owner | Discipline |
/// |---|---|---|
/// | the VM: context, group, API lock, `occupancy`, time and heap limits, box cache, classes, shortcuts, `keptCalls` | this object's fields (below); `ExecutionTimeLimit`, `BoxCache`, `LayoutShortcuts` | set before the VM is published, read without a lock; JS state under JavaScriptCore's API lock (`entering`, JSEntry.swift); the limits' settings behind their `LockedValue`s |
/// | runtime.js's `N` and handshake, direct.js's module | this object, set by `start()` | written before the VM is published (direct.js: once, under `directCallsModule`) |
/// | selector numbers of sends, extra arguments | `SendSelectors`, `ExtraArguments` (per VM) | a `LockedValue` to add; read without a lock (published slots, an atomic count) |
/// | scripts replayed into a secondary VM | `ReplayLog` (per VM) | the thread holding the VM (`VMPool`) |
/// | JSPatch's surface, C functions / its conversion flag, allocations, extensions | `JSPatchState` (per VM) / `JSPatchProcessState` | the VM's API lock, caches' `LockedValue`s / its `LockedValue`s (the flag: a plain word) |
/// | the VMs | `VMPool` | its `LockedValue`s; a VM is claimed through `occupancy` |
/// | evaluations in progress, their serialisation | `Evaluations` | a recursive lock across JS, a `LockedValue` for the stack |
/// | applied scripts' changes, slot stacks, source maps | `TransactionLog` | its `LockedValue`, never across JS |
/// | `PatchLimits` and the counts against them | `ScriptLimits` | its `LockedValue` |
/// | weak and dealloc-scoped boxes, JS -dealloc bookkeeping | `ObjectLifetimes` | its `LockedValue` |
/// | JS → Objective-C call sites | `CallSiteTable` | its `LockedValue`; records never freed |
/// | struct and protocol definitions | `StructRegistry`, `ProtocolRegistry` | their `LockedValue`s |
///
/// The process's components are made by the main VM and shared by every secondary VM (`init`).
/// No component's lock is held while entering JavaScript (a patched method running on another
/// thread may be inside JS waiting for it), except `Evaluations`' serialising lock, which only
/// evaluations and replays take, and `VMPool`'s, held while a new VM loads runtime.js (a VM no
/// other thread can see yet). The entry path (JSEntry.swift) reads only the VM's own fields,
/// inline here; a call reaches a component only off its common path (a struct argument, an object
/// crossing with `jspatch.autoConvert`'s plain flag, a send's first call at a class, a -dealloc),
/// as before the split.
/// The JS the engine runs is in runtime.js, direct.js and jspatch.js; what each VM's JS may call
/// is `NativeBinding.table` (NativeBindings.swift).
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

    /// The engine if it has been started, without starting it: the flag is set after start-up,
    /// so reading `shared` then never waits nor starts anything.
    static var ifStarted: Engine? { PEEngineIsStarted() ? shared : nil }

    static var isStarted: Bool { PEEngineIsStarted() }

    // MARK: The VM (what the entry path reads)

    /// Place in `pool`: 0 for the main VM (`shared`).
    let index: Int
    /// Who is in this VM, in one word changed atomically: the threads holding it for a call
    /// (`VMPool`: `claimIfFree` / `giveBack`, at most one) in the low bits, the threads with an
    /// entry open (`entering`) in units of `openEntry` above them. Zero: free. One word, so an
    /// entry and a claim each cost one atomic operation in and one out (they were two words).
    let occupancy: UnsafeMutablePointer<Int>
    /// One thread's entry in `occupancy` (`PEVMOpenEntry`, shared with the drop-order tracker).
    static let openEntry = PEVMOpenEntry

    /// Holds this VM for the calling thread if no thread is in it or holds it (`occupancy` 0 → 1):
    /// how `VMPool` hands a VM to one thread. `giveBack` ends the hold.
    @inline(__always) func claimIfFree() -> Bool { PEAtomicCompareExchangeLong(occupancy, 0, 1) }
    @inline(__always) func giveBack() { PEAtomicAddLong(occupancy, -1) }

    /// The same hold with the thread's entry counted at once (0 → 1 + `openEntry`), for the
    /// patched call's fast path (`withFreeVM`): `entering` inside the hold, told by
    /// `PEThreadClaimedEngine`, counts nothing more. One atomic operation in and one out per
    /// patched call, where the hold and the entry made two each (≈ 10 ns a call). The entry is
    /// counted a little longer than its JS runs (the call's arguments and result), which only
    /// makes another thread's lock-drop record listed, never a VM look free.
    @inline(__always) func claimWithEntryIfFree() -> Bool { PEAtomicCompareExchangeLong(occupancy, 0, 1 + Engine.openEntry) }
    @inline(__always) func giveBackWithEntry() { PEAtomicAddLong(occupancy, -(1 + Engine.openEntry)) }

    let ctx: JSGlobalContextRef
    /// The time limit applies per context group, so the context gets a group of its own.
    let contextGroup: JSContextGroupRef
    /// JavaScriptCore's API lock held across several calls, where JavaScriptCore offers it.
    let apiLock: APILock
    /// This VM's execution time and heap growth limits (set like the main VM's: `takeLimits`).
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
    /// The engine's JS classes (the process's, held inline).
    let classes: JSClasses
    /// The prototype of every box (runtime.js's `OCObject`): a plain object, so that property
    /// lookups through it are cached by JavaScriptCore. Protected for the process.
    let objectPrototype: JSObjectRef
    /// `Function.prototype`, which every native function inherits (`addFunction`). Protected.
    let functionPrototype: JSValueRef
    /// Selector numbers of JS → Objective-C sends (`MessageSends.swift`), read without a lock.
    let sendSelectors = SendSelectors()
    /// Arguments beyond a selector's, on their way to the JS method a call enters.
    let extraArguments = ExtraArguments()
    /// Non-zero while runtime.js's names keep calls that hold their receivers (KeptCalls.swift):
    /// written by JS through a typed array, read by `entering` as an entry ends.
    let keptCalls: UnsafeMutablePointer<UInt32>

    // MARK: This VM's scripts (set by `start`)

    /// runtime.js's `N`: the `.runtime` bindings of `NativeBinding.table` (protected).
    private(set) var runtimeBindings: JSObjectRef!
    /// What runtime.js handed back when it loaded.
    private(set) var runtime: RuntimeHandshake!
    /// The entry into runtime.js's functions without the C API's (nil: through the C API).
    private(set) var internalCall: InternalCall?
    #if DEBUG
    /// Tests: runs `body` with this VM's entries through the C API, as where `internalCall` is nil.
    func withoutInternalCall<R>(_ body: () throws -> R) rethrows -> R {
        let kept = internalCall
        internalCall = nil
        defer { internalCall = kept }
        return try body()
    }
    #endif
    /// What direct.js's module gave runtime.js, once loaded (DirectCalls.swift): the lock makes
    /// every other first caller wait for the one loading it.
    let directCallsModule = LockedValue<JSObjectRef?>(nil)
    /// runtime.js's DirectStamp (DirectCalls.swift), which stamps a box with a private field;
    /// written once, under `directCallsModule`.
    var directStamp: JSObjectRef?
    /// JSPatch's surface in this VM, and (`jspatch.process`) what every VM shares of it
    /// (JSPatchSurface.swift).
    let jspatch: JSPatchState
    /// A secondary VM's record of the scripts replayed into it (nil for the main VM).
    let replayed: ReplayLog?

    // MARK: The process's components (the same objects in every VM)

    /// The VMs of the process (VMPool.swift).
    let pool: VMPool
    /// The evaluations in progress and the lock serialising them: which script a definition made
    /// at the top level of a script belongs to.
    let evaluations: Evaluations
    /// Every applied script's changes, and how to undo them.
    let transactions: TransactionLog
    /// What one patch may ask of the runtime (`PatchLimits`), and the counts held against it.
    let limits: ScriptLimits
    /// Weak and dealloc-scoped boxes, and JS -dealloc bookkeeping (`ObjectLifetimes`).
    let lifetimes: ObjectLifetimes
    /// JS → Objective-C call sites, resolved once per class and selector (`CallSiteTable`).
    let callSites: CallSiteTable
    let structs: StructRegistry
    let protocols: ProtocolRegistry

    /// The main VM (`main` nil) or a secondary one sharing `main`'s process-wide components.
    init(main: Engine?, index: Int) {
        self.index = index
        occupancy = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        occupancy.initialize(to: 0)
        keptCalls = UnsafeMutablePointer<UInt32>.allocate(capacity: 1)
        keptCalls.initialize(to: 0)
        contextGroup = JSContextGroupCreate()
        ctx = JSGlobalContextCreateInGroup(contextGroup, nil)
        apiLock = APILock()
        timeLimit = ExecutionTimeLimit(group: contextGroup, occupancy: occupancy)
        undefinedValue = JSValueMakeUndefined(ctx)
        JSValueProtect(ctx, undefinedValue)
        shortcuts = LayoutShortcuts(verifyingValuesIn: ctx)
        boxCache = BoxCache(group: contextGroup, lockAvailable: apiLock.isAvailable)
        classes = JSClasses.shared
        objectPrototype = JSObjectMake(ctx, nil, nil)!
        JSValueProtect(ctx, objectPrototype)
        let function = JSC.get(ctx, JSContextGetGlobalObject(ctx), "Function")
        functionPrototype = JSC.get(ctx, JSValueToObject(ctx, function, nil)!, "prototype")
        JSValueProtect(ctx, functionPrototype)

        jspatch = JSPatchState(process: main?.jspatch.process ?? JSPatchProcessState())
        replayed = main == nil ? nil : ReplayLog()

        pool = main?.pool ?? VMPool()
        evaluations = main?.evaluations ?? Evaluations()
        transactions = main?.transactions ?? TransactionLog()
        limits = main?.limits ?? ScriptLimits()
        lifetimes = main?.lifetimes ?? ObjectLifetimes()
        callSites = main?.callSites ?? CallSiteTable()
        structs = main?.structs ?? StructRegistry()
        protocols = main?.protocols ?? ProtocolRegistry()
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
        JSC.set(ctx, native, "tickCounter", timeLimit.makeCounterArray(ctx))
        JSC.set(ctx, native, "keptCalls", makeKeptCallsArray())
        installBindings(.runtime, into: native)
        installBindings(.global, into: JSContextGetGlobalObject(ctx))
        JSC.set(ctx, JSContextGetGlobalObject(ctx), "__PatchEngineNative", native)
        if isMain {
            installRuntimeHandlers()
            PESetObjectDeallocHandler { object in
                if let object, let engine = Engine.ifStarted { engine.lifetimes.objectDeallocated(object) }
            }
            PESetObjectDeallocEndHandler { object in
                if let object, let engine = Engine.ifStarted { engine.lifetimes.objectDeallocEnded(object) }
            }
        }
        do {
            runtime = try RuntimeHandshake(evaluateRaw(EngineScript.runtime.source, sourceURL: EngineScript.runtime.fileName), ctx: ctx)
        } catch {
            fatalError("PatchEngine: runtime.js failed to load: \(error)")
        }
        apiLock.withLock(ctx) { internalCall = InternalCall.make(ctx, probe: runtime.internalCallProbe, lockHeld: apiLock.isAvailable) }
        let (context, prototype) = (ctx, objectPrototype)
        shortcuts.verifyObjects(in: ctx, classes: [classes.object, classes.pointer], handleClass: classes.object,
                                makeBox: { Self.makeBoxObject(context, handle: $0, prototype: prototype) })
        // After runtime.js, which must load however slow the machine is.
        if isMain {
            timeLimit.heapGrowth.bytes = PatchEngine.defaultHeapGrowthLimit
            apiLock.withLock(ctx) { timeLimit.set(PatchEngine.defaultExecutionTimeLimit) }
        }
    }

    /// This VM's limits set to the main VM's (for a new secondary VM, and when they change).
    func takeLimits(from main: Engine) {
        timeLimit.heapGrowth.bytes = main.timeLimit.heapGrowth.bytes
        apiLock.withLock(ctx) { timeLimit.set(main.timeLimit.seconds) }
    }

    /// A full, synchronous collection. JSGarbageCollect only hints one in current JavaScriptCore;
    /// JSSynchronousGarbageCollectForDebugging (`JSCPrivateFunctions`) collects now. Without it,
    /// the hint.
    func collectGarbageNow() {
        if let collect = JSCPrivateFunctions.synchronousGarbageCollect { collect(ctx) } else { JSGarbageCollect(ctx) }
    }

    /// Drops every function's compiled code in this VM, so the collection after it frees the
    /// code and what the compilers keep with it (JavaScriptCore compiles a function again when it
    /// runs again, from its first tier). A process that has run a script's functions hot holds
    /// megabytes of it: 10,000 apply/revert cycles grew resident memory ≈ 3.5 MB, all of it the
    /// optimizing tiers' code of runtime.js's functions (Benchmarks/README.md). WebKit drops it
    /// the same way under critical memory pressure. JavaScriptCore defers the deletion while JS
    /// is on the VM's stack (a native function JS called, or another thread's entry between its
    /// callbacks), to when that JS has returned. Without the symbol or the API lock
    /// (`JSCPrivateFunctions`), nothing is dropped here.
    func deleteCompiledCode() {
        guard let deleteAllCode = JSCPrivateFunctions.deleteAllCode, apiLock.isAvailable else { return }
        apiLock.withLock(ctx) { deleteAllCode(contextGroup, Int32(PEJSDeleteAllCodeIfNotCollecting)) }
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
