import Foundation

/// Converts Objective-C method implementations, read by clang, into a patch script in the
/// engine's dialect (`defineClass('Class', {instance methods}, {class methods})`).
///
/// What can't be converted is reported with its position and a reason, and the script marks the
/// place with a `throw` naming it, so a partial conversion fails loudly where it is incomplete
/// instead of doing something else quietly.
public struct ObjCConverter {
    /// One method, as `-[Class selector]` or `+[Class selector]`.
    public struct MethodName: Hashable, CustomStringConvertible, Sendable {
        public var className: String
        public var selector: String
        public var isClassMethod: Bool

        public init(className: String, selector: String, isClassMethod: Bool) {
            self.className = className
            self.selector = selector
            self.isClassMethod = isClassMethod
        }

        /// Parses `-[Class sel:]`, `+[Class sel]`, `-[Class(Category) sel]` (the category is ignored).
        public init?(parsing text: String) {
            let t = text.trimmingCharacters(in: .whitespaces)
            guard t.count > 4, let sign = t.first, sign == "-" || sign == "+", t.dropFirst().first == "[", t.last == "]" else { return nil }
            let body = t.dropFirst(2).dropLast().trimmingCharacters(in: .whitespaces)
            let parts = body.split(separator: " ", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[1].isEmpty, !parts[1].contains(" ") else { return nil }
            var cls = parts[0]
            if let paren = cls.firstIndex(of: "(") { cls = String(cls[..<paren]) }
            guard !cls.isEmpty else { return nil }
            self.init(className: cls, selector: parts[1], isClassMethod: sign == "+")
        }

        public var description: String { "\(isClassMethod ? "+" : "-")[\(className) \(selector)]" }
    }

    /// Something the conversion reports: an error is a place not converted (the script throws
    /// there), a warning is converted code that needs the author's attention.
    public struct Issue: Equatable, CustomStringConvertible, Sendable {
        public enum Severity: String, Sendable { case error, warning }
        public var severity: Severity
        public var position: SourcePosition
        public var message: String
        /// The method the issue is in.
        public var method: MethodName?

        public var description: String { "\(position): \(severity.rawValue): \(message)" }
    }

    /// What a conversion produced.
    public struct Result {
        public var script: String
        public var issues: [Issue]
        /// The methods converted, in the file's order.
        public var methods: [MethodName]
        /// App C functions the script calls through `defineCFunction`: the app must list them in
        /// `PatchEngine.allowedCFunctions`.
        public var cFunctions: [String]
        /// Where each line of `script` came from in the Objective-C file.
        public var lineMap = ConvertedLineMap()
        /// `script` ending with `lineMap`'s comment: what `patchctl convert` writes.
        public var scriptWithLineMap: String { script + lineMap.comment + "\n" }

        public var errors: [Issue] { issues.filter { $0.severity == .error } }
    }

    public let unit: ClangTranslationUnit

    public init(unit: ClangTranslationUnit) {
        self.unit = unit
    }

    /// Parses `path` with clang (`reader`'s include paths and flags) and converts it.
    public static func convert(file path: String, reader: ClangInterfaceReader, methods: [MethodName]? = nil) throws -> Result {
        let data = try reader.astJSON(ofSource: path)
        let unit = try ClangTranslationUnit(astJSON: data, mainFile: path)
        return try ObjCConverter(unit: unit).convert(methods: methods)
    }

    /// Converts the methods named (default: every method of every `@implementation` in the main
    /// file). Throws when a named method isn't implemented in the file.
    public func convert(methods wanted: [MethodName]? = nil) throws -> Result {
        var state = ScriptState()
        var blocks: [(className: String, instance: [String], classMethods: [String], protocol: String?)] = []
        var found = Set<MethodName>(), order: [MethodName] = []
        var issues: [Issue] = []
        for impl in unit.mainFileDeclarations where impl.kind == "ObjCImplementationDecl" || impl.kind == "ObjCCategoryImplDecl" {
            guard let className = impl.kind == "ObjCImplementationDecl" ? impl.name : impl.interfaceName else { continue }
            var instance: [String] = [], classMethods: [String] = [], newMethods: [(MethodName, ClangNode)] = []
            for method in impl.inner where method.kind == "ObjCMethodDecl" && !method.isImplicit {
                guard let selector = method.name, method.inner.contains(where: { $0.kind == "CompoundStmt" }) else { continue }
                let name = MethodName(className: className, selector: selector, isClassMethod: !method.isInstance)
                if let wanted, !wanted.contains(name) { continue }
                found.insert(name)
                order.append(name)
                var converter = MethodConverter(unit: unit, method: name, state: state)
                let text = ConvertedLineMap.markMethod(converter.convertMethod(method), at: method.position)
                state = converter.state
                issues += converter.issues
                if name.isClassMethod { classMethods.append(text) } else { instance.append(text) }
                if !unit.declares((name.isClassMethod ? "+" : "-") + selector, in: className), Self.needsTypes(method) {
                    newMethods.append((name, method))
                }
            }
            guard !instance.isEmpty || !classMethods.isEmpty else { continue }
            var protocolName: String?
            if !newMethods.isEmpty {
                // A method the class doesn't declare is new to the running class: the engine would
                // give it `id` everywhere, so its types travel in a protocol the class adopts.
                let proto = "\(className)ConvertedMethods"
                protocolName = proto
                state.preamble.append(Self.protocolDefinition(proto, newMethods))
            }
            blocks.append((className, instance, classMethods, protocolName))
        }
        if let wanted {
            let missing = wanted.filter { !found.contains($0) }
            if !missing.isEmpty {
                throw ClangInterfaceReader.Failure("not implemented in \(unit.mainFile): " + missing.map(\.description).joined(separator: ", "))
            }
        }
        var out = "// Converted from \((unit.mainFile as NSString).lastPathComponent) by patchctl convert.\n"
        // A class the script defines needs no require, unless the lines before its defineClass (a
        // static's initial value) already name it: `defineClass('NSString', …)` after
        // `var key = NSString.stringWithString(…)` (a category on NSString with a static string).
        let defined = Set(blocks.map(\.className)), preamble = state.preamble.joined(separator: "\n")
        let classes = state.requiredClasses.filter { !defined.contains($0) || preamble.range(of: "\\b\($0)\\.", options: .regularExpression) != nil }.sorted()
        if !classes.isEmpty { out += "require('\(classes.joined(separator: ", "))');\n" }
        if !state.extensions.isEmpty {
            out += "require('JPEngine').addExtensions([\(state.extensions.sorted().map { "'\($0)'" }.joined(separator: ", "))]);\n"
        }
        for name in state.helpers.sorted() { out += MethodConverter.helpers[name]! + "\n" }
        for line in state.preamble { out += line + "\n" }
        for block in blocks {
            let head = block.protocol.map { "\(block.className) <\($0)>" } ?? block.className
            out += "defineClass('\(head)', {\n"
            out += block.instance.joined(separator: ",\n")
            out += block.instance.isEmpty ? "}" : "\n}"
            if !block.classMethods.isEmpty {
                out += ", {\n" + block.classMethods.joined(separator: ",\n") + "\n}"
            }
            out += ");\n"
        }
        let (script, lineMap) = ConvertedLineMap.extract(out)
        return Result(script: script, issues: issues, methods: order, cFunctions: state.cFunctions.sorted(), lineMap: lineMap)
    }

    /// A method whose types aren't all objects needs them declared to be added right.
    private static func needsTypes(_ method: ClangNode) -> Bool {
        let types = [method.returnType ?? "id"] + method.inner.filter { $0.kind == "ParmVarDecl" }.map { $0.type ?? "id" }
        return types.contains { !CTypes.isObjectPointer($0) }
    }

    private static func protocolDefinition(_ name: String, _ methods: [(MethodName, ClangNode)]) -> String {
        func spec(_ m: ClangNode) -> String {
            let params = m.inner.filter { $0.kind == "ParmVarDecl" }.map { CTypes.engineTypeName($0.type, $0.desugaredType) }
            let ret = CTypes.engineTypeName(m.returnType, nil)
            return "{ paramsType: '\(params.joined(separator: ", "))', returnType: '\(ret)' }"
        }
        let instance = methods.filter { !$0.0.isClassMethod }.map { "  \(JSNames.methodName($0.0.selector)): \(spec($0.1))" }
        let classes = methods.filter { $0.0.isClassMethod }.map { "  \(JSNames.methodName($0.0.selector)): \(spec($0.1))" }
        var text = "defineProtocol('\(name)', {\n" + instance.joined(separator: ",\n") + (instance.isEmpty ? "}" : "\n}")
        if !classes.isEmpty { text += ", {\n" + classes.joined(separator: ",\n") + "\n}" }
        return text + ");"
    }
}

/// What the methods of one script share: the classes they name, C functions and statics.
struct ScriptState {
    var requiredClasses = Set<String>()
    var extensions = Set<String>()
    /// Lines before the `defineClass`es: C function bindings, function-static variables.
    var preamble: [String] = []
    var cFunctions = Set<String>()
    var staticNames = Set<String>()
    /// Helper functions the methods use (`MethodConverter.helpers`).
    var helpers = Set<String>()
}

/// Names in the script: selectors to JS method names, and C names that JS can't use as written.
enum JSNames {
    /// JSPatch's rule: `:` → `_`, `_` → `__`, the trailing `:` dropped.
    static func methodName(_ selector: String) -> String {
        var out = ""
        let trimmed = selector.hasSuffix(":") ? String(selector.dropLast()) : selector
        for c in trimmed {
            switch c {
            case "_": out += "__"
            case ":": out += "_"
            default: out.append(c)
            }
        }
        return out
    }

    /// JS keywords and the engine's globals a local can't be named.
    static let reserved: Set<String> = [
        "break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete", "do", "else", "enum",
        "export", "extends", "false", "finally", "for", "function", "if", "import", "in", "instanceof", "new", "null",
        "return", "super", "switch", "this", "throw", "true", "try", "typeof", "var", "void", "while", "with", "yield",
        "let", "static", "implements", "interface", "package", "private", "protected", "public", "await", "arguments",
        "eval", "undefined", "NaN", "Infinity", "Math", "String", "Number", "Object", "Array", "Error", "console",
        "require", "defineClass", "defineProtocol", "defineCFunction", "block", "self", "nsnull", "include",
        "malloc", "free", "pval", "sizeof", "__weak", "__strong", "assignPointer", "externConstant", "OCNumber",
        "protocol",
    ]

    static func local(_ name: String) -> String { reserved.contains(name) ? name + "_" : name }

    /// A JS string literal.
    static func string(_ text: String) -> String {
        var out = "'"
        for scalar in text.unicodeScalars {
            switch scalar {
            case "'": out += "\\'"
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{2028}": out += "\\u2028"
            case "\u{2029}": out += "\\u2029"
            default:
                if scalar.value < 0x20 { out += String(format: "\\x%02x", scalar.value) } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "'"
    }
}
