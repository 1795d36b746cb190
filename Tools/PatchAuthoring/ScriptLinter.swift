import Foundation

/// Finds class names and selectors in a JSPatch-style script that look like misspellings of
/// known ones: not in the known list, but within a small edit distance of a name that is.
public struct ScriptLinter {
    public struct Warning: Equatable {
        public var line: Int
        public var column: Int
        public var message: String
    }

    /// Known class names and selectors (Objective-C form, e.g. `addItem:count:`).
    public var classes: Set<String>
    public var selectors: Set<String>

    /// Reads a names file: one name per line; `#` starts a comment. A line starting with `-` or `+`,
    /// or containing `:`, or starting with a lowercase letter is a selector; anything else is a class.
    public init(namesFile text: String) {
        var classes = Set<String>(), selectors = Set<String>()
        for raw in text.split(whereSeparator: \.isNewline) {
            var line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            line = line.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty else { continue }
            if line.hasPrefix("-") || line.hasPrefix("+") {
                selectors.insert(line.dropFirst().trimmingCharacters(in: .whitespaces))
            } else if line.contains(":") || line.first!.isLowercase {
                selectors.insert(line)
            } else {
                classes.insert(line)
            }
        }
        self.classes = classes
        self.selectors = selectors
    }

    /// Selector `addItem:count:` as a script spells it: `addItem_count` (`_` in a selector is `__`).
    public static func jsName(ofSelector selector: String) -> String {
        var s = selector
        if s.hasSuffix(":") { s.removeLast() }
        return s.replacingOccurrences(of: "_", with: "__").replacingOccurrences(of: ":", with: "_")
    }

    /// Method names a script calls or defines that are plain JavaScript, not selectors.
    public static let javaScriptNames: Set<String> = [
        "push", "pop", "shift", "unshift", "slice", "splice", "concat", "join", "indexOf", "lastIndexOf",
        "map", "filter", "forEach", "reduce", "some", "every", "find", "sort", "reverse", "includes",
        "toString", "toFixed", "valueOf", "log", "warn", "error", "apply", "call", "bind", "keys", "values",
        "replace", "split", "substring", "substr", "charAt", "charCodeAt", "trim", "toUpperCase", "toLowerCase",
        "hasOwnProperty", "toJS", "super", "require", "defineClass", "defineProtocol", "block", "dispatch_after",
        "dispatch_async_main", "dispatch_sync_main", "dispatch_async_global_queue", "test", "exec", "match",
        "parseInt", "parseFloat", "stringify", "parse", "floor", "ceil", "round", "max", "min", "abs",
        // What convert's own output calls: Number.isInteger ($object), Math.trunc, JPEngine's addExtensions.
        "isInteger", "trunc", "addExtensions",
    ]

    public func warnings(in script: String) -> [Warning] {
        let code = Self.blankingComments(script)
        let lines = LineIndex(code)
        var warnings: [Warning] = []
        let jsSelectors = Dictionary(selectors.map { (Self.jsName(ofSelector: $0), $0) }, uniquingKeysWith: { a, _ in a })

        func checkClass(_ name: String, at offset: Int) {
            guard !classes.contains(name), let guess = Self.closest(to: name, in: classes) else { return }
            let (line, column) = lines.position(ofUTF8Offset: offset)
            warnings.append(Warning(line: line, column: column, message: "class '\(name)' is not in the class list; did you mean '\(guess)'?"))
        }
        func checkMethod(_ jsName: String, at offset: Int) {
            var name = jsName
            if name.hasPrefix("ORIG") { name.removeFirst(4) }  // JSPatch's call-the-original prefix
            guard !name.isEmpty, jsSelectors[name] == nil, !Self.javaScriptNames.contains(name),
                  let guess = Self.closest(to: name, in: Set(jsSelectors.keys)) else { return }
            let (line, column) = lines.position(ofUTF8Offset: offset)
            warnings.append(Warning(line: line, column: column,
                                    message: "selector '\(name)' is not in the selector list; did you mean '\(guess)' (\(jsSelectors[guess]!))?"))
        }

        // require('A, B')
        for match in Self.matches(#"require\(\s*['"]([^'"]*)['"]"#, in: code) {
            var offset = match.offset
            for part in match.text.split(separator: ",", omittingEmptySubsequences: false) {
                let name = part.trimmingCharacters(in: .whitespaces)
                let lead = part.utf8.count - part.drop(while: { $0 == " " }).utf8.count
                if !name.isEmpty { checkClass(name, at: offset + lead) }
                offset += part.utf8.count + 1
            }
        }
        // defineClass('Name : Super <Protocols>'
        for match in Self.matches(#"defineClass\(\s*['"]([^'"]*)['"]"#, in: code) {
            let decl = match.text.split(separator: "<", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            var offset = match.offset
            for part in decl.split(separator: ":", omittingEmptySubsequences: false) {
                let name = part.trimmingCharacters(in: .whitespaces)
                let lead = part.utf8.count - part.drop(while: { $0 == " " }).utf8.count
                if !name.isEmpty { checkClass(name, at: offset + lead) }
                offset += part.utf8.count + 1
            }
        }
        // Method definitions `name: function` and calls `.name(`.
        for match in Self.matches(#"([A-Za-z_$][A-Za-z0-9_$]*)\s*:\s*function\b"#, in: code) {
            checkMethod(match.text, at: match.offset)
        }
        for match in Self.matches(#"\.\s*([A-Za-z_$][A-Za-z0-9_$]*)\s*\("#, in: code) {
            checkMethod(match.text, at: match.offset)
        }
        return warnings.sorted { ($0.line, $0.column) < ($1.line, $1.column) }
    }

    /// `include('name')` calls naming a script the patch does not carry (errors): in a delivered
    /// patch, include() resolves only among the patch's own scripts, by file name (an optional
    /// leading `./` is dropped, as the engine does). `patchScripts` are those names.
    public static func includeErrors(in script: String, patchScripts: [String]) -> [Warning] {
        let code = blankingComments(script)
        let lines = LineIndex(code)
        let known = Set(patchScripts)
        var errors: [Warning] = []
        // The global include(), not a method of the same name (`list.include(…)`).
        for match in matches(#"(?<![.\w$])include\(\s*['"]([^'"]*)['"]"#, in: code) {
            let key = match.text.hasPrefix("./") ? String(match.text.dropFirst(2)) : match.text
            guard !known.contains(key) else { continue }
            let (line, column) = lines.position(ofUTF8Offset: match.offset)
            errors.append(Warning(line: line, column: column, message:
                "include('\(match.text)'): the patch has no script named '\(key)' (its scripts: \(patchScripts.joined(separator: ", ")))"))
        }
        return errors
    }

    /// The known name nearest to `name` if it is near enough to be a likely typo
    /// (edit distance 1 for names up to 5 characters, 2 for longer ones; nothing under 3 characters).
    public static func closest(to name: String, in known: Set<String>) -> String? {
        guard name.count >= 3 else { return nil }
        let limit = name.count <= 5 ? 1 : 2
        var best: (name: String, distance: Int)?
        for candidate in known.sorted() {
            let d = editDistance(name, candidate, limit: limit)
            if d <= limit, d < (best?.distance ?? .max) { best = (candidate, d) }
        }
        return best?.name
    }

    /// Levenshtein distance (insert, delete, substitute); stops early past `limit`.
    public static func editDistance(_ a: String, _ b: String, limit: Int) -> Int {
        let x = Array(a), y = Array(b)
        if abs(x.count - y.count) > limit { return limit + 1 }
        if x.isEmpty || y.isEmpty { return max(x.count, y.count) }
        var previous = Array(0...y.count)
        for i in 1...x.count {
            var current = [i] + Array(repeating: 0, count: y.count)
            for j in 1...y.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
            }
            if current.min()! > limit { return limit + 1 }
            previous = current
        }
        return previous[y.count]
    }

    /// Capture group 1 of every match, with its UTF-8 offset.
    private static func matches(_ pattern: String, in text: String) -> [(text: String, offset: Int)] {
        let regex = try! NSRegularExpression(pattern: pattern)
        let ns = text as NSString
        return regex.matches(in: text, range: NSRange(location: 0, length: ns.length)).map { m in
            let range = m.range(at: 1)
            let prefix = ns.substring(to: range.location)
            return (ns.substring(with: range), prefix.utf8.count)
        }
    }

    /// The script with comment text replaced by spaces (newlines kept), so names in comments
    /// aren't checked and positions stay the same. Strings and template literals are left alone.
    public static func blankingComments(_ script: String) -> String {
        var out = [UInt8](), bytes = Array(script.utf8), i = 0
        var quote: UInt8? = nil
        while i < bytes.count {
            let c = bytes[i], next = i + 1 < bytes.count ? bytes[i + 1] : 0
            if let q = quote {
                out.append(c)
                if c == UInt8(ascii: "\\"), i + 1 < bytes.count { out.append(next); i += 2; continue }
                if c == q { quote = nil }
                i += 1
            } else if c == UInt8(ascii: "'") || c == UInt8(ascii: "\"") || c == UInt8(ascii: "`") {
                quote = c; out.append(c); i += 1
            } else if c == UInt8(ascii: "/") && next == UInt8(ascii: "/") {
                while i < bytes.count && bytes[i] != UInt8(ascii: "\n") { out.append(UInt8(ascii: " ")); i += 1 }
            } else if c == UInt8(ascii: "/") && next == UInt8(ascii: "*") {
                out.append(contentsOf: [32, 32]); i += 2
                while i < bytes.count && !(bytes[i] == UInt8(ascii: "*") && i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "/")) {
                    out.append(bytes[i] == UInt8(ascii: "\n") ? bytes[i] : 32); i += 1
                }
                if i < bytes.count { out.append(contentsOf: [32, 32]); i += 2 }
            } else {
                out.append(c); i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Turns UTF-8 offsets into 1-based line and column (columns count characters).
    struct LineIndex {
        let text: String
        let lineStarts: [Int]
        init(_ text: String) {
            self.text = text
            var starts = [0]
            for (i, byte) in text.utf8.enumerated() where byte == UInt8(ascii: "\n") { starts.append(i + 1) }
            lineStarts = starts
        }
        func position(ofUTF8Offset offset: Int) -> (Int, Int) {
            let line = (lineStarts.lastIndex { $0 <= offset } ?? 0)
            let start = text.utf8.index(text.utf8.startIndex, offsetBy: lineStarts[line])
            let end = text.utf8.index(text.utf8.startIndex, offsetBy: offset)
            return (line + 1, text[start..<end].count + 1)
        }
    }
}
