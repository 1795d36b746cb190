import CJavaScriptCore
import Foundation
import CPatchEngine
import PatchRuntime

/// Bringing a secondary VM (`VMPool`) up to the applied scripts: each script's evaluations run
/// again in that VM, oldest script first, with `defineClass` binding its functions to the method
/// records the main VM's evaluation installed (`JSMethod.setReplica`) instead of installing
/// anything. The top level runs again, so a script's globals get their initial values in that VM.
///
/// Only what has no effect outside the VM may run during a replay: defining classes, JS-only
/// methods, globals, JSPatch's JS classes, `require`, block and struct values, `include` of what
/// the evaluation included (`allowedNatives`). A script whose top level does more (sends a
/// message, adds a hook or a route, dispatches...) is not replayed, nor any script applied after it: their
/// methods keep running in the main VM, shared by threads as before. A replay that fails for any
/// reason leaves the VM as it was before that script.
enum Replay {
    /// Native functions a replayed top level may call: those `NativeBinding.table` declares
    /// `.replayable` (`NativeFunctionBox.isReplayable` is set from the same declaration).
    static let allowedNatives: Set<String> = Set(NativeBinding.table.filter { $0.replay == .replayable }.map(\.name))

    static let refusal = "not replayable: a script replayed into a secondary VM may only define (docs/threads.md)"
}

/// A secondary VM's record of the scripts replayed into it. Touched only by the thread holding
/// the VM (`VMPool` hands it over with an acquire/release exchange).
final class ReplayLog {
    struct Replayed {
        let script: String
        let application: Int
        /// The methods given a function in this VM (kept alive so the function can be taken back).
        var methods: [JSMethod] = []
        /// JS-only methods written to this VM's table, with what each replaced (protected).
        var jsOnly: [(className: String, name: String, previous: JSObjectRef?)] = []
        /// What `include` ran again in this replay (each once, as in the evaluation).
        var included: Set<String> = []
    }

    /// `TransactionLog.generation` when this VM last caught up.
    var generation = -1
    /// Replayed scripts, oldest first: a prefix of the applied ones.
    private var scripts: [Replayed] = []
    /// The script being replayed, and its method records not yet bound, in install order.
    private var current: Replayed?
    private var pending: ArraySlice<(slot: OpaquePointer, token: UInt)> = []
    /// Why the last script not replayed was not (for diagnostics).
    private(set) var lastFailure: String?

    /// Forgets the replayed scripts no longer applied as they were in `history` (reverted, or
    /// applied again) and every one replayed after the first of them; returns how many are kept
    /// (a prefix of `history`) and the forgotten ones, newest first, for the VM to take back.
    func dropUnapplied(_ history: [TransactionLog.History]) -> (kept: Int, dropped: [Replayed]) {
        var kept = 0
        while kept < scripts.count, kept < history.count,
              scripts[kept].script == history[kept].script, scripts[kept].application == history[kept].application {
            kept += 1
        }
        let dropped = Array(scripts[kept...].reversed())
        scripts.removeSubrange(kept...)
        return (kept, dropped)
    }

    /// Starts recording the replay of `script`.
    func begin(_ script: TransactionLog.History) {
        current = Replayed(script: script.script, application: script.application)
        pending = script.methods[...]
    }

    /// The method record the replay binds next, if `slot` (looked up only while one is left) is
    /// its slot; taken off the list.
    func takeNextMethod(at slot: @autoclosure () -> OpaquePointer?) -> UInt? {
        guard let next = pending.first, slot() == next.slot else { return nil }
        pending.removeFirst()
        return next.token
    }

    /// Records a method given a function in this VM by the replay.
    func recordMethod(_ method: JSMethod) { current?.methods.append(method) }

    /// Records a JS-only method the replay wrote, with what it replaced.
    func recordJSOnly(className: String, name: String, previous: JSObjectRef?) {
        current?.jsOnly.append((className: className, name: name, previous: previous))
    }

    /// Whether `include` may run `key` in this replay (once per replay, as in the evaluation).
    func markIncluded(_ key: String) -> Bool { current?.included.insert(key).inserted == true }

    /// Ends the replay begun last: without `failure` and with every method record bound it is
    /// kept (nil); otherwise the failure is recorded and what the replay did is returned, for the
    /// VM to take back.
    func finish(failure: Error?) -> Replayed? {
        let done = current!
        var failure = failure
        if failure == nil, !pending.isEmpty {
            failure = BridgeError("the replay installed fewer methods than the evaluation")
        }
        (current, pending) = (nil, [])
        guard let failure else {
            scripts.append(done)
            return nil
        }
        lastFailure = "\(done.script): \(failure)"
        return done
    }
}

extension Engine {
    /// Replays into this (secondary) VM the scripts applied since it last caught up, and takes
    /// back what it replayed of scripts reverted since. Skipped while an evaluation is running
    /// on another thread (it may be waiting for this one): methods not replayed run in the main
    /// VM meanwhile.
    func catchUp() {
        guard let log = replayed else { return }
        installScriptExtensions()
        let generation = transactions.generation
        guard log.generation != generation else { return }
        _ = evaluations.ifIdle {
            let history = transactions.history()
            for script in history[takeBackUnapplied(history)...] {
                guard replay(script) else { break }
            }
            log.generation = generation
        }
    }

    /// Takes back what this VM replayed of scripts no longer applied as they were (reverted, or
    /// applied again), and of every script replayed after the first of them (their top levels ran
    /// on top of it: the next catch-up replays them again); returns how many replayed scripts are
    /// kept, a prefix of `history`. Only by the thread holding the VM.
    @discardableResult
    private func takeBackUnapplied(_ history: [TransactionLog.History]) -> Int {
        guard let log = replayed else { return 0 }
        let (kept, dropped) = log.dropUnapplied(history)
        for replayed in dropped { takeBack(replayed) }
        return kept
    }

    /// After a revert, on the reverting thread: each secondary VM no thread is in lets go of what
    /// it replayed of the reverted script now — its functions, JS-only methods and the method
    /// records it held — instead of at its next catch-up, which may never come (a reverted
    /// method's JS function, and what its closure keeps, lived on in that VM until then). A VM
    /// in use is left to its next catch-up: its values can only be released under its lock, and
    /// a revert does not wait for another thread's JS. Replays the later scripts nowhere (the next
    /// catch-up does, as the VM's generation is left as it was).
    func takeBackRevertedInFreeVMs() {
        guard !pool.secondaries.isEmpty else { return }
        let history = transactions.history()
        pool.forEachFreeSecondary(withinMaximum: false) { $0.takeBackUnapplied(history) }
    }

    /// Runs `script`'s evaluations again in this VM; false (and nothing left of it) if it can't be.
    private func replay(_ script: TransactionLog.History) -> Bool {
        guard let log = replayed else { return false }
        log.begin(script)
        var failure: Error?
        for evaluation in script.evaluations {
            do {
                _ = try evaluations.within(Evaluation(name: script.script, baseDirectory: evaluation.baseDirectory,
                                                      bundle: evaluation.bundle)) {
                    try evaluateRaw(evaluation.code, sourceURL: script.script, topLevel: true, replaying: true)
                }
            } catch {
                failure = error
                break
            }
        }
        let failed = log.finish(failure: failure)
        drainReleases()
        if let failed { takeBack(failed) }
        return failed == nil
    }

    /// Takes what a replay gave this VM back: the methods' functions, the JS-only methods.
    private func takeBack(_ replayed: ReplayLog.Replayed) {
        for method in replayed.methods { method.setReplica(nil, vm: index, ctx: ctx) }
        for entry in replayed.jsOnly.reversed() {
            removeJSOnly(className: entry.className, name: entry.name, restoring: entry.previous)
        }
    }

    /// Whether the JS calling native code on this thread is this VM's replay of a script (a
    /// secondary VM catching up): not another thread's JS in this VM meanwhile, nor app code the
    /// replay's native calls ran (`PEThreadReplaying`).
    @inline(__always) var isReplaying: Bool {
        replayed != nil && PEThreadReplaying() == Unmanaged.passUnretained(self).toOpaque()
    }

    /// For a JS → native call that has effects outside the VM (a message send, a block call, a
    /// native function not in `Replay.allowedNatives`): made by a replay's JS it is refused — the
    /// exception set, true; otherwise false.
    /// Per thread, not per VM: a replay lets go of the VM's API lock (JavaScriptCore drops it
    /// around each native call, `require` and `defineClass` included), and a block, hook or
    /// handler made in this VM can run here on another thread meanwhile; its calls are its own
    /// (VMReplayTests.testABlockOfAVMCalledOnAnotherThreadWhileTheVMReplaysIsNotRefused).
    @inline(__always) func refusedDuringReplay(_ ctx: JSContextRef, _ exception: UnsafeMutablePointer<JSValueRef?>?) -> Bool {
        guard isReplaying else { return false }
        exception?.pointee = JSC.makeError(ctx, Replay.refusal)
        return true
    }

    /// `include(path)` during a replay: the file or bundle script the evaluation included, run
    /// again from the source the script's transaction kept (never read again), once per replay.
    func replayInclude(_ path: String) throws -> JSValueRef {
        guard let log = replayed, let outer = evaluations.current() else { throw BridgeError(Replay.refusal) }
        let key = outer.bundle != nil ? Self.bundledScript(path) : try includedFile(path)
        guard log.markIncluded(key) else { return JSValueMakeUndefined(ctx) }
        guard let source = transactions.sourceMap(key, script: outer.name) else {
            throw BridgeError("include(\"\(path)\"): not what the evaluation replayed included")
        }
        let base = outer.bundle == nil ? URL(fileURLWithPath: key).deletingLastPathComponent() : nil
        return try evaluations.within(Evaluation(name: outer.name, baseDirectory: base, bundle: outer.bundle)) {
            try evaluateRaw(source.code, sourceURL: key, passingExceptions: true, replaying: true)
        }
    }

    /// `defineClass` during a replay: the class exists and its methods were installed by the
    /// evaluation being replayed; each function is bound to the next of its method records.
    func replayDefineClass(_ declarationText: String, instanceMethods: JSValueRef, classMethods: JSValueRef,
                           script: String) throws -> JSValueRef {
        let declaration = try ClassDeclaration(parsing: declarationText)
        guard let cls = PEClassLookup(declaration.name), let metaclass = PEClassGetMetaClass(cls) else {
            throw BridgeError("defineClass('\(declarationText)'): the class the evaluation defined is gone")
        }
        try replayMethods(instanceMethods, on: cls, className: declaration.name, isClassMethod: false, script: script)
        try replayMethods(classMethods, on: metaclass, className: declaration.name, isClassMethod: true, script: script)
        return definitionResult(declaration.name, cls)
    }

    private func replayMethods(_ methods: JSValueRef, on cls: UnsafeMutableRawPointer, className: String,
                               isClassMethod: Bool, script: String) throws {
        guard let log = replayed, !(JSValueIsUndefined(ctx, methods) || JSValueIsNull(ctx, methods)),
              let object = JSValueToObject(ctx, methods, nil) else { return }
        for jsName in JSC.propertyNames(ctx, object) {
            guard let function = JSValueToObject(ctx, JSC.get(ctx, object, jsName), nil), JSObjectIsFunction(ctx, function) else {
                throw BridgeError("defineClass('\(className)'): \(jsName) is not a function")
            }
            let arity = Int(JSValueToNumber(ctx, JSC.get(ctx, function, "arity"), nil))
            let selector = SelectorName.selector(jsName: jsName, argumentCount: arity)
            if let token = log.takeNextMethod(at: PESlotFind(cls, selector)) {
                bindMethod(function, definingClass: cls, selector: selector, script: script)
                JSValueProtect(ctx, function)
                let method = Unmanaged<JSMethod>.fromOpaque(UnsafeRawPointer(bitPattern: token)!).takeUnretainedValue()
                method.setReplica(function, vm: index, ctx: ctx)
                log.recordMethod(method)
            } else if jsName.hasPrefix("_") {
                let previous = writeJSOnly(className: (isClassMethod ? "+" : "") + className, name: jsName, method: function,
                                           definingClass: cls, script: script)
                log.recordJSOnly(className: (isClassMethod ? "+" : "") + className, name: jsName, previous: previous)
            } else {
                throw BridgeError("defineClass('\(className)'): \(jsName) is not the method the evaluation installed next")
            }
        }
    }
}
