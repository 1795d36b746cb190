import CJavaScriptCore
import Foundation
import PatchRuntime
import PatchSupport

/// Struct layouts known to the bridge: each struct tag maps to the JS keys of its fields. Layout
/// (offsets, padding) always comes from the method's own type encoding, so structs with alignment
/// padding cross correctly (JSPatch packed fields and got those wrong).
///
/// Keys are either one per leaf field, flat (`CGRect` → x, y, width, height: the engine's
/// canonical shape for the structs it knows, as JSPatch's method bridge had them), or one per
/// top-level field, nested (`defineStruct({name: 'CGRect', types: '{CGPoint}{CGSize}', keys:
/// ['origin', 'size']})`, JSPatch's JPCFunction shape), a struct field taking the keys of its own
/// struct's definition. Both shapes of a rect are read: a flat CGRect also accepts {origin, size},
/// and a nested struct made for JS also carries its leaves flat when their names are unique.
final class StructRegistry: @unchecked Sendable {
    private struct Layouts {
        var keysByName: [String: [String]]
        var typesByName: [String: String] = [:]
        /// Resolved fields per parsed type (types are interned and never freed, so the pointer
        /// names one type for good); emptied whenever a definition changes.
        var fieldsByType: [VMKey: StructFields] = [:]
        /// Call adapters per method signature (signatures of slots are never freed), and the
        /// signatures that can't have one; emptied with `fieldsByType`.
        var adaptersBySignature: [VMKey: CallAdapter] = [:]
        var signaturesWithoutAdapter: Set<OpaquePointer> = []
        /// Counts the changes of any definition (define and restore).
        var generation = 0
    }

    /// A type or signature in one VM: what is cached holds JS values, which belong to one VM
    /// (the engine runs one VM per concurrently running thread, docs/threads.md).
    struct VMKey: Hashable {
        let vm: OpaquePointer
        let item: OpaquePointer
        init(_ ctx: JSContextRef, _ item: OpaquePointer) { vm = JSContextGetGroup(ctx)!; self.item = item }
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
        struct Field {
            /// The leaf's key path: one key for a flat struct, more for nested ones.
            let path: [String]
            let pathValues: [JSValueRef]
            /// Where the other shape keeps the leaf (read when `path` is missing; written too
            /// when it is a single key): see StructRegistry.
            let alternate: [String]?
            let alternateValues: [JSValueRef]?
            let offset: Int
            let type: ObjCType
            var key: String { path.joined(separator: ".") }
        }
        let fields: [Field]
        /// nil when there are more fields than a JS function should take as parameters.
        let maker: JSObjectRef?
        /// The object literal a maker returns, over parameters p0, p1, … (nil without a maker).
        private let literalParts: [LiteralPart]?

        init(_ fields: [(path: [String], alternate: [String]?, offset: Int, type: ObjCType)], ctx: JSContextRef) {
            func values(_ keys: [String]) -> [JSValueRef] {
                keys.map { key in
                    let value = JSC.makeString(ctx, key)
                    JSValueProtect(ctx, value)
                    return value
                }
            }
            self.fields = fields.map { field in
                Field(path: field.path, pathValues: values(field.path), alternate: field.alternate,
                      alternateValues: field.alternate.map(values), offset: field.offset, type: field.type)
            }
            // In a literal, "__proto__" would set the prototype instead of making a property.
            let allKeys = fields.flatMap { $0.path + ($0.alternate ?? []) }
            literalParts = fields.count <= 64 && !allKeys.contains("__proto__") ? Self.parts(fields.map { ($0.path, $0.alternate) }) : nil
            let parameters = fields.indices.map { "a\($0)" }
            maker = literalParts.flatMap { parts in
                StructRegistry.compile("(function (\(parameters.joined(separator: ", "))) { return \(Self.literal(parts, parameters)); })", ctx)
            }
        }

        /// The object literal of this struct with `values[i]` (expressions) for leaf i, or nil
        /// when it cannot be written as one.
        func literal(_ values: [String]) -> String? {
            literalParts.map { Self.literal($0, values) }
        }

        /// An object literal's entries: a key and a leaf's index, or a key and nested entries.
        private indirect enum LiteralPart { case leaf(String, Int), group(String, [LiteralPart]) }

        private static func parts(_ fields: [(path: [String], alternate: [String]?)]) -> [LiteralPart]? {
            func group(_ items: [(path: ArraySlice<String>, index: Int)]) -> [LiteralPart]? {
                var parts: [LiteralPart] = []
                var i = 0
                while i < items.count {
                    let head = items[i].path.first!
                    guard let key = jsonLiteral(head) else { return nil }
                    if items[i].path.count == 1 { parts.append(.leaf(key, items[i].index)); i += 1; continue }
                    var members: [(path: ArraySlice<String>, index: Int)] = []
                    while i < items.count, items[i].path.first == head, items[i].path.count > 1 {
                        members.append((items[i].path.dropFirst(), items[i].index)); i += 1
                    }
                    guard let nested = group(members) else { return nil }
                    parts.append(.group(key, nested))
                }
                return parts
            }
            var items = fields.enumerated().map { (path: $1.path[...], index: $0) }
            // A nested struct's flat aliases are written too.
            for (index, field) in fields.enumerated() where field.alternate?.count == 1 {
                items.append((path: field.alternate![...], index: index))
            }
            return group(items)
        }

        private static func literal(_ parts: [LiteralPart], _ values: [String]) -> String {
            "{" + parts.map { part -> String in
                switch part {
                case let .leaf(key, index): return "\(key): \(values[index])"
                case let .group(key, nested): return "\(key): \(literal(nested, values))"
                }
            }.joined(separator: ", ") + "}"
        }

        /// Keys come from scripts (defineStruct): each is written as a JSON string literal.
        private static func jsonLiteral(_ key: String) -> String? {
            (try? JSONSerialization.data(withJSONObject: [key])).map {
                String(decoding: $0, as: UTF8.self).dropFirst().dropLast().description
            }
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
        let key = VMKey(ctx, signature.raw)
        let cached = layouts.withLock { ($0.adaptersBySignature[key], $0.signaturesWithoutAdapter.contains(signature.raw)) }
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
            let fieldParameters = layout.fields.indices.map { "p\(parameters.count + $0)" }
            guard let literal = layout.literal(fieldParameters) else {
                layouts.withLock { _ = $0.signaturesWithoutAdapter.insert(signature.raw) }
                return nil
            }
            parameters += fieldParameters
            values.append(literal)
            structArguments.append(layout)
        }
        let source = "(function (m, r\(parameters.map { ", " + $0 }.joined())) { return m(r\(values.map { ", " + $0 }.joined())); })"
        guard let function = Self.compile(source, ctx) else {
            layouts.withLock { _ = $0.signaturesWithoutAdapter.insert(signature.raw) }
            return nil
        }
        let adapter = CallAdapter(function: function, structArguments: structArguments, parameterCount: parameters.count)
        layouts.withLock { $0.adaptersBySignature[key] = adapter }
        return adapter
    }

    private let layouts = LockedValue(Layouts(keysByName: [
        "_NSRect": ["x", "y", "width", "height"], "CGRect": ["x", "y", "width", "height"],
        "_NSPoint": ["x", "y"], "CGPoint": ["x", "y"],
        "_NSSize": ["width", "height"], "CGSize": ["width", "height"],
        "_NSRange": ["location", "length"],
        "CGAffineTransform": ["a", "b", "c", "d", "tx", "ty"],
        "UIEdgeInsets": ["top", "left", "bottom", "right"],
        "CGVector": ["dx", "dy"],
        "UIOffset": ["horizontal", "vertical"],
    ], typesByName: [
        // The layouts of the structs the engine knows, for sizeof/newStruct/pvalStruct and type
        // lists (method crossings take theirs from the method's encoding). CGFloat is double.
        "CGRect": "{CGPoint=dd}{CGSize=dd}", "CGPoint": "dd", "CGSize": "dd",
        "_NSRect": "{_NSPoint=dd}{_NSSize=dd}", "_NSPoint": "dd", "_NSSize": "dd", "_NSRange": "QQ",
        "CGAffineTransform": "dddddd", "UIEdgeInsets": "dddd", "CGVector": "dd", "UIOffset": "dd",
    ]))

    /// Names scripts use for structs whose tag differs (GNUstep's and Apple's NSRange is _NSRange).
    private static let tagAliases = ["NSRange": "_NSRange", "NSRect": "_NSRect", "NSPoint": "_NSPoint", "NSSize": "_NSSize"]

    /// The names of a flat struct's top-level struct fields, for reading the nested shape.
    private static let nestedNames: [String: [String]] = ["CGRect": ["origin", "size"], "_NSRect": ["origin", "size"]]

    struct Definition { let keys: [String]?; let types: String? }

    /// Defines (or redefines) a struct; returns what was there before, for rollback. `types` are
    /// Objective-C encodings or JSPatch's letters (`TypeNames.structEncoding`).
    func define(name: String, types jsTypes: String, keys: [String]) throws -> Definition {
        guard !name.isEmpty else { throw BridgeError("defineStruct: the struct needs a name") }
        let types = try TypeNames.structEncoding(jsTypes, structs: self)
        let encoding = "{\(name)=\(types)}"
        var error: UnsafePointer<CChar>?
        guard let parsed = PETypeParse(encoding, &error) else {
            throw BridgeError("defineStruct \(name): invalid types \"\(jsTypes)\": \(error.map { String(cString: $0) } ?? "")")
        }
        let type = ObjCType(raw: parsed)
        let leaves = Self.leaves(type)
        if leaves.count != keys.count {
            guard keys.count == type.fieldCount else {
                throw BridgeError("defineStruct \(name): \(keys.count) keys for \(leaves.count) fields in \"\(jsTypes)\"")
            }
            _ = try paths(for: type, keys: keys)   // every nested struct must have keys of its own
        }
        return layouts.withLock { layouts in
            let previous = Definition(keys: layouts.keysByName[name], types: layouts.typesByName[name])
            layouts.keysByName[name] = keys
            layouts.typesByName[name] = types
            layouts.fieldsByType = [:]
            layouts.adaptersBySignature = [:]
            layouts.signaturesWithoutAdapter = []
            layouts.generation += 1
            return previous
        }
    }

    /// Changes whenever a struct definition changes: what a type list resolves to
    /// (`TypeNames.resolveTypeList`) can change only then, or when a class appears.
    var generation: Int { layouts.withLock { $0.generation } }

    /// The full encoding of a struct the engine knows or a script declared ("{PFPadded=cds}").
    func encoding(named name: String) -> String? {
        let tag = Self.tagAliases[name] ?? name
        return layouts.withLock { $0.typesByName[tag] }.map { "{\(tag)=\($0)}" }
    }

    /// The parsed type of a struct by name (newStruct, pvalStruct).
    func type(named name: String) throws -> ObjCType {
        var error: UnsafePointer<CChar>?
        guard let encoding = encoding(named: name), let type = PETypeParse(encoding, &error) else {
            throw BridgeError("unknown struct \(name): describe it with defineStruct({name: '\(name)', types: '...', keys: [...]})")
        }
        return ObjCType(raw: type)
    }

    /// Each leaf field's key path for `keys` of `type`: flat (a key per leaf) or nested (a key per
    /// top-level field, struct fields continuing with their own struct's keys).
    private func paths(for type: ObjCType, keys: [String]) throws -> [[String]] {
        let leaves = Self.leaves(type)
        if leaves.count == keys.count { return keys.map { [$0] } }
        guard keys.count == type.fieldCount else {
            throw BridgeError("struct \(type.name) has \(leaves.count) fields but defineStruct gave \(keys.count) keys")
        }
        var result: [[String]] = []
        for (i, key) in keys.enumerated() {
            let field = type.field(i)
            guard field.kind == .structure else { result.append([key]); continue }
            guard let subKeys = layouts.withLock({ $0.keysByName[field.name] }) else {
                throw BridgeError("struct \(type.name): field \(key) is a \(field.name) struct, which has no keys (define it with defineStruct)")
            }
            result += try paths(for: field, keys: subKeys).map { [key] + $0 }
        }
        return result
    }

    func restore(name: String, to definition: Definition) {
        layouts.withLock { layouts in
            layouts.keysByName[name] = definition.keys
            layouts.typesByName[name] = definition.types
            layouts.fieldsByType = [:]
            layouts.adaptersBySignature = [:]
            layouts.signaturesWithoutAdapter = []
            layouts.generation += 1
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
        let key = VMKey(ctx, type.raw)
        if let cached = layouts.withLock({ $0.fieldsByType[key] }) { return cached }
        let name = type.name
        let keys = layouts.withLock { $0.keysByName[name] }
        guard let keys else {
            throw BridgeError("unknown struct \(name.isEmpty ? type.encoding : name): describe it with defineStruct({name: '\(name)', types: '...', keys: [...]})")
        }
        let leaves = Self.leaves(type)
        let paths = try paths(for: type, keys: keys)
        // The other shape: a nested rect's leaves flat (when their names are unique), a flat
        // rect's leaves under origin/size.
        var alternates: [[String]?] = Array(repeating: nil, count: paths.count)
        if paths.contains(where: { $0.count > 1 }) {
            let names = paths.map { $0.last! }
            if Set(names).count == names.count, Set(names).isDisjoint(with: paths.map { $0[0] }) {
                alternates = names.map { [$0] }
            }
        } else if let nested = Self.nestedNames[name], nested.count == type.fieldCount {
            var index = 0
            for i in 0..<type.fieldCount {
                for _ in 0..<Self.leaves(type.field(i)).count {
                    alternates[index] = [nested[i], paths[index][0]]
                    index += 1
                }
            }
        }
        let fields = StructFields((0..<leaves.count).map { (paths[$0], alternates[$0], leaves[$0].offset, leaves[$0].type) }, ctx: ctx)
        layouts.withLock { layouts in
            // Only while the keys are still those read above (a definition may have changed meanwhile).
            if layouts.keysByName[name] == keys { layouts.fieldsByType[key] = fields }
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
                var target = object
                for key in field.pathValues.dropLast() {
                    let existing = JSObjectGetPropertyForKey(ctx, target, key, nil)
                    if let existing, JSValueIsObject(ctx, existing), let nested = JSValueToObject(ctx, existing, nil) {
                        target = nested
                    } else {
                        let nested = JSObjectMake(ctx, nil, nil)!
                        JSObjectSetPropertyForKey(ctx, target, key, nested, JSPropertyAttributes(kJSPropertyAttributeNone), nil)
                        target = nested
                    }
                }
                JSObjectSetPropertyForKey(ctx, target, field.pathValues.last!, try engine.toJS(p + field.offset, field.type),
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
            var item = Self.value(at: field.pathValues, in: object, ctx)
            if JSValueIsUndefined(ctx, item), let alternate = field.alternateValues {
                item = Self.value(at: alternate, in: object, ctx)
            }
            try engine.fromJS(item, field.type, into: p + field.offset, what: "\(what()).\(field.key)")
        }
    }

    /// The value at a key path of `object` (undefined where the path ends early).
    private static func value(at path: [JSValueRef], in object: JSObjectRef, _ ctx: JSContextRef) -> JSValueRef {
        var current: JSValueRef = object
        for key in path {
            guard JSValueIsObject(ctx, current), let o = JSValueToObject(ctx, current, nil) else { return JSValueMakeUndefined(ctx) }
            current = JSObjectGetPropertyForKey(ctx, o, key, nil) ?? JSValueMakeUndefined(ctx)
        }
        return current
    }
}
