import CJavaScriptCore
import Foundation
import PatchRuntime
import PatchSupport

/// Native functions an optional module gives patch scripts, as one global object: how a module
/// the engine does not depend on reaches scripts (PatchRouterBindings' `routes` is one). Register
/// it with `PatchEngine.register(_:)`.
///
/// Each function gets the script's arguments as Swift values and returns one; what it changes
/// outside the script is undone with the script when it records the undo (`ScriptCall.recordUndo`).
/// Extension functions never run while a script is replayed into a secondary VM (docs/threads.md):
/// a script calling one at its top level runs in the main VM only.
public struct ScriptExtension: Sendable {
    /// A function of the extension: the call as the script made it, and its result (see
    /// `ScriptCall.arguments` for the values that cross). A thrown error becomes a JS `Error`
    /// whose message is the error's description.
    public typealias Function = @Sendable (ScriptCall) throws -> Any?

    /// The global the functions are members of (`routes`): a JavaScript identifier that no
    /// other extension uses. A name the scripts' global scope has already (`require`, `console`…)
    /// is not installed, and says so through `PatchEngine.logHandler`.
    public let name: String
    /// The functions by member name.
    public let functions: [String: Function]

    public init(name: String, functions: [String: Function]) {
        self.name = name
        self.functions = functions
    }
}

/// One call of a `ScriptExtension` function.
public struct ScriptCall {
    /// The arguments as Swift values, as `PatchEngine.evaluate` returns them: nil (undefined or
    /// null), `Bool`, `Double`, `String`, `[Any?]`, `[String: Any?]`, `ObjCObject`; a function as
    /// a `ScriptCallback`. Missing arguments are nil.
    public let arguments: [Any?]
    /// The script the call belongs to: the one whose method is running, else the one being evaluated.
    public let script: String
    let engine: Engine

    /// The argument at `index`, nil when the script passed fewer.
    public func argument(_ index: Int) -> Any? { index < arguments.count ? arguments[index] : nil }

    /// Records how to undo a change this call made: `undo` runs when `script` is reverted
    /// (`PatchEngine.revert`, a failed or timed-out evaluation, a new version replacing it), in
    /// reverse order of recording, with the script's other changes.
    public func recordUndo(_ description: String, _ undo: @escaping () -> Void) {
        engine.transactions.record(.custom(description: description, undo: undo), script: script)
    }
}

/// A script's function, kept for native code to call later (a route handler), from any thread.
public final class ScriptCallback: @unchecked Sendable {
    private let handle: JSBlockHandle
    private unowned let engine: Engine
    /// The script that passed the function (its errors are reported under that name).
    public let script: String

    init(_ function: JSObjectRef, script: String, engine: Engine) {
        handle = JSBlockHandle(ctx: engine.ctx, function: function)
        self.script = script
        self.engine = engine
    }

    /// Calls the function with `arguments` (Swift values, converted as `ScriptExtension` results
    /// are) and returns its result as a Swift value. A JS error is not thrown to the caller, which
    /// is native code that can't handle it: it is reported through `PatchEngine.errorHandler`
    /// (`context` says what ran, e.g. "route handler"), a run past the execution time limit reverts
    /// the script, and the call returns nil.
    /// The result is converted inside an entry of its own: its getters run under the limits too.
    public func call(_ arguments: [Any?], context: String) -> Any? {
        guard let result = callRaw(arguments, context: context) else { return nil }
        do { return try engine.swiftValue(result, of: "the result of the \(context)") } catch {
            failed(error, context: context)
            return nil
        }
    }

    /// Calls the function as `call` does and says whether its result is truthy (JavaScript's
    /// `!!result`): a handler's "handled". False when it failed.
    public func isTruthy(callingWith arguments: [Any?], context: String) -> Bool {
        callRaw(arguments, context: context).map { JSValueToBoolean(engine.ctx, $0) } ?? false
    }

    private func callRaw(_ arguments: [Any?], context: String) -> JSValueRef? {
        let pool = PEPoolPush()
        defer { PEPoolPop(pool) }
        do {
            return try engine.call(handle.function, arguments.map { engine.scriptValue($0) })
        } catch {
            failed(error, context: context)
            return nil
        }
    }

    /// Reported, and the script reverted when the limits ended it.
    private func failed(_ error: Error, context: String) {
        engine.report(engine.patchError(error, script: script, context: context))
        engine.revertIfTimedOut(error, script: script)
    }
}

/// A Swift function given to a script as a member of a returned dictionary (a token's `remove`).
public struct ScriptFunction: Sendable {
    let body: @Sendable ([Any?]) throws -> Any?
    public init(_ body: @escaping @Sendable (_ arguments: [Any?]) throws -> Any?) { self.body = body }
}

/// Why `PatchEngine.register(_:)` refused an extension.
public struct ScriptExtensionError: Error, Equatable, CustomStringConvertible {
    public let description: String
}

extension PatchEngine {
    /// Adds `extension`'s global to every VM: to the main VM before the next `evaluate` (the first
    /// that follows), to each secondary VM at its next use. Register at launch, before applying
    /// patches that use it. Throws when the name is not a JavaScript identifier or another
    /// extension has it.
    public static func register(_ extension: ScriptExtension) throws {
        try ScriptExtensions.register(`extension`)
    }
}

/// The registered extensions and how many of them each VM has installed.
enum ScriptExtensions {
    private struct State {
        var registered: [ScriptExtension] = []
        /// By VM index: how many of `registered` (a prefix) the VM has.
        var installed: [Int: Int] = [:]
    }
    private static let state = LockedValue(State())

    static func register(_ ext: ScriptExtension) throws {
        let name = ext.name
        guard let first = name.unicodeScalars.first, first == "_" || first == "$" || CharacterSet.letters.contains(first),
              name.unicodeScalars.allSatisfy({ $0.isASCII && ($0 == "_" || $0 == "$" || CharacterSet.alphanumerics.contains($0)) }) else {
            throw ScriptExtensionError(description: "script extension name '\(name)' is not a JavaScript identifier")
        }
        try state.withLock { state in
            guard !state.registered.contains(where: { $0.name == name }) else {
                throw ScriptExtensionError(description: "a script extension named '\(name)' is registered already")
            }
            state.registered.append(ext)
        }
    }

    /// The extensions VM `vm` lacks, marked as installed there.
    static func takeMissing(vm: Int) -> ArraySlice<ScriptExtension> {
        state.withLock { state in
            let done = state.installed[vm] ?? 0
            state.installed[vm] = state.registered.count
            return state.registered[done...]
        }
    }
}

extension Engine {
    /// Installs the extensions registered since this VM last looked, after runtime.js (so a name
    /// it defines is seen as taken): before each evaluation in the main VM, at each catch-up in a
    /// secondary VM (before it replays anything). Only by the thread holding the VM.
    func installScriptExtensions() {
        let missing = ScriptExtensions.takeMissing(vm: index)
        guard !missing.isEmpty else { return }
        apiLock.withLock(ctx) {
            let global = JSContextGetGlobalObject(ctx)!
            for ext in missing {
                guard !JSC.has(ctx, global, ext.name) else {
                    if index == 0 { log("script extension '\(ext.name)' not installed: scripts have a global of that name already") }
                    continue
                }
                let object = JSObjectMake(ctx, nil, nil)!
                for (member, function) in ext.functions.sorted(by: { $0.key < $1.key }) {
                    setNativeFunction(object, member, qualifiedName: "\(ext.name).\(member)") { [unowned self] _, _, args in
                        let call = ScriptCall(arguments: args.map { scriptArgument($0) }, script: currentScript(), engine: self)
                        return scriptValue(try function(call))
                    }
                }
                JSC.set(ctx, global, ext.name, object)
            }
        }
    }

    /// `addFunction` under `member`, its native function named `qualifiedName`: not replayable
    /// (`addFunction`'s default), so an extension's function never runs in a replay, whatever its
    /// member is called.
    private func setNativeFunction(_ object: JSObjectRef, _ member: String, qualifiedName: String, _ body: @escaping NativeFunction) {
        let holder = JSObjectMake(ctx, nil, nil)!
        addFunction(holder, qualifiedName, body)
        JSC.set(ctx, object, member, JSC.get(ctx, holder, qualifiedName))
    }

    /// A script's argument to an extension as Swift: `toSwift`, and a function as a `ScriptCallback`.
    private func scriptArgument(_ value: JSValueRef) -> Any? {
        if JSValueIsObject(ctx, value), let object = JSValueToObject(ctx, value, nil), JSObjectIsFunction(ctx, object) {
            return ScriptCallback(object, script: currentScript(), engine: self)
        }
        return toSwift(value)
    }

    /// Swift values (extension results, callback arguments) as JS; a `ScriptFunction` member of a
    /// dictionary as a method of the object.
    func scriptValue(_ value: Any?) -> JSValueRef {
        switch value {
        case nil, is NSNull: return JSValueMakeNull(ctx)
        case let s as String: return JSC.makeString(ctx, s)
        case let b as Bool: return JSValueMakeBoolean(ctx, b)
        case let n as Int: return JSValueMakeNumber(ctx, Double(n))
        case let d as Double: return JSValueMakeNumber(ctx, d)
        case let u as URL: return JSC.makeString(ctx, u.absoluteString)
        case let array as [Any?]: return JSC.array(ctx, array.map { scriptValue($0) })
        case let array as [Any]: return JSC.array(ctx, array.map { scriptValue($0) })
        case let dict as [String: Any?]: return scriptObject(dict)
        case let dict as [String: Any]: return scriptObject(dict.mapValues { Optional($0) })
        case let object as ObjCObject: return box(object.pointer)
        case let callback as ScriptCallback: return callback.function
        default: return JSC.makeString(ctx, "\(value!)")
        }
    }

    private func scriptObject(_ dict: [String: Any?]) -> JSValueRef {
        let object = JSObjectMake(ctx, nil, nil)!
        for (key, member) in dict {
            if let function = member as? ScriptFunction {
                setNativeFunction(object, key, qualifiedName: "result.\(key)") { [unowned self] _, _, args in
                    scriptValue(try function.body(args.map { toSwift($0) }))
                }
            } else {
                JSC.set(ctx, object, key, scriptValue(member))
            }
        }
        return object
    }
}

extension ScriptCallback {
    var function: JSObjectRef { handle.function }
}

/// Keeps a JS function alive for as long as a Swift closure holds it.
final class JSBlockHandle: @unchecked Sendable {
    let function: JSObjectRef
    private let ctx: JSContextRef
    init(ctx: JSContextRef, function: JSObjectRef) {
        self.ctx = ctx
        self.function = function
        JSValueProtect(ctx, function)
    }
    deinit { JSValueUnprotect(ctx, function) }
}
