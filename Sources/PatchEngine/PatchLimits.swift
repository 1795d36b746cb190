import Foundation
import PatchSupport

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

/// The engine's component for `PatchLimits`: the limits in force and the counts held against them,
/// the same object in every VM. One lock guards all of it; nothing runs JS under it.
/// Touched by `defineClass` (ClassDefinition.swift) and the dispatch bindings (NativeBindings.swift).
final class ScriptLimits: @unchecked Sendable {
    private struct State {
        var limits = PatchLimits()
        /// Classes each script created (never decreases: a class outlives a revert).
        var createdClasses: [String: Int] = [:]
        /// Dispatched functions that haven't run yet.
        var pendingDispatches = 0
    }
    private let state = LockedValue(State())

    /// The limits in force.
    var values: PatchLimits {
        get { state.withLock { $0.limits } }
        set { state.withLock { $0.limits = newValue } }
    }

    /// Refuses a `defineClass` of `count` methods past the limit.
    func checkMethodCount(_ count: Int, declaration: String) throws {
        let limit = values.methodsPerDefineClass
        guard count <= limit else {
            throw BridgeError("defineClass('\(declaration)'): \(count) methods, more than the \(limit) one defineClass may define")
        }
    }

    /// Counts a class created by `script`, refusing one past the limit.
    func countClassCreation(script: String, name: String) throws {
        try state.withLock { state in
            let limit = state.limits.classesPerScript
            let count = state.createdClasses[script, default: 0]
            guard count < limit else {
                throw BridgeError("defineClass('\(name)'): \(script) already created \(limit) classes, the most one script may create")
            }
            state.createdClasses[script] = count + 1
        }
    }

    /// Counts a dispatched function until `finishPendingDispatch` is called, refusing one past the limit.
    func countPendingDispatch() throws {
        try state.withLock { state in
            let limit = state.limits.pendingDispatches
            guard state.pendingDispatches < limit else {
                throw BridgeError("dispatch: \(limit) dispatched functions are waiting to run already, the most scripts may have pending")
            }
            state.pendingDispatches += 1
        }
    }

    func finishPendingDispatch() { state.withLock { $0.pendingDispatches -= 1 } }
}
