import Foundation

/// A place in a source file, as clang reports it (1-based line and column, in bytes).
public struct SourcePosition: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    public var description: String { "\(file):\(line):\(column)" }
}

/// One node of clang's JSON AST, with the fields the converter reads typed. Clang's JSON writes a
/// location's `file` and `line` only when they change from the previous location it wrote, so
/// positions are filled in while reading, in the order clang writes them.
public final class ClangNode {
    /// A declaration another node refers to (`referencedDecl`, `decl`, `interface`).
    public struct Reference {
        public var id: String
        public var kind: String
        public var name: String
        public var type: String?
    }

    public let kind: String
    public let id: String
    public let name: String?
    /// `qualType` as written (`NSInteger`, `SKCart *`).
    public let type: String?
    /// The type with typedefs removed (`long`), when it differs.
    public let desugaredType: String?
    /// Where the node starts (macro uses: where the macro was used).
    public let position: SourcePosition?
    public let inner: [ClangNode]

    public let opcode: String?
    public let isPostfix: Bool
    public let castKind: String?
    public let selector: String?
    /// `instance`, `class`, `super (instance)`, `super (class)` (message sends).
    public let receiverKind: String?
    /// The receiver's class of a class message.
    public let classType: String?
    /// Literal values and constant-expression values, as clang prints them.
    public let value: String?
    public let referencedDecl: Reference?
    /// Ivar references: the ivar.
    public let decl: Reference?
    public let isArrow: Bool
    public let storageClass: String?
    /// `instance` of a method declaration.
    public let isInstance: Bool
    public let returnType: String?
    public let isImplicit: Bool
    public let isInline: Bool
    /// `@implementation`'s and categories' class.
    public let interfaceName: String?
    /// An `@interface`'s superclass.
    public let superclassName: String?
    /// Protocols an `@interface`, category or protocol adopts.
    public let protocolNames: [String]
    /// Initialisation style of a variable (`c`, `call`, `list`), nil without one.
    public let initStyle: String?
    /// `__block` variables.
    public let isBlockVariable: Bool
    /// A block's `Capture`: the variable, and whether it is shared (`__block`) rather than copied.
    public let capturedVariable: Reference?
    public let isByReference: Bool
    /// A method or function declared with `...`.
    public let isVariadic: Bool
    /// `@protocol(X)`'s protocol name.
    public let protocolName: String?

    init(kind: String, id: String, name: String?, type: String?, desugaredType: String?, position: SourcePosition?,
         inner: [ClangNode], fields: [String: Any]) {
        self.kind = kind
        self.id = id
        self.name = name
        self.type = type
        self.desugaredType = desugaredType
        self.position = position
        self.inner = inner
        opcode = fields["opcode"] as? String
        isPostfix = fields["isPostfix"] as? Bool ?? false
        castKind = fields["castKind"] as? String
        selector = fields["selector"] as? String
        receiverKind = fields["receiverKind"] as? String
        classType = (fields["classType"] as? [String: Any])?["qualType"] as? String
        if let v = fields["value"] as? String { value = v } else if let v = fields["value"] as? NSNumber { value = v.stringValue } else { value = nil }
        referencedDecl = Self.reference(fields["referencedDecl"])
        decl = Self.reference(fields["decl"])
        isArrow = fields["isArrow"] as? Bool ?? false
        storageClass = fields["storageClass"] as? String
        isInstance = fields["instance"] as? Bool ?? true
        returnType = (fields["returnType"] as? [String: Any])?["qualType"] as? String
        isImplicit = fields["isImplicit"] as? Bool ?? false
        isInline = fields["inline"] as? Bool ?? false
        interfaceName = (fields["interface"] as? [String: Any])?["name"] as? String
        superclassName = (fields["super"] as? [String: Any])?["name"] as? String
        protocolNames = (fields["protocols"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        initStyle = fields["init"] as? String
        isBlockVariable = fields["isBlockVariable"] as? Bool ?? ((type?.contains("__block") ?? false) || inner.contains { $0.kind == "BlocksAttr" })
        capturedVariable = Self.reference(fields["var"])
        isByReference = fields["byref"] as? Bool ?? false
        isVariadic = fields["variadic"] as? Bool ?? false
        protocolName = (fields["protocol"] as? [String: Any])?["name"] as? String
    }

    private static func reference(_ value: Any?) -> Reference? {
        guard let d = value as? [String: Any] else { return nil }
        return Reference(id: d["id"] as? String ?? "", kind: d["kind"] as? String ?? "", name: d["name"] as? String ?? "",
                         type: (d["type"] as? [String: Any])?["qualType"] as? String)
    }

    /// `kind` without clang's wrappers that change nothing in JS: implicit casts, parentheses,
    /// full-expression cleanups, constant-expression wrappers.
    public var unwrapped: ClangNode {
        switch kind {
        case "ImplicitCastExpr", "ParenExpr", "ExprWithCleanups", "ConstantExpr", "FullExpr":
            return inner.first?.unwrapped ?? self
        default:
            return self
        }
    }

    /// The type with typedefs removed.
    public var canonicalType: String? { desugaredType ?? type }

    /// Every node below, depth first.
    public func walk(_ visit: (ClangNode) -> Void) {
        visit(self)
        for child in inner { child.walk(visit) }
    }
}

/// A translation unit's JSON AST read into `ClangNode`s, with the declarations the converter
/// looks up by name or id.
public struct ClangTranslationUnit {
    public let topLevel: [ClangNode]
    /// The file clang was asked to parse.
    public let mainFile: String
    /// Enum constants' values, by name (values of enums declared anywhere in the unit).
    public private(set) var enumValues: [String: String] = [:]
    /// Functions declared in the unit, by name (the last declaration: a definition if there is one).
    public private(set) var functions: [String: ClangNode] = [:]
    /// File-scope variables, by name.
    public private(set) var globals: [String: ClangNode] = [:]
    /// Selectors declared in `@interface`s, categories and class extensions, by class name
    /// (`+` for class methods, `-` for instance methods, as in `+sel`).
    public private(set) var declaredSelectors: [String: Set<String>] = [:]
    /// Superclasses, by class name.
    public private(set) var superclasses: [String: String] = [:]
    /// Protocols adopted, by class or protocol name.
    public private(set) var adoptedProtocols: [String: [String]] = [:]
    /// Struct fields in order, by struct name (`CGRect`, `struct Foo`).
    public private(set) var structFields: [String: [String]] = [:]
    /// Variadic method declarations (`-log:(NSString *)format, ...`) and their implementations, by selector.
    public private(set) var variadicMethods: [String: [ClangNode]] = [:]

    /// Reads clang's JSON AST. `mainFile`: the parsed file; its declarations are the ones converted.
    public init(astJSON data: Data, mainFile: String) throws {
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw ClangInterfaceReader.Failure("clang's AST dump is not a JSON object")
        }
        self.mainFile = URL(fileURLWithPath: mainFile).standardizedFileURL.path
        var reader = Reader()
        topLevel = (root["inner"] as? [[String: Any]] ?? []).map { reader.node($0) }
        for node in topLevel { index(node) }
    }

    /// Top-level nodes written in the main file.
    public var mainFileDeclarations: [ClangNode] {
        topLevel.filter { node in
            guard let file = node.position?.file else { return false }
            return URL(fileURLWithPath: file).standardizedFileURL.path == mainFile
        }
    }

    private mutating func index(_ node: ClangNode) {
        switch node.kind {
        case "EnumDecl":
            var next = 0
            for constant in node.inner where constant.kind == "EnumConstantDecl" {
                var value = next
                if let expr = constant.inner.first, let v = Self.constantValue(expr), let n = Int(v) { value = n }
                if let name = constant.name { enumValues[name] = String(value) }
                next = value &+ 1
            }
        case "TypedefDecl":
            // `typedef NS_ENUM(...)` and `typedef struct {...} Name`: the enum or struct is inside.
            for child in node.inner { index(child) }
            if let name = node.name, let record = node.inner.first(where: { $0.kind == "RecordDecl" || $0.kind == "ElaboratedType" }) {
                if let fields = fieldsOf(record) { structFields[name] = fields }
            }
        case "RecordDecl":
            if let name = node.name, let fields = fieldsOf(node) {
                structFields[name] = fields
                structFields["struct " + name] = fields
            }
        case "FunctionDecl":
            if let name = node.name, functions[name] == nil || node.inner.contains(where: { $0.kind == "CompoundStmt" }) {
                functions[name] = node
            }
        case "VarDecl":
            if let name = node.name { globals[name] = node }
        case "ObjCInterfaceDecl", "ObjCCategoryDecl", "ObjCProtocolDecl":
            let cls = node.kind == "ObjCCategoryDecl" ? node.interfaceName : node.name
            guard let cls else { return }
            if let sup = node.superclassName { superclasses[cls] = sup }
            adoptedProtocols[cls, default: []] += node.protocolNames
            var set = declaredSelectors[cls] ?? []
            for m in node.inner where m.kind == "ObjCMethodDecl" {
                if let sel = m.name { set.insert((m.isInstance ? "-" : "+") + sel) }
            }
            declaredSelectors[cls] = set
            noteVariadicMethods(node)
        case "ObjCImplementationDecl", "ObjCCategoryImplDecl":
            noteVariadicMethods(node)
        default:
            break
        }
    }

    private mutating func noteVariadicMethods(_ container: ClangNode) {
        for m in container.inner where m.kind == "ObjCMethodDecl" && m.isVariadic {
            if let sel = m.name { variadicMethods[sel, default: []].append(m) }
        }
    }

    /// Whether `className` (its superclasses, their categories and protocols) declares `key`
    /// (`-sel` or `+sel`).
    public func declares(_ key: String, in className: String) -> Bool {
        var seen = Set<String>()
        var pending = [className]
        while let name = pending.popLast() {
            guard seen.insert(name).inserted else { continue }
            if declaredSelectors[name]?.contains(key) == true { return true }
            if let sup = superclasses[name] { pending.append(sup) }
            pending += adoptedProtocols[name] ?? []
        }
        return false
    }

    /// The class whose own key-value coding answers for instances of `className` (a Foundation
    /// collection, whose valueForKey: and setValue:forKey: are about its elements, or a class that
    /// declares them or +accessInstanceVariablesDirectly), nil when NSObject's reaches the ivars.
    public func keyValueCodingOwner(of className: String) -> String? {
        let collections: Set<String> = ["NSDictionary", "NSArray", "NSSet", "NSOrderedSet"]
        let redefining = ["-valueForKey:", "-setValue:forKey:", "+accessInstanceVariablesDirectly"]
        var name: String? = className, seen = Set<String>()
        while let n = name, n != "NSObject", seen.insert(n).inserted {
            if collections.contains(n) || redefining.contains(where: { declaredSelectors[n]?.contains($0) == true }) { return n }
            name = superclasses[n]
        }
        return nil
    }

    private func fieldsOf(_ record: ClangNode) -> [String]? {
        let fields = record.inner.filter { $0.kind == "FieldDecl" }.compactMap(\.name)
        return fields.isEmpty ? nil : fields
    }

    /// The value clang computed for a constant expression, looking through implicit casts.
    static func constantValue(_ node: ClangNode) -> String? {
        if node.kind == "ConstantExpr", let v = node.value { return v }
        if node.kind == "IntegerLiteral", let v = node.value { return v }
        if node.kind == "ImplicitCastExpr" || node.kind == "ParenExpr", let first = node.inner.first { return constantValue(first) }
        if node.kind == "UnaryOperator", node.opcode == "-", let first = node.inner.first, let v = constantValue(first) {
            return v.hasPrefix("-") ? String(v.dropFirst()) : "-" + v
        }
        return nil
    }

    /// The value of an integer constant expression made of literals, enum constants, casts and
    /// C's integer operators (`1 << 3`, `A | B`), computed as C does for 64-bit integers; nil for
    /// anything else. The patch gets the number, not JS's 32-bit operators.
    static func integerConstant(_ node: ClangNode, enumValues: [String: String]) -> Int64? {
        func value(_ n: ClangNode) -> Int64? {
            switch n.kind {
            case "IntegerLiteral", "ConstantExpr", "CharacterLiteral":
                if let v = n.value, let i = Int64(v) ?? UInt64(v).map({ Int64(bitPattern: $0) }) { return i }
                return n.kind == "ConstantExpr" ? n.inner.first.flatMap(value) : nil
            case "ImplicitCastExpr", "ParenExpr", "CStyleCastExpr":
                guard let first = n.inner.first, n.kind == "ParenExpr" || CTypes.isInteger(n.type) || CTypes.isInteger(n.desugaredType) else { return nil }
                return value(first)
            case "DeclRefExpr":
                guard let ref = n.referencedDecl, ref.kind == "EnumConstantDecl", let v = enumValues[ref.name] else { return nil }
                return Int64(v)
            case "UnaryOperator":
                guard let first = n.inner.first, let v = value(first) else { return nil }
                switch n.opcode {
                case "-": return 0 &- v
                case "+": return v
                case "~": return ~v
                default: return nil
                }
            case "BinaryOperator":
                guard n.inner.count == 2, let a = value(n.inner[0]), let b = value(n.inner[1]) else { return nil }
                switch n.opcode {
                case "<<": return b >= 0 && b < 64 ? a << b : nil
                case ">>": return b >= 0 && b < 64 ? a >> b : nil
                case "|": return a | b
                case "&": return a & b
                case "^": return a ^ b
                case "+": return a &+ b
                case "-": return a &- b
                case "*": return a &* b
                default: return nil
                }
            default:
                return nil
            }
        }
        return value(node)
    }

    /// Turns JSON objects into nodes, carrying the current file and line along.
    private struct Reader {
        var file = ""
        var line = 0

        /// Notes one location and returns where it points (a macro use: the use's place).
        mutating func location(_ value: Any?) -> SourcePosition? {
            guard let loc = value as? [String: Any] else { return nil }
            if loc["spellingLoc"] != nil || loc["expansionLoc"] != nil {
                _ = location(loc["spellingLoc"])
                return location(loc["expansionLoc"])
            }
            if let f = loc["file"] as? String { file = f }
            if let l = loc["line"] as? Int { line = l }
            guard let col = loc["col"] as? Int else { return nil }
            return SourcePosition(file: file, line: line, column: col)
        }

        mutating func node(_ json: [String: Any]) -> ClangNode {
            let loc = location(json["loc"])
            var begin: SourcePosition?
            if let range = json["range"] as? [String: Any] {
                begin = location(range["begin"])
                _ = location(range["end"])
            }
            let inner = (json["inner"] as? [[String: Any]] ?? []).map { node($0) }
            let type = json["type"] as? [String: Any]
            return ClangNode(
                kind: json["kind"] as? String ?? "", id: json["id"] as? String ?? "", name: json["name"] as? String,
                type: type?["qualType"] as? String, desugaredType: type?["desugaredQualType"] as? String,
                position: begin ?? loc, inner: inner, fields: json)
        }
    }
}
