import Foundation
import PatchEngine

/// Checks a patch script against the app's Objective-C interface before it ships: the mistakes
/// that otherwise show up only when the patched method runs on a device.
///
/// Checks, in the order they are made:
/// 1. `defineClass`: a class the interface doesn't know, without a superclass (error); an unknown
///    superclass (error); a superclass other than the interface's (warning).
/// 2. Each method defined: a method the engine refuses (memory management, error); on a class the
///    interface knows, a selector it doesn't have — with its likely intended spelling (error), a
///    method of the other kind (error), or none near (warning: a new method, all `id`).
/// 3. `ORIGfoo(…)` calls where `foo` isn't overridden by the same `defineClass` (error).
/// 4. Calls `x.name(…)`: a name no known selector matches — with its likely spelling (error), an
///    argument count that doesn't match the selector's colons (error), or nothing near (warning).
///    Where the receiver's class is known (`self` in a method, `ClassName`, `ClassName.alloc().init…()`,
///    `self.super()`, a method whose declared return type is an app class), a selector that class
///    doesn't respond to (error for the app's classes, warning for the platform's); an object
///    literal shaped as one struct (`{x, y, width, height}`) passed where the method takes another
///    type (error).
/// 5. `require('A, B')` of classes the interface doesn't know and the patch doesn't define (error).
/// 6. `protocol('X')` (`@protocol(X)`) of a protocol neither the interface nor the patch's
///    `defineProtocol` declares (error: the engine throws when the line runs), when the interface
///    has protocols to compare with.
public struct PatchChecker {
    public enum Severity: String, Codable, Sendable { case error, warning }

    public struct Diagnostic: Codable, Equatable, Sendable {
        public var severity: Severity
        public var line: Int
        public var column: Int
        public var message: String

        /// `FILE:LINE:COLUMN: error: MESSAGE`, as compilers print and editors read.
        public func formatted(file: String) -> String {
            "\(file):\(line):\(column): \(severity.rawValue): \(message)"
        }
    }

    public let interface: ObjCInterface
    private let knownSelectors: Set<String>
    /// JS spelling (`addProduct_quantity`) → selectors with it.
    private let selectorsByJSName: [String: [String]]

    /// Every declaration of each selector, with the class or protocol declaring it.
    private let methodsBySelector: [String: [(owner: String, method: ObjCInterface.Method)]]

    public init(interface: ObjCInterface) {
        self.interface = interface
        knownSelectors = interface.allSelectors
        selectorsByJSName = Dictionary(grouping: knownSelectors, by: { ScriptLinter.jsName(ofSelector: $0) })
        var bySelector: [String: [(owner: String, method: ObjCInterface.Method)]] = [:]
        for cls in interface.classes.values { for m in cls.methods { bySelector[m.selector, default: []].append((cls.name, m)) } }
        for p in interface.protocols.values { for m in p.methods { bySelector[m.selector, default: []].append((p.name, m)) } }
        methodsBySelector = bySelector
    }

    /// A method a `defineClass` defines.
    private struct DefinedMethod {
        var jsName: String
        var selector: String
        var isClassMethod: Bool
        var token: ScriptToken
        /// Token indices of the function's body.
        var body: Range<Int>
    }

    private struct DefinedClass {
        var name: String
        var superclass: String?
        var methods: [DefinedMethod]
    }

    public func check(_ script: String) -> [Diagnostic] {
        let tokens = ScriptTokens.tokenize(script)
        var diagnostics: [Diagnostic] = []
        func report(_ severity: Severity, _ token: ScriptToken, columnOffset: Int = 0, _ message: String) {
            diagnostics.append(Diagnostic(severity: severity, line: token.line, column: token.column + columnOffset, message: message))
        }

        // 1–2: defineClass declarations and their methods.
        var defined: [DefinedClass] = []
        var index = 0
        while index < tokens.count {
            defer { index += 1 }
            guard tokens[index].kind == .identifier, tokens[index].text == "defineClass",
                  index + 2 < tokens.count, tokens[index + 1].text == "(", tokens[index + 2].kind == .string,
                  index == 0 || tokens[index - 1].text != "." else { continue }
            let declToken = tokens[index + 2]
            let decl = Declaration(declToken.text)
            var cls = DefinedClass(name: decl.name, superclass: decl.superclass, methods: [])
            let known = interface.classes[decl.name]
            let definedEarlier = Set(defined.map(\.name))
            if known == nil && decl.superclass == nil && !definedEarlier.contains(decl.name) {
                let guess = ScriptLinter.closest(to: decl.name, in: Set(interface.classes.keys))
                report(.error, declToken, columnOffset: 1 + decl.nameOffset,
                       "class '\(decl.name)' is not in the app's interface and no superclass is given"
                       + (guess.map { "; did you mean '\($0)'?" } ?? " (a new class needs 'Name : Superclass')"))
            }
            if let sup = decl.superclass {
                if interface.classes[sup] == nil && !definedEarlier.contains(sup) {
                    let guess = ScriptLinter.closest(to: sup, in: Set(interface.classes.keys))
                    report(.error, declToken, columnOffset: 1 + decl.superclassOffset,
                           "superclass '\(sup)' is not in the app's interface" + (guess.map { "; did you mean '\($0)'?" } ?? ""))
                } else if let known, let actual = known.superclass, actual != sup {
                    report(.warning, declToken, columnOffset: 1 + decl.superclassOffset,
                           "'\(decl.name)' is a subclass of '\(actual)' in the app, not of '\(sup)'")
                }
            }
            // defineClass('X', [properties]?, {instance methods}?, {class methods}?)
            var j = index + 3
            var objectNumber = 0
            while j < tokens.count, tokens[j].text == "," {
                j += 1
                guard j < tokens.count else { break }
                if tokens[j].text == "[" { j = Self.matching(tokens, j) + 1; continue }
                guard tokens[j].text == "{" else { break }
                let close = Self.matching(tokens, j)
                cls.methods += methods(in: tokens, object: j, close: close, isClassMethod: objectNumber == 1)
                objectNumber += 1
                j = close + 1
            }
            for method in cls.methods {
                checkDefinition(method, of: cls, isNewClass: known == nil) { report($0, $1, columnOffset: $2, $3) }
            }
            defined.append(cls)
        }

        // 3–4: calls.
        let patchSelectors = Set(defined.flatMap { $0.methods.map(\.selector) })
        for k in tokens.indices where tokens[k].kind == .identifier && k > 0 && (tokens[k - 1].text == "." || tokens[k - 1].text == "?.")
            && k + 1 < tokens.count && tokens[k + 1].text == "(" {
            let token = tokens[k]
            let argumentCount = Self.argumentCount(tokens, open: k + 1)
            var name = token.text
            if name.hasPrefix("ORIG") && name.count > 4 {
                name.removeFirst(4)
                let enclosing = defined.first { c in c.methods.contains { $0.body.contains(k) } }
                if let enclosing, !enclosing.methods.contains(where: { $0.jsName == name }) {
                    report(.error, token, "\(token.text) calls the original of '\(name)', but this defineClass('\(enclosing.name)') does not override '\(name)'")
                    continue
                }
            }
            if !Self.valueMethods.contains(name), name != "toJS", let value = Self.nonObjectReceiver(tokens, dot: k - 1) {
                report(.error, token, "'\(name)' is sent to \(value), which has no Objective-C methods (the engine refuses it when it runs)")
                continue
            }
            let selector = SelectorName.selector(jsName: name, argumentCount: argumentCount)
            let receiver = receiverType(tokens, before: k - 2, defined: defined)
            // JS's own names (`log`, `max`) are checked only on a receiver known to be an app object.
            if ScriptLinter.javaScriptNames.contains(name), receiver == nil || !knownSelectors.contains(selector) { continue }
            if knownSelectors.contains(selector) || patchSelectors.contains(selector) {
                if let problem = Self.extraArgumentsProblem(selector, argumentCount: argumentCount, definedInPatch: patchSelectors.contains(selector)) {
                    report(.error, token, problem)
                    continue
                }
                if let receiver, !responds(receiver, selector, defined: defined) {
                    let sign = receiver.isClass ? "+" : "-"
                    let owners = Set(methodsBySelector[selector, default: []].map(\.owner)).sorted().prefix(3)
                    let isOurs = interface.classes[receiver.name]?.isAppClass == true || defined.contains { $0.name == receiver.name }
                    report(isOurs ? .error : .warning, token,
                           "\(receiver.name) has no \(receiver.isClass ? "class" : "instance") method \(sign)\(selector)"
                           + (owners.isEmpty ? "" : " (\(owners.joined(separator: ", ")) \(owners.count == 1 ? "has" : "have") it)"))
                    continue
                }
                checkStructArguments(tokens, call: k, selector: selector, receiver: receiver) { report($0, $1, $2) }
                continue
            }
            if name.hasPrefix("_") { continue }  // JS-only methods a patch defines on its classes
            if let reason = PatchEngine.reservedSelectorReason(selector) {
                report(.warning, token, "'\(selector)' \(reason); the engine manages object lifetimes itself")
                continue
            }
            let sameName = (selectorsByJSName[name] ?? []) + patchSelectors.filter { ScriptLinter.jsName(ofSelector: $0) == name }
            if let expected = sameName.first {
                let n = SelectorName.argumentCount(expected)
                report(.error, token, "'\(name)' is '\(expected)', which takes \(n) argument\(n == 1 ? "" : "s"); this call passes \(argumentCount)")
            } else if let guess = ScriptLinter.closest(to: name, in: Set(selectorsByJSName.keys)) {
                report(.error, token, "'\(name)' (\(selector)) is no selector the app's interface declares; did you mean '\(guess)' (\(selectorsByJSName[guess]![0]))?")
            } else {
                report(.warning, token, "'\(name)' (\(selector)) is no selector the app's interface declares")
            }
        }

        // 5: require.
        let definedNames = Set(defined.map(\.name))
        for token in Self.stringArguments(of: "require", in: tokens) {
            var offset = 1
            for part in token.text.split(separator: ",", omittingEmptySubsequences: false) {
                let name = part.trimmingCharacters(in: .whitespaces)
                let lead = part.count - part.drop(while: { $0 == " " }).count
                // `JPEngine` is the engine's own object (JSPatch's), not a class of the app.
                if !name.isEmpty, name != "JPEngine", interface.classes[name] == nil, !definedNames.contains(name) {
                    let guess = ScriptLinter.closest(to: name, in: Set(interface.classes.keys))
                    report(.error, token, columnOffset: offset + lead,
                           "require('\(name)'): no such class in the app's interface" + (guess.map { "; did you mean '\($0)'?" } ?? ""))
                }
                offset += part.count + 1
            }
        }
        // 6: protocol('X').
        if !interface.protocols.isEmpty {
            let declared = Set(Self.stringArguments(of: "defineProtocol", in: tokens).map(\.text))
            for token in Self.stringArguments(of: "protocol", in: tokens)
            where interface.protocols[token.text] == nil && !declared.contains(token.text) {
                let guess = ScriptLinter.closest(to: token.text, in: Set(interface.protocols.keys))
                report(.error, token, columnOffset: 1, "protocol('\(token.text)'): no such protocol in the app's interface or this patch's defineProtocol"
                       + (guess.map { "; did you mean '\($0)'?" } ?? ""))
            }
        }
        return diagnostics.sorted { ($0.line, $0.column) < ($1.line, $1.column) }
    }

    /// The string literal each call `function('…'` starts with (a global call, not a method's).
    static func stringArguments(of function: String, in tokens: [ScriptToken]) -> [ScriptToken] {
        tokens.indices.compactMap { k in
            guard tokens[k].kind == .identifier, tokens[k].text == function, k == 0 || (tokens[k - 1].text != "." && tokens[k - 1].text != "?."),
                  k + 2 < tokens.count, tokens[k + 1].text == "(", tokens[k + 2].kind == .string else { return nil }
            return tokens[k + 2]
        }
    }

    /// A receiver whose class the script makes known: an instance of `name`, or the class itself.
    struct ReceiverType: Equatable {
        var name: String
        var isClass: Bool
    }

    /// The receiver's type for the expression ending at token `end` (the token before the `.`).
    private func receiverType(_ tokens: [ScriptToken], before end: Int, defined: [DefinedClass]) -> ReceiverType? {
        guard end >= 0 else { return nil }
        let last = tokens[end]
        if last.kind == .identifier, end == 0 || (tokens[end - 1].text != "." && tokens[end - 1].text != "?.") {
            if last.text == "self" {
                guard let (cls, method) = enclosingMethod(end, defined) else { return nil }
                return ReceiverType(name: cls.name, isClass: method.isClassMethod)
            }
            if interface.classes[last.text] != nil || defined.contains(where: { $0.name == last.text }) {
                return ReceiverType(name: last.text, isClass: true)
            }
            return nil
        }
        // `….name(…)`: what the call returns.
        guard last.text == ")" else { return nil }
        guard let open = Self.opening(tokens, end), open >= 2, tokens[open - 1].kind == .identifier,
              tokens[open - 2].text == "." else { return nil }
        let name = tokens[open - 1].text
        guard let inner = receiverType(tokens, before: open - 3, defined: defined) else { return nil }
        switch name {
        case "super":
            guard tokens[open - 3].text == "self", let sup = superclass(of: inner.name, defined) else { return nil }
            return ReceiverType(name: sup, isClass: inner.isClass)
        case "alloc", "new", "allocWithZone":
            return inner.isClass ? ReceiverType(name: inner.name, isClass: false) : nil
        case "class":
            return ReceiverType(name: inner.name, isClass: true)
        default:
            let selector = SelectorName.selector(jsName: name, argumentCount: Self.argumentCount(tokens, open: open))
            if name.hasPrefix("init"), !inner.isClass { return inner }
            guard let method = interface.method(selector, isClassMethod: inner.isClass, in: lookupName(inner.name, defined)) else { return nil }
            let returns = method.returnType.trimmingCharacters(in: .whitespaces)
            if returns == "instancetype" { return ReceiverType(name: inner.name, isClass: false) }
            guard returns.hasSuffix("*") else { return nil }
            let cls = returns.dropLast().trimmingCharacters(in: .whitespaces)
            return interface.classes[cls]?.isAppClass == true ? ReceiverType(name: cls, isClass: false) : nil
        }
    }

    /// The class whose methods answer for `name`: itself when the interface has it, else (a class
    /// the patch creates) its superclass.
    private func lookupName(_ name: String, _ defined: [DefinedClass]) -> String {
        interface.classes[name] != nil ? name : (defined.first { $0.name == name }?.superclass ?? name)
    }

    private func superclass(of name: String, _ defined: [DefinedClass]) -> String? {
        interface.classes[name]?.superclass ?? defined.first { $0.name == name }?.superclass
    }

    /// Whether the receiver has `selector`: the interface's methods, or the patch's own for the
    /// class (or a class it inherits from).
    private func responds(_ receiver: ReceiverType, _ selector: String, defined: [DefinedClass]) -> Bool {
        var name: String? = receiver.name, seen = Set<String>()
        while let current = name, seen.insert(current).inserted {
            if defined.contains(where: { $0.name == current && $0.methods.contains { $0.selector == selector && $0.isClassMethod == receiver.isClass } }) {
                return true
            }
            if interface.classes[current] != nil {
                if interface.method(selector, isClassMethod: receiver.isClass, in: current) != nil { return true }
                // A class object also answers NSObject's instance methods (the root class's).
                if receiver.isClass, interface.method(selector, isClassMethod: false, in: "NSObject") != nil { return true }
                name = interface.classes[current]?.superclass
            } else if let cls = defined.first(where: { $0.name == current }) {
                name = cls.superclass
            } else {
                return true  // a class neither the interface nor the patch knows: nothing to say
            }
        }
        return false
    }

    private func enclosingMethod(_ index: Int, _ defined: [DefinedClass]) -> (DefinedClass, DefinedMethod)? {
        for cls in defined {
            if let method = cls.methods.first(where: { $0.body.contains(index) }) { return (cls, method) }
        }
        return nil
    }

    /// The struct an object literal's keys spell, as the engine's struct objects have them.
    static func structShape(_ keys: Set<String>) -> String? {
        switch keys {
        case ["x", "y", "width", "height"], ["origin", "size"]: return "rect"
        case ["x", "y"]: return "point"
        case ["width", "height"]: return "size"
        case ["location", "length"]: return "range"
        case ["top", "left", "bottom", "right"]: return "edge insets"
        default: return nil
        }
    }

    /// The struct a declared type is, in the same words; nil for a type that is no struct.
    static func structShape(ofType type: String) -> String? {
        var t = type.trimmingCharacters(in: .whitespaces)
        if t.hasPrefix("const ") { t.removeFirst(6) }
        if t.hasPrefix("struct ") { t.removeFirst(7) }
        switch t {
        case "CGRect", "NSRect", "_NSRect": return "rect"
        case "CGPoint", "NSPoint", "_NSPoint": return "point"
        case "CGSize", "NSSize", "_NSSize": return "size"
        case "NSRange", "_NSRange", "CFRange": return "range"
        case "UIEdgeInsets", "NSEdgeInsets": return "edge insets"
        default: return nil
        }
    }

    /// Object literals passed where the method takes something else: a rect for a range, a point
    /// for an object. The method's types come from the receiver's class when it is known, else
    /// from every declaration of the selector when they agree.
    private func checkStructArguments(_ tokens: [ScriptToken], call k: Int, selector: String, receiver: ReceiverType?,
                                      report: (Severity, ScriptToken, String) -> Void) {
        var types: [String]?
        if let receiver, let m = interface.method(selector, isClassMethod: receiver.isClass, in: receiver.name) {
            types = m.argumentTypes
        } else {
            let all = Set(methodsBySelector[selector, default: []].map { $0.method.argumentTypes })
            if all.count == 1 { types = all.first }
        }
        guard let types else { return }
        let close = Self.matching(tokens, k + 1)
        var argument = 0, p = k + 2
        while p < close, argument < types.count {
            let start = p
            var depth = 0
            while p < close {
                let t = tokens[p].text
                if tokens[p].kind == .punctuator {
                    if ["(", "[", "{"].contains(t) { depth += 1 } else if [")", "]", "}"].contains(t) { depth -= 1 } else if t == ",", depth == 0 { break }
                }
                p += 1
            }
            let end = p  // exclusive
            if tokens[start].text == "{", Self.matching(tokens, start) == end - 1 {
                var keys = Set<String>(), q = start + 1
                while q < end - 1 {
                    if (tokens[q].kind == .identifier || tokens[q].kind == .string), tokens[q + 1].text == ":" { keys.insert(tokens[q].text) }
                    if ["(", "[", "{"].contains(tokens[q].text) { q = Self.matching(tokens, q) + 1 } else { q += 1 }
                }
                if let shape = Self.structShape(keys) {
                    let declared = types[argument]
                    let expected = Self.structShape(ofType: declared)
                    if expected != shape {
                        report(.error, tokens[start], "argument \(argument + 1) of '\(selector)' is a \(shape) ({\(keys.sorted().joined(separator: ", "))}), "
                               + "but the method takes \(declared)")
                    }
                }
            }
            argument += 1
            p += 1
        }
    }

    /// Index of the bracket opening the one closing at `close`.
    static func opening(_ tokens: [ScriptToken], _ close: Int) -> Int? {
        var depth = 0
        var k = close
        while k >= 0 {
            if tokens[k].kind == .punctuator {
                switch tokens[k].text {
                case ")", "]", "}": depth += 1
                case "(", "[", "{":
                    depth -= 1
                    if depth == 0 { return k }
                default: break
                }
            }
            k -= 1
        }
        return nil
    }

    private func checkDefinition(_ method: DefinedMethod, of cls: DefinedClass, isNewClass: Bool,
                                 report: (Severity, ScriptToken, Int, String) -> Void) {
        let sign = method.isClassMethod ? "+" : "-"
        if let reason = PatchEngine.reservedSelectorReason(method.selector) {
            report(.error, method.token, 0, "\(sign)\(method.selector) \(reason): the engine refuses to patch it")
            return
        }
        // The class's own methods, or for a new class its superclass's.
        let lookupClass = isNewClass ? cls.superclass : cls.name
        guard let lookupClass else { return }
        if interface.method(method.selector, isClassMethod: method.isClassMethod, in: lookupClass) != nil { return }
        if method.jsName.hasPrefix("_") { return }  // a JS-only method (ClassDefinition.defineMethods)
        let candidates = interface.selectors(isClassMethod: method.isClassMethod, in: lookupClass)
        if interface.method(method.selector, isClassMethod: !method.isClassMethod, in: lookupClass) != nil {
            report(.error, method.token, 0, "\(method.selector) is a\(method.isClassMethod ? "n instance" : " class") method of \(lookupClass): "
                   + "define it in the \(method.isClassMethod ? "instance" : "class") methods object")
            return
        }
        let byJSName = Dictionary(grouping: candidates, by: { ScriptLinter.jsName(ofSelector: $0) })
        let target = isNewClass ? "its superclass \(lookupClass)" : lookupClass
        if let same = byJSName[method.jsName]?.first {
            let n = SelectorName.argumentCount(same)
            report(.error, method.token, 0, "\(sign)\(same) takes \(n) argument\(n == 1 ? "" : "s"), but the function \(method.jsName) declares "
                   + "a different number (it would define \(sign)\(method.selector), which \(target) doesn't have)")
        } else if let guess = ScriptLinter.closest(to: method.jsName, in: Set(byJSName.keys)) {
            // On a new class a name near a superclass method is more likely a new method than a typo.
            report(isNewClass ? .warning : .error, method.token, 0, "\(target) has no method \(sign)\(method.selector); did you mean '\(guess)' (\(sign)\(byJSName[guess]![0]))?")
        } else if !isNewClass {
            report(.warning, method.token, 0, "\(cls.name) has no method \(sign)\(method.selector): this adds a new method whose arguments and return value are id")
        }
    }

    /// The methods `name: function (…) {…}` directly inside the object literal at `object`.
    private func methods(in tokens: [ScriptToken], object: Int, close: Int, isClassMethod: Bool) -> [DefinedMethod] {
        var out: [DefinedMethod] = []
        var k = object + 1
        while k < close {
            let key = tokens[k]
            if (key.kind == .identifier || key.kind == .string), k + 2 < close, tokens[k + 1].text == ":",
               tokens[k + 2].text == "function", k + 3 < close {
                var p = k + 3
                if tokens[p].kind == .identifier { p += 1 }  // a named function expression
                guard tokens[p].text == "(" else { k += 1; continue }
                let paramsClose = Self.matching(tokens, p)
                let arity = Self.argumentCount(tokens, open: p)
                var bodyEnd = paramsClose + 1
                if bodyEnd < close, tokens[bodyEnd].text == "{" { bodyEnd = Self.matching(tokens, bodyEnd) }
                out.append(DefinedMethod(
                    jsName: key.text, selector: SelectorName.selector(jsName: key.text, argumentCount: arity),
                    isClassMethod: isClassMethod, token: key, body: paramsClose..<(bodyEnd + 1)))
                k = bodyEnd + 1
                continue
            }
            // Skip anything else at this level (nested brackets whole).
            if ["(", "[", "{"].contains(tokens[k].text) { k = Self.matching(tokens, k) + 1 } else { k += 1 }
        }
        return out
    }

    /// Index of the bracket closing the one at `open` (the last token if it is never closed).
    static func matching(_ tokens: [ScriptToken], _ open: Int) -> Int {
        var depth = 0
        for k in open..<tokens.count where tokens[k].kind == .punctuator {
            switch tokens[k].text {
            case "(", "[", "{": depth += 1
            case ")", "]", "}":
                depth -= 1
                if depth == 0 { return k }
            default: break
            }
        }
        return tokens.count - 1
    }

    /// Number of arguments (or parameters) between the parenthesis at `open` and its match.
    static func argumentCount(_ tokens: [ScriptToken], open: Int) -> Int {
        let close = matching(tokens, open)
        guard close > open + 1 else { return 0 }
        var count = 1, depth = 0
        for k in (open + 1)..<close where tokens[k].kind == .punctuator {
            switch tokens[k].text {
            case "(", "[", "{": depth += 1
            case ")", "]", "}": depth -= 1
            case "," where depth == 0: count += 1
            default: break
            }
        }
        if tokens[close - 1].text == "," { count -= 1 }  // a trailing comma
        return count
    }

    /// `Name : Superclass <P1, P2>` with the character offsets of its names.
    private struct Declaration {
        var name = "", superclass: String?
        var nameOffset = 0, superclassOffset = 0

        init(_ text: String) {
            let chars = Array(text)
            let end = chars.firstIndex(of: "<") ?? chars.count
            let colon = chars[..<end].firstIndex(of: ":")
            func word(_ range: Range<Int>) -> (String, Int) {
                let slice = chars[range]
                let lead = slice.prefix { $0 == " " || $0 == "\t" }.count
                return (String(slice).trimmingCharacters(in: .whitespaces), range.lowerBound + lead)
            }
            (name, nameOffset) = word(0..<(colon ?? end))
            if let colon {
                let (s, o) = word((colon + 1)..<end)
                if !s.isEmpty { superclass = s; superclassOffset = o }
            }
        }
    }
}
