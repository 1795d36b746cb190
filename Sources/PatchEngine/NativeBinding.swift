import CJavaScriptCore
import Foundation

/// One native function the engine's scripts call, as declared in `NativeBinding.table`
/// (NativeBindings.swift): its name, where it lives, whether a VM replay may call it, and its
/// body with typed parameters. Declaring it there is all it takes: `Engine.start` installs every
/// entry, and `Replay.allowedNatives` is read off the entries.
///
/// Parameters are decoded by type (`NativeArgument`), left to right, a missing argument as
/// `undefined`; the decoders are small generic functions specialised per declaration, so a
/// call does no more work than reading its arguments by position did.
struct NativeBinding {
    /// The JS object the function is a member of.
    enum Holder {
        /// runtime.js's `N` (`__PatchEngineNative`, hidden from scripts by runtime.js).
        case runtime
        /// jspatch.js's `J`, made when a script first uses JSPatch's surface.
        case jspatch
        /// The global object: a function scripts call by this name, defined before runtime.js.
        case global
    }

    /// What the function is for (documentation and grouping; it decides nothing).
    enum Area {
        case objectiveC, definitions, values, memory, helpers, directCalls, jspatch, toolkit
    }

    /// Whether a secondary VM's replay of a script's top level may call it (docs/threads.md):
    /// only functions whose effects stay inside the VM may.
    enum Replay {
        case replayable
        case refused
    }

    let name: String
    let holder: Holder
    let area: Area
    let replay: Replay
    /// The function for one VM's engine.
    let make: (Engine) -> Engine.NativeFunction

    private init(_ name: String, _ holder: Holder, _ area: Area, _ replay: Replay,
                 make: @escaping (Engine) -> Engine.NativeFunction) {
        (self.name, self.holder, self.area, self.replay, self.make) = (name, holder, area, replay, make)
    }
}

/// A parameter type a binding may declare: how argument `i` of a call becomes one.
protocol NativeArgument {
    /// Argument `i` of `args` (`undefined` when the call passed fewer).
    static func decode(_ args: [JSValueRef], _ i: Int, _ engine: Engine) throws -> Self
}

extension NativeArgument {
    @inline(__always) static func value(_ args: [JSValueRef], _ i: Int, _ engine: Engine) -> JSValueRef {
        i < args.count ? args[i] : engine.undefinedValue
    }
}

/// The JS value as it is (`JSValueRef` and `JSObjectRef` are the same Swift type).
extension OpaquePointer: NativeArgument {
    @inline(__always) static func decode(_ args: [JSValueRef], _ i: Int, _ engine: Engine) -> OpaquePointer {
        value(args, i, engine)
    }
}

/// `String(value)`, as JS converts it.
extension String: NativeArgument {
    @inline(__always) static func decode(_ args: [JSValueRef], _ i: Int, _ engine: Engine) -> String {
        JSC.toString(engine.ctx, value(args, i, engine))
    }
}

/// `Number(value)`.
extension Double: NativeArgument {
    @inline(__always) static func decode(_ args: [JSValueRef], _ i: Int, _ engine: Engine) -> Double {
        JSValueToNumber(engine.ctx, value(args, i, engine), nil)
    }
}

/// `Number(value)` truncated to an integer; NaN and ±Infinity are 0 and the magnitude is at most
/// 9e15, so no script-supplied number can trap the conversion.
extension Int: NativeArgument {
    @inline(__always) static func decode(_ args: [JSValueRef], _ i: Int, _ engine: Engine) -> Int {
        let d = JSValueToNumber(engine.ctx, value(args, i, engine), nil)
        return d.isFinite ? Int(Swift.max(Swift.min(d, 9.0e15), -9.0e15)) : 0
    }
}

/// `Boolean(value)`.
extension Bool: NativeArgument {
    @inline(__always) static func decode(_ args: [JSValueRef], _ i: Int, _ engine: Engine) -> Bool {
        JSValueToBoolean(engine.ctx, value(args, i, engine))
    }
}

/// An address passed as a number (a class pointer runtime.js got from native code), nil for
/// anything else.
extension Optional: NativeArgument where Wrapped == UnsafeMutableRawPointer {
    @inline(__always) static func decode(_ args: [JSValueRef], _ i: Int, _ engine: Engine) -> UnsafeMutableRawPointer? {
        let v = value(args, i, engine)
        guard JSValueIsNumber(engine.ctx, v) else { return nil }
        return UnsafeMutableRawPointer(bitPattern: UInt(JSValueToNumber(engine.ctx, v, nil)))
    }
}

/// Every argument from this position on (a variadic tail).
struct RestArguments: NativeArgument {
    let values: [JSValueRef]
    static func decode(_ args: [JSValueRef], _ i: Int, _ engine: Engine) -> RestArguments {
        RestArguments(values: Array(args.dropFirst(i)))
    }
}

// One initializer per arity: the body's parameter types are the declaration.
extension NativeBinding {
    init(_ name: String, _ area: Area, _ replay: Replay = .refused, on holder: Holder = .runtime,
         _ body: @escaping (Engine) throws -> JSValueRef?) {
        self.init(name, holder, area, replay) { e in { [unowned e] _, _, _ in try body(e) } }
    }

    init<A: NativeArgument>(_ name: String, _ area: Area, _ replay: Replay = .refused, on holder: Holder = .runtime,
                            _ body: @escaping (Engine, A) throws -> JSValueRef?) {
        self.init(name, holder, area, replay) { e in { [unowned e] _, _, a in try body(e, .decode(a, 0, e)) } }
    }

    init<A: NativeArgument, B: NativeArgument>(
        _ name: String, _ area: Area, _ replay: Replay = .refused, on holder: Holder = .runtime,
        _ body: @escaping (Engine, A, B) throws -> JSValueRef?) {
        self.init(name, holder, area, replay) { e in { [unowned e] _, _, a in try body(e, .decode(a, 0, e), .decode(a, 1, e)) } }
    }

    init<A: NativeArgument, B: NativeArgument, C: NativeArgument>(
        _ name: String, _ area: Area, _ replay: Replay = .refused, on holder: Holder = .runtime,
        _ body: @escaping (Engine, A, B, C) throws -> JSValueRef?) {
        self.init(name, holder, area, replay) { e in
            { [unowned e] _, _, a in try body(e, .decode(a, 0, e), .decode(a, 1, e), .decode(a, 2, e)) }
        }
    }

    init<A: NativeArgument, B: NativeArgument, C: NativeArgument, D: NativeArgument>(
        _ name: String, _ area: Area, _ replay: Replay = .refused, on holder: Holder = .runtime,
        _ body: @escaping (Engine, A, B, C, D) throws -> JSValueRef?) {
        self.init(name, holder, area, replay) { e in
            { [unowned e] _, _, a in try body(e, .decode(a, 0, e), .decode(a, 1, e), .decode(a, 2, e), .decode(a, 3, e)) }
        }
    }

    init<A: NativeArgument, B: NativeArgument, C: NativeArgument, D: NativeArgument, E: NativeArgument>(
        _ name: String, _ area: Area, _ replay: Replay = .refused, on holder: Holder = .runtime,
        _ body: @escaping (Engine, A, B, C, D, E) throws -> JSValueRef?) {
        self.init(name, holder, area, replay) { e in
            { [unowned e] _, _, a in
                try body(e, .decode(a, 0, e), .decode(a, 1, e), .decode(a, 2, e), .decode(a, 3, e), .decode(a, 4, e))
            }
        }
    }

    init<A: NativeArgument, B: NativeArgument, C: NativeArgument, D: NativeArgument, E: NativeArgument, F: NativeArgument>(
        _ name: String, _ area: Area, _ replay: Replay = .refused, on holder: Holder = .runtime,
        _ body: @escaping (Engine, A, B, C, D, E, F) throws -> JSValueRef?) {
        self.init(name, holder, area, replay) { e in
            { [unowned e] _, _, a in
                try body(e, .decode(a, 0, e), .decode(a, 1, e), .decode(a, 2, e), .decode(a, 3, e), .decode(a, 4, e), .decode(a, 5, e))
            }
        }
    }
}

/// Numbers both sides of the bridge agree on, sent to JS from their one Swift definition as a
/// frozen object of `name: number` (`N.codes.<table>` in runtime.js and direct.js).
protocol ScriptCodes: CaseIterable, RawRepresentable where RawValue == Int {
    /// Its name under `N.codes`.
    static var scriptName: String { get }
}

extension Engine {
    /// A native function callable from JS; its closure is the private data of its JS object.
    typealias NativeFunction = (_ ctx: JSContextRef, _ this: JSObjectRef?, _ args: [JSValueRef]) throws -> JSValueRef?

    /// Adds a native function as property `name` of `object`. It inherits Function.prototype, so
    /// scripts can bind, call and apply it like any function.
    /// Only a `replayable` one may be called by a replay (`NativeBinding.Replay`).
    func addFunction(_ object: JSObjectRef, _ name: String, replayable: Bool = false, _ body: @escaping NativeFunction) {
        let box = Unmanaged.passRetained(NativeFunctionBox(body, replayable: replayable, engine: self)).toOpaque()
        let fn = JSObjectMake(ctx, classes.nativeFunction, box)
        JSObjectSetPrototype(ctx, fn, functionPrototype)
        JSC.set(ctx, object, name, fn)
    }

    /// Installs the declared bindings of `holder` as members of `object` (NativeBindings.swift).
    func installBindings(_ holder: NativeBinding.Holder, into object: JSObjectRef) {
        for binding in NativeBinding.table where binding.holder == holder {
            addFunction(object, binding.name, replayable: binding.replay == .replayable, binding.make(self))
        }
    }

    /// `N.codes`: each `ScriptCodes` table as a frozen `{name: number}`, the whole frozen too.
    func makeScriptCodes(_ tables: [any ScriptCodes.Type]) -> JSObjectRef {
        let freeze = JSValueToObject(ctx, JSC.get(ctx, JSValueToObject(ctx, JSC.get(ctx, JSContextGetGlobalObject(ctx), "Object"), nil)!,
                                                  "freeze"), nil)!
        func frozen(_ object: JSObjectRef) -> JSObjectRef {
            var args: [JSValueRef?] = [object]
            _ = JSObjectCallAsFunction(ctx, freeze, nil, 1, &args, nil)
            return object
        }
        func entries<T: ScriptCodes>(_ type: T.Type) -> JSObjectRef {
            let object = JSObjectMake(ctx, nil, nil)!
            for code in T.allCases { JSC.set(ctx, object, "\(code)", JSValueMakeNumber(ctx, Double(code.rawValue))) }
            return frozen(object)
        }
        let codes = JSObjectMake(ctx, nil, nil)!
        for table in tables { JSC.set(ctx, codes, table.scriptName, entries(table)) }
        return frozen(codes)
    }
}

/// Holds a native function's closure for its JS object.
final class NativeFunctionBox {
    let body: Engine.NativeFunction
    /// Whether a replay of a script's top level may call it (`NativeBinding.Replay`).
    let isReplayable: Bool
    unowned let engine: Engine
    init(_ body: @escaping Engine.NativeFunction, replayable: Bool, engine: Engine) {
        self.body = body
        self.engine = engine
        isReplayable = replayable
    }
}
