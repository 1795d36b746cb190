import CJavaScriptCore
import Foundation
import CPatchEngine

/// JavaScriptCore's functions that no public header declares, typed for Swift.
///
/// WebKitGTK exports them without installing their headers (JSContextRefPrivate.h,
/// JSLockRefPrivate.h, JSWeakPrivate.h, JSBasePrivate.h); Apple's
/// JavaScriptCore.framework has them as SPI. Each is a private symbol named in CPatchEngine's
/// `PEJSCPrivateSymbols.h` and looked up through the runtime core's registry (`PEPrivateSymbols.h`,
/// docs/private-symbols.md: at run time, left out of an App Store build, reported absent with
/// `PATCHENGINE_PRIVATE_SYMBOLS=absent`) and is nil where it is absent; every user has a fallback:
///
/// | function | user | without it |
/// | --- | --- | --- |
/// | JSContextGroupSet/ClearExecutionTimeLimit | `ExecutionTimeLimit` | the end thrown at check points (`limitsEndByException`) |
/// | JSLock / JSUnlock, JSC::VM::drainMicrotasks | `APILock` | each C API call takes the lock itself |
/// | JSWeakCreate/Release/GetObject | `BoxCache` | every crossing makes a new box |
/// | JSSynchronousGarbageCollectForDebugging | `collectGarbageNow` | `JSGarbageCollect` (a hint) |
/// | WTF::releaseFastMallocFreeMemory | `releaseFreeMemory` | the allocator's scavenger, a second later |
/// | JSC::VM::deleteAllCode | `deleteCompiledCode` | compiled code stays until JavaScriptCore drops it |
/// | JSC::JSFunction::getCallData, JSC::call | `InternalCall` (called from C: `PEJSCInternalCall.c`) | `JSObjectCallAsFunction` |
///
/// Signatures as in WebKit's private headers (typedefs in `shim.h`).
enum JSCPrivateFunctions {
    static let setExecutionTimeLimit = lookUp(PEJSCPrivateSymbolJSContextGroupSetExecutionTimeLimit, as: PEJSSetExecutionTimeLimitFunction.self)
    static let clearExecutionTimeLimit = lookUp(PEJSCPrivateSymbolJSContextGroupClearExecutionTimeLimit, as: PEJSClearExecutionTimeLimitFunction.self)

    typealias LockFunctions = (lock: PEJSLockFunction, unlock: PEJSLockFunction, runJobs: PEJSVMDrainMicrotasksFunction)
    /// All three or none: JavaScriptCore runs the promise jobs JS queued when the API lock is last
    /// released, so an entry that holds the lock across its calls must run them itself before it
    /// ends (`runJobs`, JSEntry.swift's `settled`); run at the release they would run after the
    /// entry, where no limit applies.
    static let lockFunctions: LockFunctions? = {
        guard let lock = lookUp(PEJSCPrivateSymbolJSLock, as: PEJSLockFunction.self),
              let unlock = lookUp(PEJSCPrivateSymbolJSUnlock, as: PEJSLockFunction.self),
              let runJobs = lookUp(PEJSCPrivateSymbolVMDrainMicrotasks, as: PEJSVMDrainMicrotasksFunction.self) else { return nil }
        return (lock, unlock, runJobs)
    }()

    typealias WeakReferenceFunctions = (create: PEJSWeakCreateFunction, release: PEJSWeakReleaseFunction,
                                        get: PEJSWeakGetObjectFunction)
    /// All three or none.
    static let weakReferences: WeakReferenceFunctions? = {
        guard let create = lookUp(PEJSCPrivateSymbolJSWeakCreate, as: PEJSWeakCreateFunction.self),
              let release = lookUp(PEJSCPrivateSymbolJSWeakRelease, as: PEJSWeakReleaseFunction.self),
              let get = lookUp(PEJSCPrivateSymbolJSWeakGetObject, as: PEJSWeakGetObjectFunction.self) else { return nil }
        return (create, release, get)
    }()

    typealias CollectFunction = @convention(c) (JSContextRef?) -> Void
    static let synchronousGarbageCollect = lookUp(PEJSCPrivateSymbolJSSynchronousGarbageCollectForDebugging, as: CollectFunction.self)

    typealias ReleaseFunction = @convention(c) () -> Void
    /// `WTF::releaseFastMallocFreeMemory()`.
    static let releaseFastMallocFreeMemory = lookUp(PEJSCPrivateSymbolWTFReleaseFastMallocFreeMemory, as: ReleaseFunction.self)

    /// `JSC::VM::deleteAllCode(DeleteAllCodeEffort)`; called with the API lock held.
    static let deleteAllCode = lookUp(PEJSCPrivateSymbolVMDeleteAllCode, as: PEJSVMDeleteAllCodeFunction.self)

    /// The registry's symbol as a `T`, or nil where it is absent.
    private static func lookUp<T>(_ symbol: PEJSCPrivateSymbol, as type: T.Type) -> T? {
        guard let address = PEJSCPrivateSymbolAddress(symbol) else { return nil }
        return unsafeBitCast(address, to: type)
    }
}
