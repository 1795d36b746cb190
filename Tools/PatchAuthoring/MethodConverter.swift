import Foundation

/// Converts one method's body: statements here, expressions in `ConvertedExpressions.swift`,
/// C function calls in `CFunctionCalls.swift`, format strings in `FormatArguments.swift`.
struct MethodConverter {
    let unit: ClangTranslationUnit
    let method: ObjCConverter.MethodName
    var state: ScriptState
    var issues: [ObjCConverter.Issue] = []
    /// JS names of declarations renamed (statics, reserved words), by declaration id.
    var names: [String: String] = [:]
    /// Inside a block: `self` is read from the variable the method captured it in. The converter's
    /// own variables start with `$`, which Objective-C names don't, so they can't shadow the method's.
    var blockDepth = 0
    var capturesSelf = false
    var position: SourcePosition
    var temporaries = 0
    /// The method's body (what block captures are checked against).
    var methodBody: ClangNode?
    /// `&local` arguments passed through a cell (OutParameters.swift), by node id.
    var outCells: [String: String] = [:]

    init(unit: ClangTranslationUnit, method: ObjCConverter.MethodName, state: ScriptState) {
        self.unit = unit
        self.method = method
        self.state = state
        self.position = SourcePosition(file: unit.mainFile, line: 0, column: 0)
    }

    static let indentUnit = "  "

    /// `  jsName: function (a, b) {\n … \n  }`
    mutating func convertMethod(_ node: ClangNode) -> String {
        if let p = node.position { position = p }
        let paramNodes = node.inner.filter { $0.kind == "ParmVarDecl" }
        let params = paramNodes.map { declare($0) }
        let body = node.inner.first { $0.kind == "CompoundStmt" }
        methodBody = body
        // A block that runs later sees another (or no) `self`: the method keeps its own for it.
        body?.walk { n in
            if n.kind == "BlockExpr" { n.walk { m in if m.kind == "DeclRefExpr", m.referencedDecl?.name == "self", m.referencedDecl?.kind == "ImplicitParamDecl" { capturesSelf = true } } }
        }
        var lines: [String] = []
        if capturesSelf { lines.append(indent(2) + "var $blockSelf = self;") }
        lines += weakParameterLines(paramNodes, names: params, depth: 2)
        if let body { lines += statements(body.inner, depth: 2) }
        return "\(Self.indentUnit)\(JSNames.methodName(method.selector)): function (\(params.joined(separator: ", "))) {\n"
            + lines.map { $0 + "\n" }.joined() + "\(Self.indentUnit)}"
    }

    func indent(_ depth: Int) -> String { String(repeating: Self.indentUnit, count: depth) }

    /// Records a declaration's JS name (renaming JS keywords and the engine's globals).
    mutating func declare(_ decl: ClangNode) -> String {
        let name = JSNames.local(decl.name ?? "_")
        if name != decl.name { names[decl.id] = name }
        return name
    }

    mutating func report(_ message: String, at node: ClangNode? = nil, severity: ObjCConverter.Issue.Severity = .error) {
        let where_ = node?.position ?? position
        let issue = ObjCConverter.Issue(severity: severity, position: where_, message: message, method: method)
        if !issues.contains(issue) { issues.append(issue) }
    }

    /// The statement the script has where conversion failed: it throws, naming the place.
    mutating func unconvertedStatement(_ reason: String, _ node: ClangNode) -> String {
        report(reason, at: node)
        return "throw new Error(\(JSNames.string("patchctl convert: not converted: \(reason) (\(node.position ?? position))")));"
    }

    // MARK: statements

    mutating func statements(_ nodes: [ClangNode], depth: Int) -> [String] {
        nodes.flatMap { statement($0, depth: depth) }
    }

    /// A statement as lines at `depth`, its first line marked with where it came from (ConvertedLineMap).
    mutating func statement(_ node: ClangNode, depth: Int) -> [String] {
        ConvertedLineMap.mark(unmarkedStatement(node, depth: depth), at: node.position)
    }

    mutating func unmarkedStatement(_ node: ClangNode, depth: Int) -> [String] {
        if let p = node.position { position = p }
        let pad = indent(depth)
        switch node.kind {
        case "CompoundStmt":
            return [pad + "{"] + statements(node.inner, depth: depth + 1) + [pad + "}"]
        case "NullStmt", "":
            return []
        case "DeclStmt":
            return node.inner.compactMap { declaration($0, depth: depth) }
        case "ReturnStmt":
            guard let value = node.inner.first else { return [pad + "return;"] }
            return [pad + "return \(expr(value, boxed: true));"]
        case "IfStmt":
            return ifStatement(node, depth: depth)
        case "WhileStmt":
            guard node.inner.count >= 2 else { return [pad + unconvertedStatement("while statement of an unexpected shape", node)] }
            return braced(pad + "while (\(condition(node.inner[node.inner.count - 2])))", node.inner.last!, depth: depth)
        case "DoStmt":
            guard node.inner.count == 2 else { return [pad + unconvertedStatement("do statement of an unexpected shape", node)] }
            var lines = braced(pad + "do", node.inner[0], depth: depth)
            lines[lines.count - 1] += " while (\(condition(node.inner[1])));"
            return lines
        case "ForStmt":
            return forStatement(node, depth: depth)
        case "ObjCForCollectionStmt":
            return forInStatement(node, depth: depth)
        case "SwitchStmt":
            return switchStatement(node, depth: depth)
        case "BreakStmt":
            return [pad + "break;"]
        case "ContinueStmt":
            return [pad + "continue;"]
        case "ObjCAutoreleasePoolStmt":
            // The engine drains its own pools around every crossing; the body is what matters.
            return node.inner.flatMap { statement($0, depth: depth) }
        case "ObjCAtTryStmt", "ObjCAtCatchStmt", "ObjCAtFinallyStmt":
            return [pad + unconvertedStatement("@try/@catch: an Objective-C exception can't be caught in a patch", node)]
        case "ObjCAtThrowStmt":
            return [pad + unconvertedStatement("@throw: a patch can't raise an Objective-C exception", node)]
        case "ObjCAtSynchronizedStmt":
            // JS runs on one thread at a time, but a native call inside the body lets other
            // threads run: the body is converted without the lock, and the author is told.
            report("@synchronized: the body runs without the lock (native calls inside it let other threads in)", at: node, severity: .warning)
            guard let body = node.inner.last, body.kind == "CompoundStmt" else { return [pad + unconvertedStatement("@synchronized of an unexpected shape", node)] }
            return braced(pad, body, depth: depth).enumerated().map { $0.offset == 0 ? pad + "{" : $0.element }
        case "GotoStmt", "IndirectGotoStmt":
            return [pad + unconvertedStatement("goto has no equivalent in JavaScript", node)]
        case "LabelStmt":
            let label = unconvertedStatement("a goto label has no equivalent in JavaScript", node)
            return [pad + label] + node.inner.flatMap { statement($0, depth: depth) }
        case "CaseStmt", "DefaultStmt":
            return [pad + unconvertedStatement("case label outside a switch body", node)]
        case "AttributedStmt":
            return node.inner.flatMap { statement($0, depth: depth) }
        case "AsmStmt", "GCCAsmStmt", "MSAsmStmt":
            return [pad + unconvertedStatement("inline assembly", node)]
        default:
            if let dropped = droppedMemoryManagement(node) { return dropped.isEmpty ? [] : [pad + dropped] }
            let text = expr(node, statement: true)
            return text == "undefined" ? [] : [pad + text + ";"]   // a release: nothing to do in JS
        }
    }

    /// `head {`, the body, `}`: braces always, so a single statement can't attach to the wrong place.
    mutating func braced(_ head: String, _ body: ClangNode, depth: Int) -> [String] {
        let inner = body.kind == "CompoundStmt" ? statements(body.inner, depth: depth + 1) : statement(body, depth: depth + 1)
        return [head + " {"] + inner + [indent(depth) + "}"]
    }

    mutating func ifStatement(_ node: ClangNode, depth: Int) -> [String] {
        let parts = node.inner.filter { $0.kind != "DeclStmt" && $0.kind != "VarDecl" }
        guard parts.count == 2 || parts.count == 3 else { return [indent(depth) + unconvertedStatement("if statement of an unexpected shape", node)] }
        var lines = braced(indent(depth) + "if (\(condition(parts[0])))", parts[1], depth: depth)
        if parts.count == 3 {
            var rest: [String]
            if parts[2].kind == "IfStmt" {
                rest = ifStatement(parts[2], depth: depth)
            } else {
                rest = braced(indent(depth) + "else", parts[2], depth: depth)
            }
            lines[lines.count - 1] += " " + rest[0].trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "if (", with: "else if (", options: .anchored)
            lines += rest.dropFirst()
        }
        return lines
    }

    mutating func forStatement(_ node: ClangNode, depth: Int) -> [String] {
        guard node.inner.count == 5 else { return [indent(depth) + unconvertedStatement("for statement of an unexpected shape", node)] }
        let initNode = node.inner[0], cond = node.inner[2], inc = node.inner[3], loopBody = node.inner[4]
        var initText = ""
        if initNode.kind == "DeclStmt" {
            let decls = initNode.inner.filter { $0.kind == "VarDecl" }
            initText = "var " + decls.map { d -> String in
                let name = declare(d)
                return d.inner.first.map { "\(name) = \(expr($0, boxed: true))" } ?? name
            }.joined(separator: ", ")
        } else if !initNode.kind.isEmpty {
            initText = expr(initNode, statement: true)
        }
        let condText = cond.kind.isEmpty ? "" : condition(cond)
        let incText = inc.kind.isEmpty ? "" : expr(inc, statement: true)
        return braced(indent(depth) + "for (\(initText); \(condText); \(incText))", loopBody, depth: depth)
    }

    /// `for (x in collection)`: over a snapshot of what the collection's enumerator gives (a
    /// dictionary enumerates its keys), by index: an element that arrives in JS as 0 or false
    /// (an NSNumber) must not end the loop.
    mutating func forInStatement(_ node: ClangNode, depth: Int) -> [String] {
        guard node.inner.count == 3 else { return [indent(depth) + unconvertedStatement("for-in of an unexpected shape", node)] }
        let element = node.inner[0], collection = node.inner[1]
        var variable: String
        var declares = false
        if element.kind == "DeclStmt", let decl = element.inner.first(where: { $0.kind == "VarDecl" }) {
            variable = declare(decl)
            declares = true
        } else {
            variable = expr(element)
        }
        temporaries += 1
        let list = "$list\(temporaries)", index = "$i\(temporaries)"
        let collectionType = CTypes.strip(collection.unwrapped.type)
        // An enumerator is enumerated itself; a dictionary enumerates its keys.
        let method = collectionType.contains("Enumerator") ? "" : collectionType.contains("Dictionary") ? "keyEnumerator()." : "objectEnumerator()."
        let head = "for (var \(list) = \(operand(collection, boxed: true)).\(method)allObjects(), \(index) = 0\(declares ? ", \(variable)" : ""); \(index) < \(list).count(); \(index)++)"
        let body = node.inner[2]
        let inner = body.kind == "CompoundStmt" ? statements(body.inner, depth: depth + 1) : statement(body, depth: depth + 1)
        return [indent(depth) + head + " {", indent(depth + 1) + "\(variable) = \(list).objectAtIndex(\(index));"] + inner + [indent(depth) + "}"]
    }

    mutating func switchStatement(_ node: ClangNode, depth: Int) -> [String] {
        guard let subject = node.inner.first(where: { $0.kind != "DeclStmt" }), let switchBody = node.inner.last, switchBody.kind == "CompoundStmt" else {
            return [indent(depth) + unconvertedStatement("switch of an unexpected shape", node)]
        }
        var lines = [indent(depth) + "switch (\(expr(subject))) {"]
        func labels(_ stmt: ClangNode, into lines: inout [String], converter: inout MethodConverter) {
            switch stmt.kind {
            case "CaseStmt":
                let value = stmt.inner.first.map { converter.caseValue($0) } ?? "undefined"
                lines.append(converter.indent(depth + 1) + "case \(value):")
                if let sub = stmt.inner.dropFirst().last { labels(sub, into: &lines, converter: &converter) }
            case "DefaultStmt":
                lines.append(converter.indent(depth + 1) + "default:")
                if let sub = stmt.inner.last { labels(sub, into: &lines, converter: &converter) }
            default:
                lines += converter.statement(stmt, depth: depth + 2)
            }
        }
        for stmt in switchBody.inner { labels(stmt, into: &lines, converter: &self) }
        lines.append(indent(depth) + "}")
        return lines
    }

    mutating func caseValue(_ node: ClangNode) -> String {
        if let v = ClangTranslationUnit.constantValue(node) { return v }
        return expr(node)
    }

    /// `Type name = value;` → `var name = value;`. Function-level statics live in the script,
    /// once, as they live once in the app.
    mutating func declaration(_ node: ClangNode, depth: Int) -> String? {
        guard node.kind == "VarDecl" else {
            if ["RecordDecl", "TypedefDecl", "EnumDecl", "TypeAliasDecl"].contains(node.kind) { return nil }
            return indent(depth) + unconvertedStatement("a local \(node.kind) declaration", node)
        }
        if node.storageClass == "static" {
            let base = "\(method.className)_\(JSNames.methodName(method.selector))_\(node.name ?? "static")"
            var name = base, n = 1
            while state.staticNames.contains(name) { n += 1; name = base + "\(n)" }
            state.staticNames.insert(name)
            names[node.id] = name
            let initial = node.inner.first.map { expr($0, boxed: true) } ?? defaultValue(node)
            state.preamble.append("var \(name) = \(initial);   // static in \(method)")
            return nil
        }
        if node.storageClass == "extern" { return nil }
        let name = declare(node)
        var value: String
        if let initial = node.inner.first(where: { !$0.kind.hasSuffix("Attr") }) {
            value = expr(initial, boxed: true)
            let written = CTypes.strip(node.type)
            if (node.type ?? "").contains("__weak") || written.hasPrefix("__weak") {
                value = "__weak(\(value))"
            } else if (initial.unwrapped.type ?? "").contains("__weak"), CTypes.isObjectPointer(node.type) {
                value = "__strong(\(value))"   // a strong local from a weak one: nil once the object is gone
            }
            if CTypes.isStruct(node.canonicalType), ["DeclRefExpr", "MemberExpr", "ObjCIvarRefExpr"].contains(initial.unwrapped.kind) {
                value = "Object.assign({}, \(value))"   // C copies a struct; JS would share the object
            }
        } else {
            value = defaultValue(node)
        }
        return indent(depth) + "var \(name) = \(value);"
    }

    /// What an uninitialised local holds in the patch: zero, nil, an empty struct.
    func defaultValue(_ node: ClangNode) -> String {
        if CTypes.isNumber(node.canonicalType) || CTypes.isNumber(node.type) { return CTypes.isBool(node.type) ? "false" : "0" }
        if CTypes.isStruct(node.canonicalType) { return "{}" }
        return Self.nilValue(node.type)
    }

    /// `[x release]`, `[x retain]` … as statements: the engine owns what JS holds, so they go.
    /// An ivar released is set to nil through key-value coding, which releases it.
    mutating func droppedMemoryManagement(_ node: ClangNode) -> String? {
        let n = node.unwrapped
        guard n.kind == "ObjCMessageExpr", let sel = n.selector, n.receiverKind == "instance",
              ["release", "autorelease", "retain"].contains(sel), let receiver = n.inner.first?.unwrapped else { return nil }
        if sel == "release", receiver.kind == "ObjCIvarRefExpr", let ivar = receiver.decl?.name {
            if let problem = ivarProblem(receiver) { return unconverted(problem, receiver) + ";" }
            return "\(ivarBase(receiver)).setValue_forKey(null, \(JSNames.string(ivar)));"
        }
        return ""
    }
}
