import CJavaScriptCore
import Foundation

/// Whether the engine reads JavaScriptCore's values and objects from their bits (`JSValueBits`,
/// `BoxBits`) or asks the C API: decided here, once, for every call site.
///
/// The layouts those read are not API. They are checked against JavaScriptCore's own answers at
/// start, and a JavaScriptCore they don't match (an update on Apple platforms) gets the C API
/// everywhere. `PATCHENGINE_NO_LAYOUT_SHORTCUTS=1` in the environment turns every shortcut off
/// whatever the check says, so that the C API path is what runs: `make test` runs the engine's
/// suite once that way, which is how that path stays tested on a machine where the check passes.
///
/// Call sites use `values` and `objects`, which are nil where the C API must answer; the
/// helpers below answer either way.
struct LayoutShortcuts {
    /// The environment variable that turns every shortcut off (set to `1`).
    static let switchVariable = "PATCHENGINE_NO_LAYOUT_SHORTCUTS"

    /// Whether the environment turned the shortcuts off. getenv, not ProcessInfo's environment,
    /// which builds a dictionary of it all.
    /// An App Store build (`PATCHENGINE_NO_PRIVATE_API`, docs/private-symbols.md) never reads
    /// layouts that aren't API.
    #if PATCHENGINE_NO_PRIVATE_API
    static let turnedOff = true
    #else
    static let turnedOff: Bool = getenv(switchVariable).map { String(cString: $0) == "1" } ?? false
    #endif

    /// JSValueRef encoding reads (numbers, booleans, null and undefined, cells); nil: the C API.
    let values: JSValueBits?
    /// Object layout reads: the class of objects of the engine's classes and, where
    /// `readsBoxes`, boxes and their handles. Nil: the C API. Never without `values`.
    private(set) var objects: BoxBits?

    /// Before start: the C API for everything.
    static let none = LayoutShortcuts(values: nil, objects: nil)

    private init(values: JSValueBits?, objects: BoxBits?) {
        (self.values, self.objects) = (values, objects)
    }

    /// The value encoding checked in `ctx` (objects are checked later, by `verifyingObjects`).
    init(verifyingValuesIn ctx: JSContextRef) {
        guard !Self.turnedOff else { self = .none; return }
        let bits = JSValueBits(verifyingIn: ctx)
        self.init(values: bits.isUsable ? bits : nil, objects: nil)
    }

    /// The object layouts checked (see `BoxBits`), once the engine can make boxes.
    mutating func verifyObjects(in ctx: JSContextRef, classes: [JSClassRef], handleClass: JSClassRef,
                                makeBox: (JSObjectRef) -> JSObjectRef) {
        guard let values else { return }
        let objects = BoxBits(verifyingIn: ctx, bits: values, classes: classes, handleClass: handleClass, makeBox: makeBox)
        self.objects = objects.isUsable ? objects : nil
    }

    /// Box reads: the object layouts, when boxes themselves were recognised too.
    @inline(__always) var boxes: BoxBits? {
        guard let objects, objects.readsBoxes else { return nil }
        return objects
    }

    // MARK: Answers either way

    @inline(__always) func makeBoolean(_ b: Bool, _ ctx: JSContextRef) -> JSValueRef {
        if let values { return values.makeBoolean(b) }
        return JSValueMakeBoolean(ctx, b)
    }

    /// The value as a number when it is one.
    @inline(__always) func number(_ value: JSValueRef, _ ctx: JSContextRef) -> Double? {
        if let values { return values.number(value) }
        return JSValueIsNumber(ctx, value) ? JSValueToNumber(ctx, value, nil) : nil
    }

    /// The value as an `Int32` when it is a number with that exact value.
    @inline(__always) func int32(_ value: JSValueRef, _ ctx: JSContextRef) -> Int32? {
        if let values { return values.int32(value) }
        return JSValueIsNumber(ctx, value) ? Int32(exactly: JSValueToNumber(ctx, value, nil)) : nil
    }

    /// Whether the value is `false` (nil's value in JS).
    @inline(__always) func isFalse(_ value: JSValueRef, _ ctx: JSContextRef) -> Bool {
        if let values { return values.boolean(value) == false }
        return JSValueIsBoolean(ctx, value) && !JSValueToBoolean(ctx, value)
    }
}
