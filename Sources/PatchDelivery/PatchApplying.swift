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
