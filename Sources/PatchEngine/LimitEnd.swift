import Foundation
import PatchSupport

extension PatchEngine {
    /// How an entry into JS that is past `executionTimeLimit` or `heapGrowthLimit` is ended.
    /// Either way the entry gets the same error, its native caller the original's result, and its
    /// script is reverted (docs/limits.md).
    public enum LimitEnd: Sendable {
        /// The next check point the entry's JS reaches (every loop turn and function call) throws
        /// "JavaScript execution terminated.", and every later one throws it again: a `catch` or
        /// `finally` runs up to its next loop turn or call. Needs nothing private from
        /// JavaScriptCore and costs nothing per call. The default, and the only end an App Store
        /// build has.
        case exception
        /// JavaScriptCore's watchdog terminates the JS at once, uncatchably. Its functions are
        /// private (looked up at run time: docs/private-symbols.md), and a VM that has one pays
        /// ≈ 30 ns at every outermost entry.
        case watchdog
    }

    /// The end in force: `.exception` unless `.watchdog` was asked for before the engine started
    /// (`requestLimitEnd`, or `PATCHENGINE_LIMITS_END=watchdog`) and this JavaScriptCore has its
    /// functions.
    public static var limitEnd: LimitEnd { LimitEndChoice.inForce }

    /// Whether an entry past a limit is ended by an exception at its check points (`LimitEnd`).
    public static var limitsEndByException: Bool { limitEnd == .exception }

    /// Chooses how the limits end an entry. Only before the engine's first use: each VM makes its
    /// watchdog, or not, when it starts, and JavaScriptCore watches only entries begun while the
    /// watchdog exists. Returns whether the choice is the one in force: false if the engine had
    /// started with another, or `.watchdog` was asked for and this JavaScriptCore has no watchdog
    /// functions (then the end is `.exception`).
    @discardableResult
    public static func requestLimitEnd(_ end: LimitEnd) -> Bool {
        LimitEndChoice.request(end)
    }
}

/// The process's one decision of `PatchEngine.LimitEnd`, fixed the first time a VM asks for it.
enum LimitEndChoice {
    private struct State {
        var requested: PatchEngine.LimitEnd?
        var fixed: PatchEngine.LimitEnd?
    }
    private static let state = LockedValue(State())

    static var watchdogAvailable: Bool {
        JSCPrivateFunctions.setExecutionTimeLimit != nil && JSCPrivateFunctions.clearExecutionTimeLimit != nil
    }

    /// The end every VM uses; the first read fixes it.
    static var inForce: PatchEngine.LimitEnd {
        state.withLock { state in
            if let fixed = state.fixed { return fixed }
            var wanted = state.requested ?? .exception
            // getenv, not ProcessInfo's environment (Engine.start says why).
            if let value = getenv("PATCHENGINE_LIMITS_END") {
                switch String(cString: value) {
                case "watchdog": wanted = .watchdog
                case "exception": wanted = .exception
                default: break
                }
            }
            let end: PatchEngine.LimitEnd = wanted == .watchdog && watchdogAvailable ? .watchdog : .exception
            state.fixed = end
            return end
        }
    }

    /// The first request made before any VM asked wins; later ones only learn the end in force.
    static func request(_ end: PatchEngine.LimitEnd) -> Bool {
        state.withLock { state in
            if state.fixed == nil && state.requested == nil { state.requested = end }
        }
        return inForce == end
    }
}
