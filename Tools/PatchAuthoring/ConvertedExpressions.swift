import Foundation

/// Expressions: clang's expression nodes to the engine's JS dialect.
extension MethodConverter {
    /// An expression as JS. `boxed`: the value is kept or has methods called on it, so literals
    /// that JS would hold as plain strings or arrays become Foundation objects. `statement`: the
    /// value is unused.
    mutating func expr(_ node: ClangNode, boxed: Bool = false, statement: Bool = false) -> String {
        if let p = node.position { position = p }
        switch node.kind {
        case "ImplicitCastExpr", "CStyleCastExpr", "ObjCBridgedCastExpr", "CXXStaticCastExpr", "CXXFunctionalCastExpr":
            return cast(node, boxed: boxed)
        case "ParenExpr":
            guard let inner = node.inner.first else { return "undefined" }
            let text = expr(inner, boxed: boxed)
            return Self.isAtomic(text) ? text : "(\(text))"
        case "ObjCBoxedExpr" where boxed && node.inner.first.map({ CTypes.isPointer($0.type) && !CTypes.isObjectPointer($0.type) }) == true:
            // @(cString) kept or sent messages: the NSString it makes (a JS string takes no messages).
            requireClass("NSString")
            return "NSString.stringWithString(\(expr(node.inner[0])))"
        case "ExprWithCleanups", "ConstantExpr", "FullExpr", "ObjCBoxedExpr", "MaterializeTemporaryExpr", "CXXBindTemporaryExpr":
            // @(expr): the engine hands numbers and strings to Objective-C as NSNumber/NSString.
            if node.kind == "ConstantExpr", let v = node.value, node.inner.first?.unwrapped.kind != "DeclRefExpr" || CTypes.isInteger(node.type) {
                if CTypes.isBool(node.type) { return v == "0" ? "false" : "true" }
                return v
            }
            return node.inner.first.map { expr($0, boxed: boxed, statement: statement) } ?? "undefined"
        case "OpaqueValueExpr":
            return node.inner.first.map { expr($0, boxed: boxed) } ?? "undefined"
        case "PseudoObjectExpr":
            // Properties, subscripts: the last semantic form is the accessor message clang chose.
            guard let semantic = node.inner.last, node.inner.count > 1 else { return unconverted("property access of an unexpected shape", node) }
            return expr(semantic, boxed: boxed, statement: statement)
        case "IntegerLiteral":
            return node.value ?? "0"
        case "FloatingLiteral":
            return Self.floatLiteral(node.value ?? "0")
        case "CharacterLiteral":
            return node.value ?? "0"
        case "ObjCBoolLiteralExpr", "CXXBoolLiteralExpr":
            return node.value == "true" || node.value == "1" || node.value == "__objc_yes" ? "true" : "false"
        case "GNUNullExpr", "CXXNullPtrLiteralExpr":
            return Self.nilValue(node.type)
        case "PredefinedExpr":
            // __func__, __PRETTY_FUNCTION__ in a method: clang's spelling, "-[Class selector]".
            return JSNames.string(method.description)
        case "StringLiteral":
            report("a C string literal becomes a JS string (the engine passes it where a char * is taken)", at: node, severity: .warning)
            return JSNames.string(CStringLiteral.decode(node.value ?? ""))
        case "ObjCStringLiteral":
            let text = JSNames.string(CStringLiteral.decode(node.inner.first?.value ?? "\"\""))
            guard boxed else { return text }
            requireClass("NSString")
            return "NSString.stringWithString(\(text))"
        case "ObjCArrayLiteral":
            let items = "[" + node.inner.map { expr($0) }.joined(separator: ", ") + "]"
            guard boxed else { return items }
            requireClass("NSArray")
            return "NSArray.arrayWithArray(\(items))"
        case "ObjCDictionaryLiteral":
            var keys: [String] = [], values: [String] = []
            for (i, child) in node.inner.enumerated() { if i % 2 == 0 { keys.append(expr(child)) } else { values.append(expr(child)) } }
            requireClass("NSDictionary")
            return "NSDictionary.dictionaryWithObjects_forKeys([\(values.joined(separator: ", "))], [\(keys.joined(separator: ", "))])"
        case "ObjCSelectorExpr":
            return JSNames.string(node.selector ?? "")
        case "DeclRefExpr":
            return declRef(node)
        case "ObjCIvarRefExpr":
            guard let ivar = node.decl?.name else { return unconverted("instance variable without a name", node) }
            if let problem = ivarProblem(node) { return unconverted(problem, node) }
            if CTypes.isPointer(node.type), !CTypes.isObjectPointer(node.type) {
                return unconverted("instance variable \(ivar) holds a C pointer (key-value coding can't read it; a patch has no C memory)", node)
            }
            if CTypes.isStruct(node.canonicalType) {
                report("struct instance variable \(ivar) is read through key-value coding (an NSValue on some platforms)", at: node, severity: .warning)
            }
            return "\(ivarBase(node)).valueForKey(\(JSNames.string(ivar)))"
        case "MemberExpr":
            return member(node)
        case "UnaryOperator":
            return unary(node, statement: statement)
        case "BinaryOperator":
            return binary(node, statement: statement)
        case "CompoundAssignOperator":
            return compoundAssign(node)
        case "ConditionalOperator":
            guard node.inner.count == 3 else { return unconverted("conditional of an unexpected shape", node) }
            return "\(operand(node.inner[0], condition: true)) ? \(operand(node.inner[1], boxed: boxed)) : \(operand(node.inner[2], boxed: boxed))"
        case "BinaryConditionalOperator":
            // `a ?: b`: JS's `||` gives `a` when it is truthy, as C gives it when it is non-zero.
            guard let first = node.inner.first, let last = node.inner.last else { return unconverted("?: of an unexpected shape", node) }
            // An object that may be an NSNumber 0 (a JS 0) is set: tested for nil, not truthiness.
            if CTypes.isObjectPointer(node.type), Self.mayHoldNumber(first.type) || Self.mayHoldNumber(first.unwrapped.type) || Self.isWeak(first) {
                temporaries += 1
                let v = "$value\(temporaries)"
                return "(function (\(v)) { return \(useHelper("$isSet"))(\(v)) ? \(v) : \(operand(last, boxed: boxed)); })(\(expr(first, boxed: boxed)))"
            }
            return "\(operand(first, boxed: boxed)) || \(operand(last, boxed: boxed))"
        case "ObjCMessageExpr":
            return message(node)
        case "CallExpr":
            return call(node)
        case "BlockExpr":
            return blockLiteral(node, typed: true)
        case "StmtExpr":
            return statementExpression(node)
        case "CompoundLiteralExpr":
            guard let list = node.inner.first else { return unconverted("compound literal without a value", node) }
            return initList(list, type: node.canonicalType)
        case "InitListExpr":
            return initList(node, type: node.canonicalType)
        case "ImplicitValueInitExpr":
            return CTypes.isNumber(node.canonicalType) ? "0" : (CTypes.isStruct(node.canonicalType) ? "{}" : Self.nilValue(node.type))
        case "UnaryExprOrTypeTraitExpr":
            return unconverted("sizeof/alignof: a patch has no C memory layout", node)
        case "ArraySubscriptExpr":
            return unconverted("C array or pointer subscript (a patch has no C memory)", node)
        case "ObjCEncodeExpr":
            return unconverted("@encode", node)
        case "ObjCProtocolExpr":
            // The runtime's protocol object, looked up by name when the patch runs.
            guard let name = node.protocolName else { return unconverted("@protocol(...) without a protocol name", node) }
            return "protocol(\(JSNames.string(name)))"
        case "ObjCIsaExpr":
            return unconverted("isa access", node)
        case "VAArgExpr":
            return unconverted("va_arg: variadic C arguments can't be read in a patch", node)
        case "AddrLabelExpr":
            return unconverted("address of a label", node)
        default:
            return unconverted("\(node.kind) has no conversion", node)
        }
    }

    /// An expression used as an operand: parenthesised unless it is one token or a call chain.
    mutating func operand(_ node: ClangNode, boxed: Bool = false, condition isCondition: Bool = false) -> String {
        let text = isCondition ? condition(node) : expr(node, boxed: boxed)
        return Self.isAtomic(text) ? text : "(\(text))"
    }

    /// A truth value: JS's truthiness is C's (nil arrives as false, zero is false).
    mutating func condition(_ node: ClangNode) -> String {
        let n = node.unwrapped
        if n.kind == "BinaryOperator", let op = n.opcode, op == "&&" || op == "||", n.inner.count == 2 {
            return "\(operand(n.inner[0], condition: true)) \(op) \(operand(n.inner[1], condition: true))"
        }
        // `x != nil` tests x's truthiness, as `x` does.
        if n.kind == "BinaryOperator", n.opcode == "!=", n.inner.count == 2 {
            if isNullConstant(n.inner[1]), CTypes.isPointer(n.inner[0].type) { return condition(n.inner[0]) }
            if isNullConstant(n.inner[0]), CTypes.isPointer(n.inner[1].type) { return condition(n.inner[1]) }
        }
        if CTypes.isObjectPointer(node.type) || CTypes.isObjectPointer(n.type) { return isSet(node) }
        return expr(node)
    }

    /// Text with no operator outside brackets and strings: safe as an operand or a receiver.
    static func isAtomic(_ text: String) -> Bool {
        guard let first = text.first, first != "!", first != "-", first != "+", first != "~" else { return false }
        var depth = 0, quote: Character?, escaped = false
        for c in text {
            if let q = quote {
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == q { quote = nil }
                continue
            }
            switch c {
            case "'", "\"": quote = c
            case "(", "[", "{": depth += 1
            case ")", "]", "}": depth -= 1
            case " ", "+", "-", "*", "/", "%", "<", ">", "=", "!", "&", "|", "^", "?", ":", ",", "~":
                if depth == 0 { return false }
            default: break
            }
        }
        return true
    }

    static func floatLiteral(_ value: String) -> String {
        var v = value
        while let last = v.last, "fFlL".contains(last) { v.removeLast() }
        return v
    }

    mutating func unconverted(_ reason: String, _ node: ClangNode) -> String {
        report(reason, at: node)
        return "(function () { throw new Error(\(JSNames.string("patchctl convert: not converted: \(reason) (\(node.position ?? position))"))); })()"
    }

    mutating func requireClass(_ name: String) {
        state.requiredClasses.insert(name)
    }

    // MARK: casts

    mutating func cast(_ node: ClangNode, boxed: Bool) -> String {
        guard let inner = node.inner.first else { return "undefined" }
        switch node.castKind {
        case "NullToPointer":
            return Self.nilValue(node.type)
        case "FloatingToIntegral":
            return "Math.trunc(\(expr(inner)))"
        case "IntegralToBoolean", "FloatingToBoolean", "PointerToBoolean":
            // Kept as the value: JS truthiness is the same test; an explicit BOOL cast is a boolean.
            if node.castKind == "PointerToBoolean", CTypes.isObjectPointer(inner.type) {
                let test = isSet(inner)
                return node.kind == "CStyleCastExpr" && !test.hasPrefix("!!") && !test.hasPrefix("$isSet") ? "!!\(Self.isAtomic(test) ? test : "(\(test))")" : test
            }
            if node.kind == "CStyleCastExpr" { return "!!\(operand(inner))" }
            return expr(inner, boxed: boxed)
        case "IntegralCast":
            // `(BOOL)1` is how GNUstep spells YES.
            if CTypes.isBool(node.type), let v = ClangTranslationUnit.constantValue(inner) { return v == "0" ? "false" : "true" }
            return expr(inner, boxed: boxed)
        case "ToVoid":
            return expr(inner, statement: true)
        case "IntegralToPointer":
            if let v = ClangTranslationUnit.constantValue(inner), v == "0" { return Self.nilValue(node.type) }
            return unconverted("an integer made a pointer", node)
        case "PointerToIntegral":
            return unconverted("a pointer made an integer", node)
        default:
            // BitCast, NoOp, LValueToRValue, decays, ObjC pointer casts: nothing in JS.
            if node.kind == "CStyleCastExpr", CTypes.isPointer(node.type),
               let v = ClangTranslationUnit.constantValue(inner), v == "0" { return Self.nilValue(node.type) }
            return expr(inner, boxed: boxed)
        }
    }

    // MARK: names

    mutating func declRef(_ node: ClangNode) -> String {
        guard let ref = node.referencedDecl else { return unconverted("a reference without a declaration", node) }
        switch ref.kind {
        case "ImplicitParamDecl":
            if ref.name == "self" { return blockDepth > 0 && capturesSelf ? "$blockSelf" : "self" }
            if ref.name == "_cmd" { return JSNames.string(method.selector) }
            return unconverted("implicit parameter \(ref.name)", node)
        case "ParmVarDecl", "VarDecl", "BindingDecl":
            if let renamed = names[ref.id] { return renamed }
            if let global = unit.globals[ref.name], global.id == ref.id {
                return globalValue(global, node)
            }
            return JSNames.local(ref.name)
        case "EnumConstantDecl":
            if let v = unit.enumValues[ref.name] { return v }
            return unconverted("enum constant \(ref.name) without a known value", node)
        case "FunctionDecl":
            return unconverted("C function \(ref.name) used as a value", node)
        default:
            return unconverted("reference to \(ref.kind) \(ref.name)", node)
        }
    }

    /// A file-scope variable: its value when it is a constant the compiler sees, else a limit.
    mutating func globalValue(_ global: ClangNode, _ use: ClangNode) -> String {
        let name = global.name ?? "?"
        if let known = CFunctionCalls.constants[name] { return known }
        let isConst = (global.type ?? "").contains("const")
        if isConst, let initial = global.inner.first {
            let n = initial.unwrapped
            if ["IntegerLiteral", "FloatingLiteral", "ObjCStringLiteral", "CharacterLiteral", "ObjCBoolLiteralExpr"].contains(n.kind)
                || (n.kind == "UnaryOperator" && n.inner.first?.unwrapped.kind.hasSuffix("Literal") == true) {
                // An object constant is the object (it may be sent messages), as in the app.
                return expr(initial, boxed: CTypes.isObjectPointer(global.type))
            }
        }
        if isConst, CTypes.isInteger(global.type) || CTypes.isInteger(global.desugaredType), let initial = global.inner.first,
           let value = ClangTranslationUnit.integerConstant(initial, enumValues: unit.enumValues) {
            // `static const NSUInteger Option = 1 << 3;` (GNUstep's NSRegularExpression options): the number.
            return value < 0 ? "(\(value))" : String(value)
        }
        if isConst, global.storageClass == "extern", !global.inner.contains(where: { !$0.kind.hasSuffix("Attr") }) {
            // Defined in another file: read by its symbol when the patch runs, if the app allows it.
            report("reads the constant \(name) through externConstant: the app must list it in PatchEngine.allowedExternConstants", at: use, severity: .warning)
            return "externConstant(\(JSNames.string(name)), \(JSNames.string(CTypes.engineTypeName(global.type, global.desugaredType))))"
        }
        if !isConst {
            return unconverted("global variable \(name) is the app's mutable state: a patch can't read or change it (keep such state in the patch, "
                + "as a property of a class it defines, or reach it through a method of the app)", use)
        }
        return unconverted("global variable \(name) (a patch can't reach C globals; pass the value or read it through a method)", use)
    }

    /// Why a patch can't reach this instance variable, nil when it can. A patch reads and writes
    /// ivars through key-value coding, which is NSObject's only where no class of the object's
    /// redefines it: on an NSDictionary subclass `valueForKey:@"_keys"` is the entry "_keys".
    func ivarProblem(_ ivarRef: ClangNode) -> String? {
        let type = ivarRef.inner.first?.type ?? method.className
        let className = String(type.prefix { $0.isLetter || $0.isNumber || $0 == "_" })
        guard let owner = unit.keyValueCodingOwner(of: className.isEmpty ? method.className : className) else { return nil }
        return "instance variable \(ivarRef.decl?.name ?? "?") of \(className): a patch reaches instance variables through "
            + "key-value coding, which \(owner) answers itself (\(owner == className ? "" : "inherited, ")e.g. with its entries): "
            + "reach the value through a method of the class"
    }

    /// The object an ivar belongs to: `self` for `_ivar`, the base for `other->_ivar`.
    mutating func ivarBase(_ node: ClangNode) -> String {
        guard let base = node.inner.first else { return "self" }
        return operand(base)
    }

    // MARK: structs

    /// The engine's rects are flat objects (`{x, y, width, height}`): `r.origin.x` is `r.x`.
    static let rectParts: [String: [String]] = ["origin": ["x", "y"], "size": ["width", "height"]]

    func isRect(_ type: String?) -> Bool {
        let t = CTypes.strip(type)
        if ["CGRect", "NSRect", "struct CGRect", "struct _NSRect", "UIRect"].contains(t) { return true }
        return unit.structFields[t] == ["origin", "size"]
    }

    mutating func member(_ node: ClangNode) -> String {
        guard let base = node.inner.first, let field = node.name else { return unconverted("member access of an unexpected shape", node) }
        if node.isArrow {
            return unconverted("-> on a C pointer (a patch has no C memory)", node)
        }
        let baseNode = base.unwrapped
        // r.origin.x → r.x
        if baseNode.kind == "MemberExpr", let part = baseNode.name, let leaves = Self.rectParts[part], leaves.contains(field),
           let rect = baseNode.inner.first, isRect(rect.unwrapped.canonicalType ?? rect.unwrapped.type) || isRect(rect.type) {
            return "\(operand(rect)).\(field)"
        }
        if let leaves = Self.rectParts[field], isRect(baseNode.canonicalType) || isRect(base.type) {
            let b = operand(base)
            return "{\(leaves[0]): \(b).\(leaves[0]), \(leaves[1]): \(b).\(leaves[1])}"
        }
        return "\(operand(base)).\(field)"
    }

    mutating func initList(_ node: ClangNode, type: String?) -> String {
        let t = CTypes.strip(type)
        if isRect(t), node.inner.count == 2 {
            let origin = node.inner[0].unwrapped, size = node.inner[1].unwrapped
            if origin.kind == "InitListExpr", size.kind == "InitListExpr", origin.inner.count == 2, size.inner.count == 2 {
                return "{x: \(expr(origin.inner[0])), y: \(expr(origin.inner[1])), width: \(expr(size.inner[0])), height: \(expr(size.inner[1]))}"
            }
            return "{x: \(operand(origin)).x, y: \(operand(origin)).y, width: \(operand(size)).width, height: \(operand(size)).height}"
        }
        if t.hasSuffix("]") { return unconverted("a C array (a patch has no C memory)", node) }
        guard let fields = unit.structFields[t] ?? unit.structFields[CTypes.strip(node.type)] else {
            return unconverted("initializer list of \(t.isEmpty ? "an unknown type" : t)", node)
        }
        let values = node.inner.map { expr($0) }
        return "{" + zip(fields, values).map { "\($0): \($1)" }.joined(separator: ", ") + "}"
    }

    // MARK: operators

    mutating func unary(_ node: ClangNode, statement: Bool) -> String {
        guard let inner = node.inner.first, let op = node.opcode else { return unconverted("unary operator of an unexpected shape", node) }
        switch op {
        case "-", "+", "~":
            return op + operand(inner)
        case "!":
            return "!" + operand(inner, condition: true)
        case "++", "--":
            let target = inner.unwrapped
            if target.kind == "ObjCIvarRefExpr" {
                guard let ivar = target.decl?.name else { return unconverted("instance variable without a name", node) }
                if let problem = ivarProblem(target) { return unconverted(problem, target) }
                let base = ivarBase(target)
                return "\(base).setValue_forKey(\(base).valueForKey(\(JSNames.string(ivar))) \(op.first!) 1, \(JSNames.string(ivar)))"
            }
            if CTypes.isPointer(inner.type) { return unconverted("pointer arithmetic", node) }
            let t = expr(inner)
            return node.isPostfix ? t + op : op + t
        case "&":
            if let cell = outCells[node.id] { return cell }
            return unconverted("taking an address (only an object local passed for a method's out-parameter converts: a patch has no C memory)", node)
        case "*":
            return unconverted("dereferencing a C pointer (a patch has no C memory)", node)
        case "__extension__":
            return expr(inner)
        case "__real", "__imag":
            return unconverted("complex numbers", node)
        default:
            return unconverted("unary operator \(op)", node)
        }
    }

    mutating func binary(_ node: ClangNode, statement: Bool) -> String {
        guard node.inner.count == 2, let op = node.opcode else { return unconverted("binary operator of an unexpected shape", node) }
        let lhs = node.inner[0], rhs = node.inner[1]
        switch op {
        case "=":
            return assign(lhs, expr(rhs, boxed: true), node)
        case "&&", "||":
            let text = "\(operand(lhs, condition: true)) \(op) \(operand(rhs, condition: true))"
            return statement ? text : "!!(\(text))"
        case "==", "!=":
            // A comparison with nil: nil arrives in JS as false (or null), so test truthiness.
            if isNullConstant(rhs), CTypes.isPointer(lhs.type) || CTypes.isPointer(lhs.unwrapped.type) {
                return nilComparison(op, lhs)
            }
            if isNullConstant(lhs), CTypes.isPointer(rhs.type) || CTypes.isPointer(rhs.unwrapped.type) {
                return nilComparison(op, rhs)
            }
            return "\(operand(lhs)) \(op) \(operand(rhs))"
        case "+", "-":
            if isCPointer(lhs.type) || isCPointer(rhs.type) { return unconverted("pointer arithmetic", node) }
            return "\(operand(lhs)) \(op) \(operand(rhs))"
        case "/":
            let text = "\(operand(lhs)) / \(operand(rhs))"
            // C divides integers toward zero.
            return CTypes.isInteger(node.canonicalType) ? "Math.trunc(\(text))" : text
        case "*", "%", "<", ">", "<=", ">=", "&", "|", "^", "<<", ">>":
            return "\(operand(lhs)) \(op) \(operand(rhs))"
        case ",":
            return "\(expr(lhs, statement: true)), \(expr(rhs))"
        default:
            return unconverted("binary operator \(op)", node)
        }
    }

    /// `x == nil`, `x != nil`: whether x is set, as a boolean.
    mutating func nilComparison(_ op: String, _ value: ClangNode) -> String {
        guard CTypes.isObjectPointer(value.type) || CTypes.isObjectPointer(value.unwrapped.type) else {
            return op == "==" ? "!\(operand(value))" : "!!\(operand(value))"
        }
        let test = isSet(value)
        let wrapped = Self.isAtomic(test) ? test : "(\(test))"
        if op == "==" { return "!" + wrapped }
        return test.hasPrefix("!!") || test.hasPrefix("$isSet") ? test : "!!" + wrapped
    }

    func isCPointer(_ type: String?) -> Bool { CTypes.isPointer(type) && !CTypes.isObjectPointer(type) }

    /// `nil`, `NULL`, `0` where a pointer is taken.
    func isNullConstant(_ node: ClangNode) -> Bool {
        var n = node
        while ["ImplicitCastExpr", "CStyleCastExpr", "ParenExpr"].contains(n.kind), let inner = n.inner.first {
            if n.castKind == "NullToPointer" { return true }
            n = inner
        }
        if n.kind == "GNUNullExpr" || n.kind == "CXXNullPtrLiteralExpr" { return true }
        return n.kind == "IntegerLiteral" && n.value == "0" && CTypes.isPointer(node.type)
    }

    /// `target = value` for each kind of target.
    mutating func assign(_ target: ClangNode, _ value: String, _ node: ClangNode) -> String {
        let t = target.unwrapped
        switch t.kind {
        case "ObjCIvarRefExpr":
            guard let ivar = t.decl?.name else { return unconverted("instance variable without a name", node) }
            if let problem = ivarProblem(t) { return unconverted(problem, t) }
            return "\(ivarBase(t)).setValue_forKey(\(value), \(JSNames.string(ivar)))"
        case "DeclRefExpr":
            if t.referencedDecl?.kind == "ImplicitParamDecl", t.referencedDecl?.name == "self" { return "self = \(value)" }
            if let ref = t.referencedDecl, let global = unit.globals[ref.name], global.id == ref.id, names[ref.id] == nil {
                return unconverted("assignment to global variable \(ref.name)", node)
            }
            var written = value
            if (t.type ?? "").contains("__weak") { written = "__weak(\(value))" }
            return "\(expr(t)) = \(written)"
        case "UnaryOperator" where t.opcode == "*":
            // `*error = …` through an object out-parameter (`NSError **`): the engine's assignPointer.
            guard let pointer = t.inner.first, let pointee = Self.pointee(pointer.type), CTypes.isObjectPointer(pointee) else {
                return unconverted("assignment through a C pointer (a patch has no C memory)", node)
            }
            return "assignPointer(\(expr(pointer)), \(value))"
        case "MemberExpr":
            if t.isArrow { return unconverted("-> on a C pointer (a patch has no C memory)", node) }
            if let field = t.name, Self.rectParts[field] != nil, let base = t.inner.first, isRect(base.unwrapped.canonicalType) || isRect(base.type) {
                let leaves = Self.rectParts[field]!
                temporaries += 1
                let tmp = "$part\(temporaries)", b = operand(base)
                return "(function (\(tmp)) { \(b).\(leaves[0]) = \(tmp).\(leaves[0]); \(b).\(leaves[1]) = \(tmp).\(leaves[1]); return \(tmp); })(\(value))"
            }
            return "\(member(t)) = \(value)"
        default:
            return unconverted("assignment to \(t.kind)", node)
        }
    }

    /// `NSError *__autoreleasing *` → `NSError *`.
    static func pointee(_ type: String?) -> String? {
        var t = CTypes.strip(type)
        guard t.hasSuffix("*") else { return nil }
        t.removeLast()
        t = CTypes.strip(t.trimmingCharacters(in: .whitespaces))
        for q in [" __autoreleasing", " __strong", " _Nullable", " _Nonnull", " __unsafe_unretained"] where t.hasSuffix(q) { t = String(t.dropLast(q.count)) }
        return t.trimmingCharacters(in: .whitespaces)
    }

    mutating func compoundAssign(_ node: ClangNode) -> String {
        guard node.inner.count == 2, var op = node.opcode, op.hasSuffix("=") else { return unconverted("compound assignment of an unexpected shape", node) }
        op.removeLast()
        let target = node.inner[0], rhs = node.inner[1]
        if (op == "+" || op == "-"), isCPointer(target.type) { return unconverted("pointer arithmetic", node) }
        let current = expr(target)
        var combined = "\(Self.isAtomic(current) ? current : "(\(current))") \(op) \(operand(rhs))"
        if op == "/", CTypes.isInteger(target.canonicalType ?? target.type) { combined = "Math.trunc(\(combined))" }
        let t = target.unwrapped
        if t.kind == "DeclRefExpr" || t.kind == "MemberExpr" {
            if op == "/" && CTypes.isInteger(target.canonicalType ?? target.type) { return "\(current) = \(combined)" }
            return "\(current) \(op)= \(operand(rhs))"
        }
        return assign(target, combined, node)
    }

    // MARK: blocks and statement expressions

    /// `^(NSString *s) {…}` → `block('void, NSString *', function (s) {…})`; `typed: false` gives
    /// the bare function (the engine's dispatch helpers take one).
    mutating func blockLiteral(_ node: ClangNode, typed: Bool) -> String {
        guard let decl = node.inner.first(where: { $0.kind == "BlockDecl" }) else { return unconverted("block without a body", node) }
        let params = decl.inner.filter { $0.kind == "ParmVarDecl" }
        let names = params.map { declare($0) }
        let body = decl.inner.first { $0.kind == "CompoundStmt" }
        blockDepth += 1
        let depth = 2 + blockDepth * 2
        let lines = body.map { statements($0.inner, depth: depth) } ?? []
        blockDepth -= 1
        let function = "function (\(names.joined(separator: ", "))) {\n" + lines.map { $0 + "\n" }.joined() + indent(depth - 1) + "}"
        var made = function
        if typed {
            let signature = CTypes.blockSignature(node.type)
            let returns = CTypes.engineTypeName(signature?.returns ?? "void", nil)
            let paramTypes = params.map { CTypes.engineTypeName($0.type, $0.desugaredType) }
            let types = ([returns] + paramTypes).joined(separator: ", ")
            made = "block(\(JSNames.string(types)), \(function))"
        }
        // Values the block captured, as they were when it was made (the method changes them later).
        let copied = capturedByValue(decl).map { self.names[$0.id] ?? JSNames.local($0.name) }
        guard !copied.isEmpty else { return made }
        let list = copied.joined(separator: ", ")
        return "(function (\(list)) { return \(made); })(\(list))"
    }

    /// `({ …; value; })` (GNUstep's MIN and MAX): a function called at once.
    mutating func statementExpression(_ node: ClangNode) -> String {
        guard let compound = node.inner.first, compound.kind == "CompoundStmt" else { return unconverted("statement expression of an unexpected shape", node) }
        var stmts = compound.inner
        let last = stmts.popLast()
        var lines = statements(stmts, depth: 0).map { $0.trimmingCharacters(in: .whitespaces) }
        if let last { lines.append("return \(expr(last, boxed: true));") }
        return "(function () { \(lines.joined(separator: " ")) })()"
    }
}
