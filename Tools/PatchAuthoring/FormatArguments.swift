import Foundation

/// `stringWithFormat:` and friends. The engine passes a variadic call's extra arguments as
/// objects (JSPatch's rule: `%@` in formats), so a literal format is rewritten: every conversion
/// becomes `%@`, and what `%02ld`, `%-8s` or `%.2f` would print is computed in JS.
extension MethodConverter {
    /// One conversion of a printf format.
    struct FormatSpec {
        var flags: String
        var width: Int?
        var precision: Int?
        /// `l`, `ll`, `q`, `j`, `z`, `t`: a 64-bit integer.
        var isWide: Bool
        var conversion: Character
    }

    /// Splits a format into literal text and conversions (`%%` stays literal); nil when it uses
    /// what can't be rewritten (`*` widths, positional arguments).
    static func parseFormat(_ format: String) -> [Either]? {
        var parts: [Either] = [], literal = ""
        var chars = Array(format)[...]
        while let c = chars.popFirst() {
            guard c == "%" else { literal.append(c); continue }
            if chars.first == "%" { chars = chars.dropFirst(); literal += "%%"; continue }
            var flags = "", width = "", precision: String?
            while let f = chars.first, "-+ #0'".contains(f) { flags.append(f); chars = chars.dropFirst() }
            while let d = chars.first, d.isNumber { width.append(d); chars = chars.dropFirst() }
            if chars.first == "$" || chars.first == "*" { return nil }
            if chars.first == "." {
                chars = chars.dropFirst()
                var p = ""
                while let d = chars.first, d.isNumber { p.append(d); chars = chars.dropFirst() }
                if chars.first == "*" { return nil }
                precision = p
            }
            var isWide = false
            while let l = chars.first, "hlqLjzt".contains(l) { isWide = isWide || l != "h"; chars = chars.dropFirst() }
            guard let conversion = chars.popFirst() else { return nil }
            if !literal.isEmpty { parts.append(.text(literal)); literal = "" }
            parts.append(.spec(FormatSpec(flags: flags, width: Int(width), precision: precision.map { Int($0) ?? 0 }, isWide: isWide, conversion: conversion)))
        }
        if !literal.isEmpty { parts.append(.text(literal)) }
        return parts
    }

    enum Either {
        case text(String)
        case spec(FormatSpec)
    }

    /// The format and its arguments, rewritten for the engine.
    mutating func formatArguments(_ args: [ClangNode]) -> [String] {
        guard let formatNode = args.first else { return [] }
        let rest = Array(args.dropFirst())
        let literal = formatNode.unwrapped
        guard literal.kind == "ObjCStringLiteral", let printed = literal.inner.first?.value,
              let parts = Self.parseFormat(CStringLiteral.decode(printed)) else {
            if !rest.isEmpty {
                report("the format is not a literal this converter can rewrite: its arguments are passed as objects (use %@)", at: formatNode, severity: .warning)
            }
            return args.map { expr($0) }
        }
        var format = "", out: [String] = [], index = 0
        for part in parts {
            switch part {
            case .text(let text):
                format += text
            case .spec(let spec):
                guard index < rest.count else {
                    report("the format has more conversions than arguments", at: formatNode)
                    return args.map { expr($0) }
                }
                if spec.conversion == "p", spec.flags.isEmpty, spec.width == nil, CTypes.isObjectPointer(rest[index].unwrapped.type),
                   !["NSNumber *", "NSValue *", "NSDecimalNumber *"].contains(CTypes.strip(rest[index].unwrapped.type)) {
                    // The engine passes the object itself: %p prints its address, as compiled.
                    format += "%p"
                    out.append(expr(rest[index]))
                    index += 1
                    continue
                }
                format += "%@"
                out.append(formatted(rest[index], spec))
                index += 1
            }
        }
        if index < rest.count { report("the format has fewer conversions than arguments", at: formatNode, severity: .warning) }
        for extra in rest.dropFirst(index) { out.append(expr(extra)) }
        return [JSNames.string(format)] + out
    }

    /// An expression JS gives as a boolean where C gives the int 0 or 1: BOOLs, `!`, comparisons.
    func isTruthValue(_ node: ClangNode) -> Bool {
        let n = node.unwrapped
        if CTypes.isBool(node.type) || CTypes.isBool(n.type) { return true }
        if n.kind == "UnaryOperator", n.opcode == "!" { return true }
        if n.kind == "BinaryOperator", ["<", ">", "<=", ">=", "==", "!=", "&&", "||"].contains(n.opcode ?? "") { return true }
        return false
    }

    /// A value as a JS string: a literal as it is, an NSString through `toJS()`.
    static func jsString(_ value: String) -> String {
        if value.hasPrefix("'"), isAtomic(value) { return value }
        return "String(\(isAtomic(value) ? value : "(\(value))").toJS())"
    }

    /// One argument as the object `%@` prints the way the original conversion printed it.
    mutating func formatted(_ node: ClangNode, _ spec: FormatSpec) -> String {
        var value: String
        var isText = false
        switch spec.conversion {
        case "@":
            value = expr(node)
            if spec.width == nil && spec.precision == nil { return value }
            value = Self.jsString(value)
            isText = true
        case "d", "i", "u", "D", "U":
            var raw = expr(node)
            if isTruthValue(node) { raw = "(\(raw) ? 1 : 0)" }
            if spec.width == nil && !spec.flags.contains("+") { return raw }
            let operandText = Self.isAtomic(raw) ? raw : "(\(raw))"
            value = spec.flags.contains("+") ? "((\(operandText) >= 0 ? '+' : '') + String(\(raw)))" : "String(\(raw))"
            isText = true
        case "x", "X", "o":
            let radix = spec.conversion == "o" ? 8 : 16
            // Unsigned, as printf reads them: a negative value prints its two's complement.
            let v = expr(node)
            value = spec.isWide ? "BigInt.asUintN(64, BigInt(Math.trunc(\(v)))).toString(\(radix))" : "(\(v) >>> 0).toString(\(radix))"
            if spec.conversion == "X" { value += ".toUpperCase()" }
            if spec.flags.contains("#") { value = "'\(spec.conversion == "o" ? "0" : (spec.conversion == "X" ? "0X" : "0x"))' + \(value)" }
            isText = true
        case "f", "F", "e", "E", "g", "G", "a", "A":
            let digits = spec.precision ?? 6
            let v = operand(node)
            switch spec.conversion {
            case "f", "F": value = "\(v).toFixed(\(digits))"
            case "e", "E":
                value = "\(v).toExponential(\(digits)).replace(/e([+-])(\\d)$/, 'e$10$2')"
                if spec.conversion == "E" { value += ".toUpperCase()" }
            default:
                report("%\(spec.conversion) is printed with JavaScript's shortest form, which can differ from printf's", at: node, severity: .warning)
                value = "String(\(v))"
            }
            isText = true
        case "s", "S":
            // `[s UTF8String]` for %s: the NSString itself prints the same.
            let n = node.unwrapped
            if n.kind == "ObjCMessageExpr", ["UTF8String", "cString", "cStringUsingEncoding:", "fileSystemRepresentation"].contains(n.selector ?? ""),
               n.receiverKind == "instance", let receiver = n.inner.first {
                value = expr(receiver)
            } else if n.kind == "PredefinedExpr" {
                value = expr(n)
            } else if n.kind == "StringLiteral" {
                value = JSNames.string(CStringLiteral.decode(n.value ?? ""))
            } else {
                return unconverted("%s of a C string that isn't an NSString's UTF8String (a patch has no C memory)", node)
            }
            if spec.width == nil && spec.precision == nil { return value }
            value = Self.jsString(value)
            isText = true
        case "c", "C":
            value = "String.fromCharCode(\(expr(node)))"
            isText = true
        case "p":
            return unconverted("%p of a value the engine doesn't pass as itself (a C pointer, or an NSNumber JS holds as a number): the patch has no address to print", node)
        default:
            return unconverted("format conversion %\(spec.conversion)", node)
        }
        guard isText else { return value }
        if let precision = spec.precision, "sS@".contains(spec.conversion) { value += ".substring(0, \(precision))" }
        if let width = spec.width {
            if spec.flags.contains("-") {
                value += ".padEnd(\(width))"
            } else if spec.flags.contains("0"), "diuDUxXo".contains(spec.conversion) || "fFeE".contains(spec.conversion) {
                value = "(function (t) { var neg = t.charAt(0) === '-'; var d = neg ? t.substring(1) : t; return (neg ? '-' : '') + d.padStart(\(width) - (neg ? 1 : 0), '0'); })(\(value))"
            } else {
                value += ".padStart(\(width))"
            }
        }
        return value
    }
}
