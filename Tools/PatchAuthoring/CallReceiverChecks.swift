import Foundation

/// Calls the engine refuses when they run, found from the script's text: a message to a value JS
/// holds as a number, string, array or function (a literal, or what an operator gives), and more
/// arguments than a selector takes where the engine passes none beyond its own.
extension PatchChecker {
    /// JS's own methods of strings, numbers, arrays and functions: the engine calls these on JS values.
    static let valueMethods: Set<String> = ScriptLinter.javaScriptNames.union([
        "padStart", "padEnd", "startsWith", "endsWith", "repeat", "toExponential", "toPrecision", "localeCompare",
        "normalize", "trimStart", "trimEnd", "at", "flat", "flatMap", "fill", "findIndex", "entries", "toLocaleString",
    ])

    /// What JS holds before `.name(`: nil when it may be an Objective-C object.
    static func nonObjectReceiver(_ tokens: [ScriptToken], dot: Int) -> String? {
        guard dot > 0 else { return nil }
        let last = tokens[dot - 1]
        switch last.kind {
        case .string, .template: return "a JS string"
        case .number: return "a JS number"
        case .regex: return "a JS regular expression"
        case .identifier, .punctuator: break
        }
        guard last.kind == .punctuator, let open = opening(tokens, dot - 1) else { return nil }
        let before = open > 0 ? tokens[open - 1] : nil
        let isGrouping = before.map { $0.kind == .punctuator && ![")", "]", "}"].contains($0.text) || ["return", "typeof", "case"].contains($0.text) } ?? true
        switch last.text {
        case "]" where isGrouping:
            return "a JS array (write NSArray.arrayWithArray([…]) for an NSArray)"
        case "}":
            // `function (…) {…}.name(`: a JS function.
            var p = open - 1
            if p >= 0, tokens[p].text == ")", let params = opening(tokens, p) { p = params - 1 }
            if p >= 0, tokens[p].text == "function" || (p > 0 && tokens[p - 1].text == "function") { return "a JS function" }
            return nil
        case ")" where isGrouping:
            return groupedValue(tokens, open: open, close: dot - 1)
        default:
            return nil
        }
    }

    /// `( … )` whose top-level operator makes its value a JS number, string or boolean, or a
    /// `||`/`&&` one of whose operands is a literal (`x || []` may be a bare JS array), or a
    /// literal alone (`(7)`).
    static func groupedValue(_ tokens: [ScriptToken], open: Int, close: Int) -> String? {
        var depth = 0, operators: Set<String> = [], literalOperand: String?
        var current = "", previous: ScriptToken?
        // The tokenizer gives operators byte by byte: adjacent ones are one operator (`||`, `===`).
        func endOperator() { if !current.isEmpty { operators.insert(current); current = "" } }
        func startsOperand(_ i: Int) -> Bool { i == open + 1 || ["|", "&", "?", ":"].contains(tokens[i - 1].text) }
        func literal(_ t: ScriptToken) -> String? {
            switch t.kind {
            case .string, .template: return "a JS string"
            case .number: return "a JS number"
            default: return t.text == "[" ? "a JS array" : nil
            }
        }
        for i in (open + 1)..<close {
            let t = tokens[i]
            let isOpen = t.kind == .punctuator && ["(", "[", "{"].contains(t.text), isClose = t.kind == .punctuator && [")", "]", "}"].contains(t.text)
            if depth == 0, startsOperand(i), let kind = literal(t) { literalOperand = kind }
            if depth == 0, t.kind == .punctuator, !isOpen, !isClose {
                if let p = previous, p.kind == .punctuator, p.line == t.line, p.column + p.text.count == t.column { current += t.text } else { endOperator(); current = t.text }
            } else {
                endOperator()
            }
            if isOpen { depth += 1 } else if isClose { depth -= 1 }
            previous = t
        }
        endOperator()
        if operators.isEmpty, close == open + 2, let kind = literal(tokens[open + 1]) { return kind }
        if operators.contains("?") || operators.contains(",") || operators.contains("=") || operators.contains("=>") { return nil }
        let arithmetic: Set<String> = ["+", "-", "*", "/", "%", "<", ">", "<=", ">=", "==", "!=", "===", "!==", "&", "|", "^", "<<", ">>", ">>>", "!", "~", "!!"]
        if !operators.isDisjoint(with: arithmetic) { return "the result of an operator (a JS number, string or boolean)" }
        if operators.contains("||") || operators.contains("&&"), let literalOperand { return "possibly \(literalOperand) (an operand of \(operators.contains("||") ? "||" : "&&"))" }
        return nil
    }

    /// More arguments than `selector` takes, where the engine passes none beyond its own: to a
    /// native method, not a variadic one it knows (`…Format:`, `format:`, Foundation's nil-terminated lists).
    static func extraArgumentsProblem(_ selector: String, argumentCount: Int, definedInPatch: Bool) -> String? {
        let takes = selector.filter { $0 == ":" }.count
        guard argumentCount > takes, !definedInPatch, !MethodConverter.engineTakesExtraArguments(selector) else { return nil }
        return "'\(selector)' takes \(takes) argument\(takes == 1 ? "" : "s"); this call passes \(argumentCount), and the engine passes "
            + "extra arguments only to selectors ending in Format:/format: and Foundation's nil-terminated lists (it refuses this call when it runs)"
    }
}
