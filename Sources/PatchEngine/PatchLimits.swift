import Foundation

/// What one patch may ask of the runtime, checked before any of it is done: a request past a
/// limit is refused with an error naming the limit (the script fails and is rolled back, as for
/// any error), never cut short silently.
///
/// Why: these cost native time or memory no execution time limit can end. One `defineClass` of
/// 100,000 methods never finished (the runtime's method lists grow quadratically: 32,000 took
/// 21 s); 30,000 new classes took 181 s; a self-replicating `dispatch_async_main` reached 2 GB in
/// 42 s and starved the app's own main-queue work.
struct PatchLimits: Sendable {
    /// Instance and class methods one `defineClass` defines (properties' accessors included).
    var methodsPerDefineClass = 4_096
    /// Classes one script creates.
    var classesPerScript = 1_000
    /// Functions dispatched by scripts (dispatch_async_main, dispatch_after, …) that haven't run yet.
    var pendingDispatches = 10_000
}

extension Engine {
    /// Refuses a `defineClass` of `count` methods past the limit.
    func checkMethodCount(_ count: Int, declaration: String) throws {
        let limit = limits.withLock { $0 }.methodsPerDefineClass
        guard count <= limit else {
            throw BridgeError("defineClass('\(declaration)'): \(count) methods, more than the \(limit) one defineClass may define")
        }
    }

    /// Counts a class created by `script`, refusing one past the limit.
    func countClassCreation(script: String, name: String) throws {
        let limit = limits.withLock { $0 }.classesPerScript
        try createdClasses.withLock { counts in
            let count = counts[script, default: 0]
            guard count < limit else {
                throw BridgeError("defineClass('\(name)'): \(script) already created \(limit) classes, the most one script may create")
            }
            counts[script] = count + 1
        }
    }

    /// Counts a dispatched function until `finish` is called, refusing one past the limit.
    func countPendingDispatch() throws {
        let limit = limits.withLock { $0 }.pendingDispatches
        try pendingDispatchCount.withLock { count in
            guard count < limit else {
                throw BridgeError("dispatch: \(limit) dispatched functions are waiting to run already, the most scripts may have pending")
            }
            count += 1
        }
    }

    func finishPendingDispatch() { pendingDispatchCount.withLock { $0 -= 1 } }
}
