import CJavaScriptCore
import Foundation
import PatchRuntime
import PatchSupport

/// The hot-patch engine: evaluates JSPatch-style scripts that redefine methods of live
/// Objective-C classes, so that every native caller gets the patched behaviour.
///
/// ```swift
/// try PatchEngine.evaluate("""
///     defineClass('Cart', { total: function() { return self.ORIGtotal() + self.shipping(); } })
///     """, name: "fix-total.js")
/// try PatchEngine.revert("fix-total.js")   // native callers see the original again
/// ```
public enum PatchEngine {
    /// Evaluates a patch script; the engine starts on first use.
    ///
    /// Every runtime change the script makes (methods replaced or added, classes created,
    /// protocols attached, structs and protocols declared) is recorded under `name`; evaluating
    /// more scripts under the same name adds to that record. If the script throws, everything this
    /// evaluation changed is rolled back before the error is thrown.
    ///
    /// The promise jobs the script queued (`then` callbacks, `async` continuations) have run when
    /// it returns, under the same limits.
    ///
    /// - Returns: the script's completion value: string → `String`, number → `Double`,
    ///   boolean → `Bool`, null/undefined/nil → `nil`, array → `[Any?]`, plain object →
    ///   `[String: Any?]`, an Objective-C object → `ObjCObject`. Bounded (`SwiftValues`): an object
    ///   inside itself reads as nil there; at most 100 levels and 100,000 values (logged when cut).
    /// - Throws: `PatchError` with the message and the line and column in `script`.
    @discardableResult
    public static func evaluate(_ script: String, name: String = "main.js") throws -> Any? {
        try Engine.shared.evaluate(script, name: name, baseDirectory: nil)
    }

    /// Evaluates the script `name` of a delivered patch whose scripts are `bundle` (name → source,
    /// all covered by the patch's signature). `include(other)` resolves only among `bundle`, by
    /// exact name (a leading `./` is ignored); any other name, a path or `resourcePath()` is
    /// refused with a `PatchError`, so the patch never runs a byte its signature does not cover.
    @discardableResult
    public static func evaluate(_ script: String, name: String, bundle: [String: String]) throws -> Any? {
        try Engine.shared.evaluate(script, name: name, baseDirectory: nil, bundle: bundle)
    }

    /// Evaluates a script file; `include()` and `resourcePath()` resolve relative to its folder.
    /// The patch name is the file's path.
    @discardableResult
    public static func evaluate(contentsOf url: URL) throws -> Any? {
        let source: String
        do { source = try String(contentsOf: url, encoding: .utf8) } catch {
            throw PatchError(kind: .evaluation, message: "cannot read \(url.path): \(error.localizedDescription)", scriptName: url.path)
        }
        return try Engine.shared.evaluate(source, name: url.path, baseDirectory: url.deletingLastPathComponent())
    }

    /// Undoes every runtime change the script `name` made, at run time: native callers see the
    /// original behaviour again (or the patch that was there before, if another script patched
    /// the same method earlier).
    ///
    /// Classes the script created stay registered (neither Objective-C runtime can remove a class
    /// that may have instances) but lose their JS methods; protocols attached stay attached.
    public static func revert(_ name: String) throws {
        let engine = Engine.shared
        guard engine.transactions.isApplied(name) else {
            throw PatchError(kind: .notApplied, message: "no applied patch named \(name)", scriptName: name)
        }
        engine.rollBack(name)
    }

    /// Reverts every applied patch, newest first.
    public static func revertAll() {
        guard Engine.isStarted else { return }
        for name in Engine.shared.transactions.appliedScripts.reversed() { Engine.shared.rollBack(name) }
    }

    /// Collects JavaScript garbage now, releases the Objective-C objects only JS values held
    /// (boxes keep their objects until collected; the last receiver of each message a script sent
    /// is forgotten first) and gives the freed memory back to the system where JavaScriptCore
    /// allows it: call it on memory warnings.
    /// - Parameter droppingCompiledCode: also drop JavaScriptCore's compiled code, megabytes in a
    ///   process whose scripts ran hot; it is rebuilt as functions run again, so the first calls
    ///   after are slower. Pass false for a collection that keeps the code warm.
    public static func collectGarbage(droppingCompiledCode: Bool = true) {
        guard Engine.isStarted else { return }
        let engine = Engine.shared
        for vm in engine.allVMs {
            vm.forgetKeptCalls()
            if droppingCompiledCode { vm.deleteCompiledCode() }
            vm.collectGarbageNow()
        }
        engine.drainReleases()
        engine.releaseFreeMemory()
    }

    /// Checks a script's syntax with JavaScriptCore without running it.
    /// - Throws: `PatchError` of kind `.syntax` positioned in `script`.
    public static func checkSyntax(_ script: String, name: String = "main.js") throws {
        let preprocessed = try Engine.prepared(script, name: name)
        do { try Engine.shared.checkSyntax(preprocessed.code, sourceURL: name) } catch let error as JSException {
            let position = error.originalPosition(in: preprocessed)
            throw PatchError(kind: .syntax, message: error.message, scriptName: name, line: position.line, column: position.column)
        }
    }

    /// Names of the scripts applied and not reverted, oldest first.
    public static var appliedPatchNames: [String] {
        Engine.isStarted ? Engine.shared.transactions.appliedScripts : []
    }

    /// How a patched or hooked selector reaches the engine. Applies to methods taken over from
    /// now on; a method keeps the route it was taken over with.
    public enum DispatchRoute: Sendable {
        /// A libffi closure per method, built from its type encoding, that enters the dispatcher
        /// directly: no NSInvocation, and `-forwardInvocation:` stays the class's own. The default.
        case closure
        /// JSPatch's route: the runtime's forwarding IMP, an NSInvocation per call, and the
        /// engine's `-forwardInvocation:` (installed once per class, keeping the class's own
        /// for selectors the engine doesn't own).
        case forwarding
    }

    /// The route for methods taken over from now on. The environment variable
    /// `PATCHENGINE_DISPATCH_ROUTE=forwarding` sets it at start-up (the test suite runs both).
    public static var dispatchRoute: DispatchRoute {
        get { _ = Engine.shared; return PEGetDefaultRoute() == PERouteForwarding ? .forwarding : .closure }
        set { _ = Engine.shared; PESetDefaultRoute(newValue == .forwarding ? PERouteForwarding : PERouteClosure) }
    }

    /// The execution time limit in force when the engine starts: `recommendedExecutionTimeLimit`,
    /// so a runaway patch can't hang the app. Each thread is judged by the CPU time of its own
    /// outermost entry into JS (docs/threads.md).
    public static let defaultExecutionTimeLimit: TimeInterval? = recommendedExecutionTimeLimit

    /// A limit long enough for any sane patch and short enough that a hang is noticed: 2.0 s.
    public static let recommendedExecutionTimeLimit: TimeInterval = 2.0

    /// How long one evaluation, or one call from native code into JS (a patched method, a hook,
    /// a block, a route handler, a dispatched function), may run before it is terminated; nil:
    /// no limit.
    ///
    /// Each thread is judged by the CPU time of its own outermost entry into JS, so
    /// JS → Objective-C → JS is one clock, and other threads' JS doesn't count (docs/threads.md).
    /// The time counts from the entry's first check (after 100,000 of the check points the engine
    /// puts in every loop and function body; a short call is never judged and pays no clock read:
    /// docs/limits.md, "Check points"). A terminated evaluation is rolled back and
    /// throws a `.timeout` `PatchError`. A terminated call is reported to `errorHandler` as
    /// `.timeout`, the native caller gets the original implementation's result (zero/nil for a
    /// method the patch added, or a block), and the script it belongs to is reverted: a patch that
    /// hung once is not run again. Setting waits while another thread runs JS.
    /// How the end comes depends on `limitsEndByException`. Default `defaultExecutionTimeLimit` (2.0 s).
    public static var executionTimeLimit: TimeInterval? {
        get { Engine.shared.timeLimit.seconds }
        set {
            let engine = Engine.shared
            engine.apiLock.withLock(engine.ctx) { engine.timeLimit.set(newValue) }
            for vm in engine.pool.secondaries { vm.takeLimits(from: engine) }
        }
    }

    /// Whether the execution time and heap growth limits can be set: always, with either kind of
    /// end (`limitsEndByException`). Kept for source compatibility.
    public static var isExecutionTimeLimitAvailable: Bool { true }

    /// The heap growth limit in force when the engine starts: 256 MB.
    public static let defaultHeapGrowthLimit: Int? = 256 << 20

    /// How many bytes one evaluation, or one call from native code into JS, may grow the app's
    /// memory before it is terminated; nil (or a value ≤ 0): no limit. Default `defaultHeapGrowthLimit`.
    /// Each entry is bounded on its own: memory a script keeps across calls is not (docs/limits.md).
    ///
    /// What is measured is the process's footprint (resident memory on Linux, `phys_footprint`
    /// on Apple: what the OS kills an app for), from the entry's first check (as for
    /// `executionTimeLimit`) on, every 10 ms by the engine's monitor thread while the entry runs
    /// (docs/limits.md). An entry past it ends like one past `executionTimeLimit`: a
    /// terminated evaluation is rolled back and throws a `.heapGrowth` `PatchError`; a terminated
    /// call is reported to `errorHandler` as `.heapGrowth`, the native caller gets the original
    /// implementation's result, the script it belongs to is reverted, and the garbage is collected.
    /// Ended as `executionTimeLimit` ends an entry (`limitsEndByException`).
    /// Setting waits while another thread runs JS.
    public static var heapGrowthLimit: Int? {
        get { Engine.shared.timeLimit.heapGrowth.bytes }
        set {
            let engine = Engine.shared
            engine.timeLimit.heapGrowth.bytes = newValue
            engine.apiLock.withLock(engine.ctx) { engine.timeLimit.arm() }
            for vm in engine.pool.secondaries { vm.takeLimits(from: engine) }
        }
    }

    /// How many JavaScriptCore VMs the engine may run at once (1...32), the main one included.
    /// Default 8.
    ///
    /// A patched call made on a thread outside JS runs in the main VM when no other thread is in
    /// it, else in a secondary VM no thread is in, made on first need (≈ 1 MB and a few ms each;
    /// the applied scripts are replayed into it, docs/threads.md). So a thread never waits for
    /// another thread's JS — except past this many threads in JS at once, when the rest share the
    /// main VM, whose lock JavaScriptCore hands back last-in first-out across threads. 1: every
    /// thread shares one VM (no replays; JS globals are one set for all threads). Lowering it
    /// doesn't stop VMs already made; they stay unused past the new maximum.
    public static var maximumVMs: Int {
        get { Engine.shared.pool.maximum }
        set { Engine.shared.pool.maximum = newValue }
    }

    /// Makes secondary VMs until there are `count` (within `maximumVMs`) and replays the applied
    /// scripts into each one not in use, so that threads running patched methods at the same time
    /// don't pay for a VM's start (`make bench`: "Secondary VM") on their first call. Call it after
    /// applying patches, off the main thread, if the app runs patched methods on several threads.
    public static func prepareVMs(_ count: Int) {
        Engine.shared.pool.prepare(count)
    }

    /// The VMs made so far, the main one included (each ≈ 1 MB: docs/threads.md).
    public static var vmCount: Int { 1 + Engine.shared.pool.secondaries.count }

    /// C functions scripts may call through `defineCFunction` (none by default).
    public static var allowedCFunctions: Set<String> {
        get { settings.withLock { $0.allowedCFunctions } }
        set { settings.withLock { $0.allowedCFunctions = newValue } }
    }

    /// Called with errors raised later by JS code running inside a patched method, a block or a
    /// dispatched function (the native call falls back to the original implementation, or
    /// zero/nil for a method the patch added). Default: logs through `logHandler`.
    public static var errorHandler: ((PatchError) -> Void)? {
        get { settings.withLock { $0.errorHandler } }
        set { settings.withLock { $0.errorHandler = newValue } }
    }

    /// Receives `console.log` output and engine diagnostics. Default: standard error.
    public static var logHandler: ((String) -> Void)? {
        get { settings.withLock { $0.logHandler } }
        set { settings.withLock { $0.logHandler = newValue } }
    }

    /// What the app sets, read by bridge calls on any thread.
    private struct Settings {
        var allowedCFunctions: Set<String> = []
        var errorHandler: ((PatchError) -> Void)?
        var logHandler: ((String) -> Void)?
    }
    private static let settings = LockedValue(Settings())
}

/// An Objective-C object handed out to Swift (e.g. the completion value of `evaluate`).
/// Holds a strong reference for as long as the handle lives.
public final class ObjCObject: @unchecked Sendable, CustomStringConvertible {
    /// The object's address, for passing to C or Objective-C code.
    public let pointer: UnsafeMutableRawPointer

    init(retaining pointer: UnsafeMutableRawPointer) {
        self.pointer = PEObjectRetain(pointer)!
    }

    deinit { PEObjectRelease(pointer) }

    /// The object's class name.
    public var className: String { String(cString: PEClassGetName(PEObjectGetClass(pointer))) }

    /// The object's `-description`.
    public var description: String {
        let text = PEObjectDescription(pointer)!
        defer { free(text) }
        return String(cString: text)
    }
}

/// An error from the engine: a syntax error, an uncaught JS exception, a failed patch step.
public struct PatchError: Error, CustomStringConvertible, Equatable {
    public enum Kind: String, Sendable {
        /// The script does not parse.
        case syntax
        /// The script threw while being evaluated (it was rolled back).
        case evaluation
        /// JS code inside a patched method, block or dispatched function threw.
        case runtime
        /// `revert` of a name that is not applied.
        case notApplied
        /// An evaluation or a call into JS ran past `PatchEngine.executionTimeLimit` and was terminated.
        case timeout
        /// An evaluation or a call into JS grew the app's memory past `PatchEngine.heapGrowthLimit`
        /// and was terminated.
        case heapGrowth
    }
    public var kind: Kind
    public var message: String
    public var scriptName: String
    public var line: Int?
    public var column: Int?

    public init(kind: Kind, message: String, scriptName: String, line: Int? = nil, column: Int? = nil) {
        self.kind = kind; self.message = message; self.scriptName = scriptName; self.line = line; self.column = column
    }

    public var description: String {
        var location = scriptName
        if let line { location += ":\(line)" }
        if let column { location += ":\(column)" }
        return "\(location): \(kind.rawValue) error: \(message)"
    }
}
