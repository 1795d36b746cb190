import CJavaScriptCore
import Foundation

/// JavaScriptCore's functions that no public header declares, looked up here and nowhere else.
///
/// WebKitGTK exports them without installing their headers (JSContextRefPrivate.h,
/// JSLockRefPrivate.h, JSWeakObjectMapRefPrivate.h, JSBasePrivate.h); Apple's
/// JavaScriptCore.framework has them as SPI. Each is looked up at run time in the process's
/// global symbol scope and is nil where a JavaScriptCore lacks it; every user has a fallback:
///
/// | function | user | without it |
/// | --- | --- | --- |
/// | JSContextGroupSet/ClearExecutionTimeLimit | `ExecutionTimeLimit` | no limit, reported (`isExecutionTimeLimitAvailable`) |
/// | JSLock / JSUnlock | `APILock` | each C API call takes the lock itself |
/// | JSWeakObjectMapCreate/Set/Get | `BoxCache` | every crossing makes a new box |
/// | JSSynchronousGarbageCollectForDebugging | `collectGarbageNow` | `JSGarbageCollect` (a hint) |
/// | WTF::releaseFastMallocFreeMemory | `releaseFreeMemory` | the allocator's scavenger, a second later |
///
/// Signatures as in WebKit's private headers (typedefs in `shim.h`).
enum JSCPrivateFunctions {
    static let setExecutionTimeLimit = lookUp("JSContextGroupSetExecutionTimeLimit", as: PEJSSetExecutionTimeLimitFunction.self)
    static let clearExecutionTimeLimit = lookUp("JSContextGroupClearExecutionTimeLimit", as: PEJSClearExecutionTimeLimitFunction.self)

    /// Both or neither.
    static let lockFunctions: (lock: PEJSLockFunction, unlock: PEJSLockFunction)? = {
        guard let lock = lookUp("JSLock", as: PEJSLockFunction.self),
              let unlock = lookUp("JSUnlock", as: PEJSLockFunction.self) else { return nil }
        return (lock, unlock)
    }()

    /// All three or none.
    static let weakObjectMap: (create: PEJSWeakObjectMapCreateFunction, set: PEJSWeakObjectMapSetFunction,
                               get: PEJSWeakObjectMapGetFunction)? = {
        guard let create = lookUp("JSWeakObjectMapCreate", as: PEJSWeakObjectMapCreateFunction.self),
              let set = lookUp("JSWeakObjectMapSet", as: PEJSWeakObjectMapSetFunction.self),
              let get = lookUp("JSWeakObjectMapGet", as: PEJSWeakObjectMapGetFunction.self) else { return nil }
        return (create, set, get)
    }()

    typealias CollectFunction = @convention(c) (JSContextRef?) -> Void
    static let synchronousGarbageCollect = lookUp("JSSynchronousGarbageCollectForDebugging", as: CollectFunction.self)

    typealias ReleaseFunction = @convention(c) () -> Void
    /// `WTF::releaseFastMallocFreeMemory()`, by its mangled name.
    static let releaseFastMallocFreeMemory = lookUp("_ZN3WTF27releaseFastMallocFreeMemoryEv", as: ReleaseFunction.self)

    /// The function `name` as a `T`, or nil where the process has no such symbol.
    private static func lookUp<T>(_ name: String, as type: T.Type) -> T? {
        guard let symbol = dlsym(process, name) else { return nil }
        return unsafeBitCast(symbol, to: type)
    }

    /// The process's global symbol scope, on both platforms.
    private static let process = dlopen(nil, RTLD_NOW)
}
