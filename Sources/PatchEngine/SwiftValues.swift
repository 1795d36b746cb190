import CJavaScriptCore
import CPatchEngine
import Foundation

/// JS values as Swift values (`PatchEngine.evaluate`'s completion value, a script's arguments to a
/// `ScriptExtension` function, a `ScriptCallback`'s result): string → `String`, number → `Double`,
/// boolean → `Bool`, null/undefined → nil, array → `[Any?]`, plain object → `[String: Any?]`,
/// an Objective-C object → `ObjCObject`, a function → nil.
///
/// A script chooses the value, so the conversion is bounded: an object met again inside itself
/// reads as nil there (`var a = {}; a.me = a; a` recursed until the stack overflowed and took the
/// app down), nesting deeper than `maximumDepth` reads as nil, and after `maximumValues` values
/// arrays end and objects lose their remaining keys (`[a, a]` nested 50 times would be 2^50
/// values; an array's length can be 2^32 − 1). A value cut so is logged once per conversion.
/// Reading an object runs its getters and proxy traps, which are script code: `swiftValue` runs
/// the conversion inside an entry, under the limits.
struct SwiftValues {
    static let maximumValues = 100_000
    static let maximumDepth = 100

    private let engine: Engine
    private var budget = maximumValues
    private var open: Set<JSObjectRef> = []
    private(set) var wasCut = false

    init(engine: Engine) { self.engine = engine }

    mutating func convert(_ value: JSValueRef, depth: Int = 0) -> Any? {
        let ctx = engine.ctx
        guard budget > 0 else { wasCut = true; return nil }
        budget -= 1
        switch JSValueGetType(ctx, value) {
        case kJSTypeUndefined, kJSTypeNull: return nil
        case kJSTypeBoolean: return JSValueToBoolean(ctx, value)
        case kJSTypeNumber: return JSValueToNumber(ctx, value, nil)
        case kJSTypeString: return JSC.toString(ctx, value)
        default:
            if let object = engine.unbox(value) { return ObjCObject(retaining: object) }
            guard let object = JSValueToObject(ctx, value, nil), !JSObjectIsFunction(ctx, object) else { return nil }
            guard depth < Self.maximumDepth, !open.contains(object) else { wasCut = true; return nil }
            open.insert(object)
            defer { open.remove(object) }
            if JSValueIsArray(ctx, value) {
                var result: [Any?] = []
                for index in 0..<JSC.arrayLength(ctx, object) {
                    guard budget > 0 else { wasCut = true; break }
                    // A read that throws reads as undefined, as `JSC.get` does for objects below.
                    result.append(convert(JSObjectGetPropertyAtIndex(ctx, object, UInt32(index), nil) ?? JSValueMakeUndefined(ctx),
                                          depth: depth + 1))
                }
                return result
            }
            var result: [String: Any?] = [:]
            for key in JSC.propertyNames(ctx, object) {
                guard budget > 0 else { wasCut = true; break }
                result[key] = convert(JSC.get(ctx, object, key), depth: depth + 1)
            }
            return result
        }
    }
}

extension Engine {
    /// `value` as Swift (`SwiftValues`), converted where the thread is; call inside an entry
    /// (a native callback of JS is inside one). `what` names the value in the log when it is cut.
    func toSwift(_ value: JSValueRef, what: String = "a JS value") -> Any? {
        var values = SwiftValues(engine: self)
        let result = values.convert(value)
        if values.wasCut {
            log("\(what) was cut when converted to Swift: it contains itself, is nested deeper than \(SwiftValues.maximumDepth) levels or holds more than \(SwiftValues.maximumValues) values")
        }
        return result
    }

    /// `value`, which an entry returned, as Swift, converted inside a new entry: its getters and
    /// proxy traps run under the limits, and the promise jobs they queue run there too. Throws the
    /// limits' end (`ExecutionTimeout`) when they ended it.
    func swiftValue(_ value: JSValueRef, of what: String) throws -> Any? {
        try runningScriptCode { toSwift(value, what: what) }
    }
}
