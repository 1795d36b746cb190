import CJavaScriptCore
import PatchRuntime

/// The hot-patch engine: evaluates JSPatch-style scripts that redefine methods of live
/// Objective-C classes. (Implementation in progress; signatures are the public contract.)
public enum PatchEngine {
    /// Evaluates a patch script. Every runtime change it makes is recorded under `name`;
    /// a script that throws is rolled back completely.
    @discardableResult
    public static func evaluate(_ script: String, name: String = "main.js") throws -> Any? {
        throw PatchError(kind: .evaluation, message: "engine not implemented yet", scriptName: name)
    }

    /// Undoes every runtime change the script `name` made; native callers see the original behaviour again.
    public static func revert(_ name: String) throws {
        throw PatchError(kind: .notApplied, message: "no applied patch named \(name)", scriptName: name)
    }

    /// Checks a script's syntax with JavaScriptCore without running it.
    public static func checkSyntax(_ script: String, name: String = "main.js") throws {}

    /// Names of the scripts applied and not reverted, oldest first.
    public static var appliedPatchNames: [String] { [] }

    /// Called with errors raised later by JS code running inside a patched method (the call
    /// itself falls back to the original implementation). Default: logs through `logHandler`.
    nonisolated(unsafe) public static var errorHandler: ((PatchError) -> Void)?

    /// Receives `console.log` output and engine diagnostics. Default: standard error.
    nonisolated(unsafe) public static var logHandler: ((String) -> Void)?
}

/// An Objective-C object handed out to Swift (e.g. the completion value of `evaluate`).
/// Holds a strong reference for as long as the handle lives.
public final class ObjCObject: @unchecked Sendable {
    /// The object's address, for passing to C or Objective-C code.
    public let pointer: UnsafeMutableRawPointer
    init(retaining pointer: UnsafeMutableRawPointer) { self.pointer = pointer }
}

/// An error from the engine: a syntax error, an uncaught JS exception, a failed patch step.
public struct PatchError: Error, CustomStringConvertible, Equatable {
    public enum Kind: String, Sendable { case syntax, evaluation, runtime, notApplied }
    public var kind: Kind
    public var message: String
    public var scriptName: String
    public var line: Int?
    public var column: Int?
    public init(kind: Kind, message: String, scriptName: String, line: Int? = nil, column: Int? = nil) {
        self.kind = kind; self.message = message; self.scriptName = scriptName; self.line = line; self.column = column
    }
    public var description: String {
        var where_ = scriptName
        if let line { where_ += ":\(line)" }
        if let column { where_ += ":\(column)" }
        return "\(where_): \(kind.rawValue) error: \(message)"
    }
}
