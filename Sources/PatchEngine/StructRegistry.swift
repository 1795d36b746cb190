import CJavaScriptCore
import Foundation
import PatchRuntime

/// Struct layouts known to the bridge: each struct tag maps to the JS keys of its leaf fields in
/// order. Layout (offsets, padding) always comes from the method's own type encoding, so structs
/// with alignment padding cross correctly (JSPatch packed fields and got those wrong).
final class StructRegistry: @unchecked Sendable {
    private struct Layouts {
        var keysByName: [String: [String]]
        var typesByName: [String: String] = [:]
        /// Resolved fields per parsed type (types are interned and never freed, so the pointer
        /// names one type for good); emptied whenever a definition changes.
        var fieldsByType: [OpaquePointer: StructFields] = [:]
        /// Call adapters per method signature (signatures of slots are never freed), and the
        /// signatures that can't have one; emptied with `fieldsByType`.
        var adaptersBySignature: [OpaquePointer: CallAdapter] = [:]
        var signaturesWithoutAdapter: Set<OpaquePointer> = []
    }

    /// How a patched method with struct arguments is entered with one call into JS: a function
    /// compiled for its signature, `(method, receiver, p0, p1, …) => method(receiver, p0, {"x": p1,
    /// "y": p2, …}, …)`, takes each struct's fields as numbers and builds the objects in JS, where
    /// making an object is a few nanoseconds (a separate maker call per struct was ≈ 90 ns).
    final class CallAdapter: @unchecked Sendable {
        let function: JSObjectRef
        /// Per argument after `_cmd`: its struct's fields, or nil for a value passed as it is.
        let structArguments: [StructFields?]
        let parameterCount: Int

        init(function: JSObjectRef, structArguments: [StructFields?], parameterCount: Int) {
            self.function = function
            self.structArguments = structArguments
            self.parameterCount = parameterCount
        }
    }

    /// A struct type's leaf fields with their JS keys, made once per type instead of per value.
    ///
    /// A struct crossing into JS is made by one call of a JS function compiled for its keys,
    /// `(a0, a1, …) => ({"x": a0, "y": a1, …})` (≈ 90 ns for an NSRect, against ≈ 250 ns for an
    /// empty object and a property set per field through the C API); fields are read back by
    /// key values, which JavaScriptCore needn't turn into identifiers on every read. The keys and
    /// the maker stay protected for the process (a struct definition is a few of each), so no
    /// JavaScriptCore call is ever made from a deinit, which could run under another lock.
    final class StructFields: @unchecked Sendable {
        struct Field { let key: String; let keyValue: JSValueRef; let offset: Int; let type: ObjCType }
        let fields: [Field]
        /// nil when there are more fields than a JS function should take as parameters.
        let maker: JSObjectRef?
        /// Each key as a JS string literal, when a maker could be made.
        let literals: [String]?

        init(_ fields: [(key: String, offset: Int, type: ObjCType)], ctx: JSContextRef) {
            self.fields = fields.map { field in
                let value = JSC.makeString(ctx, field.key)
                JSValueProtect(ctx, value)
                return Field(key: field.key, keyValue: value, offset: field.offset, type: field.type)
            }
            // In a literal, "__proto__" would set the prototype instead of making a property.
            let keys = fields.map(\.key)
            literals = keys.count <= 64 && !keys.contains("__proto__") ? Self.literals(keys) : nil
            maker = literals.flatMap { literals in
                let parameters = keys.indices.map { "a\($0)" }
                return StructRegistry.compile("(function (\(parameters.joined(separator: ", "))) { return \(Self.object(literals, parameters)); })", ctx)
            }
        }

        /// Keys come from scripts (defineStruct): each is written as a JSON string literal.
        private static func literals(_ keys: [String]) -> [String]? {
            try? keys.map { key in
                String(decoding: try JSONSerialization.data(withJSONObject: [key]), as: UTF8.self).dropFirst().dropLast().description
            }
        }

        /// An object literal of `literals` (keys) and `values` (expressions).
        static func object(_ literals: [String], _ values: [String]) -> String {
            "{" + zip(literals, values).map { "\($0): \($1)" }.joined(separator: ", ") + "}"
        }
    }

    /// A function compiled from `source`, protected for the process; nil if it doesn't compile to one.
    static func compile(_ source: String, _ ctx: JSContextRef) -> JSObjectRef? {
        let script = JSC.string(source)
        defer { JSStringRelease(script) }
        guard let made = JSEvaluateScript(ctx, script, nil, nil, 1, nil),
              let function = JSValueToObject(ctx, made, nil), JSObjectIsFunction(ctx, function) else { return nil }
        JSValueProtect(ctx, function)
        return function
    }

    /// The call adapter of `signature` (a method's, with at least one struct argument), made on
    /// first use; nil when a struct of it can't be made in JS (too many fields, a "__proto__" key).
    func callAdapter(for signature: ObjCSignature, _ ctx: JSContextRef) throws -> CallAdapter? {
        let cached = layouts.withLock { ($0.adaptersBySignature[signature.raw], $0.signaturesWithoutAdapter.contains(signature.raw)) }
        if let adapter = cached.0 { return adapter }
        if cached.1 { return nil }
        var structArguments: [StructFields?] = []
        var parameters: [String] = [], values: [String] = []
        for i in 2..<signature.argumentCount {
            let type = signature.argument(i)
            guard type.kind == .structure else {
                parameters.append("p\(parameters.count)")
                values.append(parameters.last!)
                structArguments.append(nil)
                continue
            }
            let layout = try fields(for: type, ctx)
            guard let literals = layout.literals else {
                layouts.withLock { _ = $0.signaturesWithoutAdapter.insert(signature.raw) }
                return nil
            }
            let fieldParameters = layout.fields.indices.map { "p\(parameters.count + $0)" }
            parameters += fieldParameters
            values.append(StructFields.object(literals, fieldParameters))
            structArguments.append(layout)
        }
        let source = "(function (m, r\(parameters.map { ", " + $0 }.joined())) { return m(r\(values.map { ", " + $0 }.joined())); })"
        guard let function = Self.compile(source, ctx) else {
            layouts.withLock { _ = $0.signaturesWithoutAdapter.insert(signature.raw) }
            return nil
        }
        let adapter = CallAdapter(function: function, structArguments: structArguments, parameterCount: parameters.count)
        layouts.withLock { $0.adaptersBySignature[signature.raw] = adapter }
        return adapter
    }

    private let layouts = LockedValue(Layouts(keysByName: [
        "_NSRect": ["x", "y", "width", "height"], "CGRect": ["x", "y", "width", "height"],
        "_NSPoint": ["x", "y"], "CGPoint": ["x", "y"],
        "_NSSize": ["width", "height"], "CGSize": ["width", "height"],
        "_NSRange": ["location", "length"],
        "CGAffineTransform": ["a", "b", "c", "d", "tx", "ty"],
        "UIEdgeInsets": ["top", "left", "bottom", "right"],
    ]))

    struct Definition { let keys: [String]?; let types: String? }

    /// Defines (or redefines) a struct; returns what was there before, for rollback.
    func define(name: String, types: String, keys: [String]) throws -> Definition {
        guard !name.isEmpty else { throw BridgeError("defineStruct: the struct needs a name") }
        let encoding = "{\(name)=\(types)}"
        var error: UnsafePointer<CChar>?
        guard let parsed = PETypeParse(encoding, &error) else {
            throw BridgeError("defineStruct \(name): invalid types \"\(types)\": \(error.map { String(cString: $0) } ?? "")")
        }
        let leaves = Self.leaves(ObjCType(raw: parsed))
        guard leaves.count == keys.count else {
            throw BridgeError("defineStruct \(name): \(keys.count) keys for \(leaves.count) fields in \"\(types)\"")
        }
        return layouts.withLock { layouts in
            let previous = Definition(keys: layouts.keysByName[name], types: layouts.typesByName[name])
            layouts.keysByName[name] = keys
            layouts.typesByName[name] = types
            layouts.fieldsByType = [:]
            layouts.adaptersBySignature = [:]
            layouts.signaturesWithoutAdapter = []
            return previous
        }
    }

    /// The full encoding of a struct declared with defineStruct ("{PFPadded=cds}"), for sizeof().
    func encoding(named name: String) -> String? {
        layouts.withLock { $0.typesByName[name] }.map { "{\(name)=\($0)}" }
    }

    func restore(name: String, to definition: Definition) {
        layouts.withLock { layouts in
            layouts.keysByName[name] = definition.keys
            layouts.typesByName[name] = definition.types
            layouts.fieldsByType = [:]
            layouts.adaptersBySignature = [:]
            layouts.signaturesWithoutAdapter = []
        }
    }

    /// Every scalar or pointer field with its offset from the start of the struct, nested structs flattened.
    static func leaves(_ type: ObjCType, base: Int = 0) -> [(offset: Int, type: ObjCType)] {
        switch type.kind {
        case .structure:
            return (0..<type.fieldCount).flatMap { leaves(type.field($0), base: base + type.fieldOffset($0)) }
        case .array:
            return (0..<type.fieldCount).flatMap { leaves(type.field($0), base: base + type.fieldOffset($0)) }
        default:
            return [(base, type)]
        }
    }

    func fields(for type: ObjCType, _ ctx: JSContextRef) throws -> StructFields {
        if let cached = layouts.withLock({ $0.fieldsByType[type.raw] }) { return cached }
        let name = type.name
        let keys = layouts.withLock { $0.keysByName[name] }
        guard let keys else {
            throw BridgeError("unknown struct \(name.isEmpty ? type.encoding : name): describe it with defineStruct({name: '\(name)', types: '...', keys: [...]})")
        }
        let leaves = Self.leaves(type)
        guard leaves.count == keys.count else {
            throw BridgeError("struct \(name) has \(leaves.count) fields but defineStruct gave \(keys.count) keys")
        }
        let fields = StructFields(zip(keys, leaves).map { ($0, $1.offset, $1.type) }, ctx: ctx)
        layouts.withLock { layouts in
            // Only while the keys are still those read above (a definition may have changed meanwhile).
            if layouts.keysByName[name] == keys { layouts.fieldsByType[type.raw] = fields }
        }
        return fields
    }

    func toJS(_ engine: Engine, _ p: UnsafeRawPointer, _ type: ObjCType) throws -> JSValueRef {
        let ctx = engine.ctx
        let layout = try fields(for: type, ctx)
        return try engine.apiLock.withLock(ctx) {
            if let maker = layout.maker {
                return try withUnsafeTemporaryAllocation(of: JSValueRef?.self, capacity: max(layout.fields.count, 1)) { buffer in
                    let values = buffer.baseAddress!
                    for (i, field) in layout.fields.enumerated() {
                        (values + i).initialize(to: try engine.toJS(p + field.offset, field.type))
                    }
                    var exception: JSValueRef?
                    let made = JSObjectCallAsFunction(ctx, maker, nil, layout.fields.count, values, &exception)
                    guard exception == nil, let made else { throw BridgeError("struct \(type.name) could not be made in JS") }
                    return made
                }
            }
            let object = JSObjectMake(ctx, nil, nil)!
            for field in layout.fields {
                JSObjectSetPropertyForKey(ctx, object, field.keyValue, try engine.toJS(p + field.offset, field.type),
                                          JSPropertyAttributes(kJSPropertyAttributeNone), nil)
            }
            return object
        }
    }

    func fromJS(_ engine: Engine, _ value: JSValueRef, _ type: ObjCType, into p: UnsafeMutableRawPointer,
                what: @autoclosure () -> String) throws {
        let ctx = engine.ctx
        guard JSValueIsObject(ctx, value), !engine.isBox(value), let object = JSValueToObject(ctx, value, nil) else {
            throw BridgeError("\(what()) expects struct \(type.name) as an object, got \(engine.jsTypeName(value))")
        }
        let layout = try fields(for: type, ctx)
        for field in layout.fields {
            let item = JSObjectGetPropertyForKey(ctx, object, field.keyValue, nil)!
            try engine.fromJS(item, field.type, into: p + field.offset, what: "\(what()).\(field.key)")
        }
    }
}
