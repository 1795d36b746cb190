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
    }

    /// A struct type's leaf fields with their JS keys, made once per type instead of per value.
    final class StructFields {
        struct Field { let key: String; let jsKey: JSStringRef; let offset: Int; let type: ObjCType }
        let fields: [Field]
        init(_ fields: [(key: String, offset: Int, type: ObjCType)]) {
            self.fields = fields.map { Field(key: $0.key, jsKey: JSStringCreateWithUTF8CString($0.key), offset: $0.offset, type: $0.type) }
        }
        deinit { for field in fields { JSStringRelease(field.jsKey) } }
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

    private func fields(for type: ObjCType) throws -> StructFields {
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
        let fields = StructFields(zip(keys, leaves).map { ($0, $1.offset, $1.type) })
        layouts.withLock { layouts in
            // Only while the keys are still those read above (a definition may have changed meanwhile).
            if layouts.keysByName[name] == keys { layouts.fieldsByType[type.raw] = fields }
        }
        return fields
    }

    func toJS(_ engine: Engine, _ p: UnsafeRawPointer, _ type: ObjCType) throws -> JSValueRef {
        let object = JSObjectMake(engine.ctx, nil, nil)!
        let layout = try fields(for: type)
        for field in layout.fields {
            JSObjectSetProperty(engine.ctx, object, field.jsKey, try engine.toJS(p + field.offset, field.type),
                                JSPropertyAttributes(kJSPropertyAttributeNone), nil)
        }
        return object
    }

    func fromJS(_ engine: Engine, _ value: JSValueRef, _ type: ObjCType, into p: UnsafeMutableRawPointer,
                what: @autoclosure () -> String) throws {
        let ctx = engine.ctx
        guard JSValueIsObject(ctx, value), !engine.isBox(value), let object = JSValueToObject(ctx, value, nil) else {
            throw BridgeError("\(what()) expects struct \(type.name) as an object, got \(engine.jsTypeName(value))")
        }
        let layout = try fields(for: type)
        for field in layout.fields {
            let item = JSObjectGetProperty(ctx, object, field.jsKey, nil)!
            try engine.fromJS(item, field.type, into: p + field.offset, what: "\(what()).\(field.key)")
        }
    }
}
