import PatchEngine

/// Where verified scripts go. The loader talks to the engine only through this, so an app (or a
/// test) can observe or redirect what gets evaluated; `EnginePatchApplier` is the real one.
public protocol PatchApplying: AnyObject {
    /// Evaluates `script`, recording its runtime changes under `name`. `bundle` is every signed
    /// script of the patch by name: `include()` may resolve only among them, never to a file.
    /// A throwing script must leave nothing applied.
    func apply(script: String, name: String, bundle: [String: String]) throws
    /// Undoes everything the script `name` changed.
    func revert(name: String) throws
}

extension PatchApplying {
    /// Applies every script of `patch` in manifest order, each under `<patchID>@<version>/<script>`,
    /// all or nothing: on a throwing script the ones before it are reverted and the error rethrown.
    /// - Returns: the names the scripts were applied under, in order (revert them newest first).
    func applyAll(_ patch: SignedPatch) throws -> [String] {
        let m = patch.manifest
        var names: [String] = []
        for (script, source) in patch.orderedScripts {
            let name = "\(m.patchID)@\(m.version)/\(script)"
            do {
                try apply(script: source, name: name, bundle: patch.scripts)
                names.append(name)
            } catch {
                for done in names.reversed() { try? revert(name: done) }
                throw error
            }
        }
        return names
    }

    /// Reverts scripts applied by `applyAll`, newest first, going on past a failure.
    /// - Returns: the failures' descriptions (empty when every script was reverted).
    func revertAll(_ names: [String]) -> [String] {
        var failures: [String] = []
        for name in names.reversed() {
            do { try revert(name: name) } catch { failures.append("\(error)") }
        }
        return failures
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
