import PatchEngine

/// Where verified scripts go. Clients talk to the engine only through this, so an app (or a
/// test) can observe or redirect what gets evaluated; `EnginePatchApplier` is the real one.
public protocol PatchApplying: AnyObject {
    /// Evaluates `script`, recording its runtime changes under `name`. `bundle` is every signed
    /// script of the patch by name: `include()` may resolve only among them, never to a file.
    /// A throwing script must leave nothing applied.
    func apply(script: String, name: String, bundle: [String: String]) throws
    /// Undoes everything the script `name` changed.
    func revert(name: String) throws
}

/// Scripts that go live together (one release, one development version), in order.
struct ScriptSet {
    struct Script {
        /// The name the engine records the script's changes under (unique per release).
        var name: String
        /// The script's file name in `bundle`.
        var file: String
        var source: String
    }

    var scripts: [Script]
    /// Every script by file name: what `include()` may resolve to.
    var bundle: [String: String]
}

/// A `ScriptSet` live in the engine.
struct LiveScripts {
    let applied: ScriptSet
    var names: [String] { applied.scripts.map(\.name) }
}

/// The one way every client changes what runs: the previous set reverted, the next one applied
/// all or nothing, and the previous one brought back when the next fails — so a failed script
/// never leaves a half-applied release, nor a patch id without the release that ran before.
/// (The crash-loop guard's mark comes before `replace`, by the client that keeps a guard.)
enum ScriptSwap {
    enum Outcome {
        case applied(LiveScripts)
        /// `file` threw `error`; `restored` is the previous set, live again (nil: none, or it failed too).
        case failed(error: Error, file: String, restored: LiveScripts?)
    }

    /// Replaces `previous` by `next`. `willApply` sees each script just before it is evaluated.
    static func replace(_ previous: LiveScripts?, with next: ScriptSet, applier: PatchApplying,
                        willApply: (ScriptSet.Script) -> Void = { _ in }) -> Outcome {
        if let previous { _ = revert(previous, applier: applier) }
        switch apply(next, applier: applier, willApply: willApply) {
        case .success(let live):
            return .applied(live)
        case .failure(let failure):
            var restored: LiveScripts?
            if let previous, case .success(let again) = apply(previous.applied, applier: applier, willApply: willApply) {
                restored = again
            }
            return .failed(error: failure.error, file: failure.file, restored: restored)
        }
    }

    /// Reverts `live`, newest script first, going on past a failure; returns the failures.
    static func revert(_ live: LiveScripts, applier: PatchApplying) -> [String] {
        revert(names: live.names, applier: applier)
    }

    static func revert(names: [String], applier: PatchApplying) -> [String] {
        var failures: [String] = []
        for name in names.reversed() {
            do { try applier.revert(name: name) } catch { failures.append("\(error)") }
        }
        return failures
    }

    struct Failure: Error {
        var error: Error
        var file: String
    }

    /// Applies every script in order; a throwing one reverts those before it.
    static func apply(_ set: ScriptSet, applier: PatchApplying, willApply: (ScriptSet.Script) -> Void = { _ in }) -> Result<LiveScripts, Failure> {
        var done: [String] = []
        for script in set.scripts {
            willApply(script)
            do {
                try applier.apply(script: script.source, name: script.name, bundle: set.bundle)
                done.append(script.name)
            } catch {
                for name in done.reversed() { try? applier.revert(name: name) }
                return .failure(Failure(error: error, file: script.file))
            }
        }
        return .success(LiveScripts(applied: set))
    }
}

/// Applies scripts with `PatchEngine` (the default).
public final class EnginePatchApplier: PatchApplying {
    public init() {}

    public func apply(script: String, name: String, bundle: [String: String]) throws {
        try PatchEngine.evaluate(script, name: name, bundle: bundle)
    }

    public func revert(name: String) throws {
        try PatchEngine.revert(name)
    }
}
