/// The tokens of a patch script, with their positions: enough JavaScript to find calls,
/// `defineClass`/`require` arguments and object-literal keys (strings, templates, comments and
/// regular expressions are skipped as the engine's `ScriptLexer` skips them: the previous
/// significant token decides whether `/` starts a regular expression).
public struct ScriptToken: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        case identifier, string, number, template, regex, punctuator
    }
    public var kind: Kind
    /// The token's text; a string's value without its quotes (escapes kept as written).
    public var text: String
    /// Byte offset of the token's first byte (a string's opening quote).
    public var offset: Int
    /// 1-based line and column (columns count characters, as editors do).
    public var line: Int
    public var column: Int
}

public enum ScriptTokens {
    private static let keywordsBeforeExpression: Set<String> = [
        "return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case", "do", "else", "yield", "await",
    ]

    public static func tokenize(_ script: String) -> [ScriptToken] {
        let bytes = Array(script.utf8)
        var tokens: [ScriptToken] = []
        var i = 0, line = 1, lineStart = 0
        func column(_ offset: Int) -> Int {
            // Characters, not bytes: count UTF-8 lead bytes between the line start and offset.
            var n = 1
            for b in bytes[lineStart..<offset] where b & 0xC0 != 0x80 { n += 1 }
            return n
        }
        func isIdentifierByte(_ b: UInt8) -> Bool {
            b == 0x24 || b == 0x5F || (b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7A) || b >= 0x80
        }
        func regexAllowed() -> Bool {
            guard let last = tokens.last else { return true }
            switch last.kind {
            case .identifier: return keywordsBeforeExpression.contains(last.text)
            case .string, .number, .template, .regex: return false
            case .punctuator: return !(last.text == ")" || last.text == "]" || last.text == "}")
            }
        }
        /// Skips a quoted body from `i` (after the opening quote) to after the closing one.
        func skipQuoted(_ quote: UInt8) {
            while i < bytes.count, bytes[i] != quote {
                if bytes[i] == 0x5C { i += 1 }
                if i < bytes.count, bytes[i] == 0x0A { line += 1; lineStart = i + 1 }
                i += 1
            }
            i = min(i + 1, bytes.count)
        }
        while i < bytes.count {
            let c = bytes[i]
            let next: UInt8 = i + 1 < bytes.count ? bytes[i + 1] : 0
            let start = i, startLine = line, startColumn = column(i)
            func emit(_ kind: ScriptToken.Kind, _ text: String) {
                tokens.append(ScriptToken(kind: kind, text: text, offset: start, line: startLine, column: startColumn))
            }
            switch c {
            case 0x0A:
                i += 1; line += 1; lineStart = i
            case 0x20, 0x09, 0x0D, 0x0B, 0x0C:
                i += 1
            case 0x2F where next == 0x2F:  // line comment
                while i < bytes.count, bytes[i] != 0x0A { i += 1 }
            case 0x2F where next == 0x2A:  // block comment
                i += 2
                while i < bytes.count, !(bytes[i] == 0x2A && i + 1 < bytes.count && bytes[i + 1] == 0x2F) {
                    if bytes[i] == 0x0A { line += 1; lineStart = i + 1 }
                    i += 1
                }
                i = min(i + 2, bytes.count)
            case 0x27, 0x22:  // ' "
                i += 1
                skipQuoted(c)
                let end = max(start + 1, i - 1)
                emit(.string, String(decoding: bytes[(start + 1)..<end], as: UTF8.self))
            case 0x60:  // template: substitutions are skipped with it (names in them are not checked)
                i += 1
                var depth = 0
                while i < bytes.count {
                    let b = bytes[i]
                    if b == 0x5C { i += 2; continue }
                    if b == 0x0A { line += 1; lineStart = i + 1 }
                    if depth == 0 && b == 0x60 { i += 1; break }
                    if b == 0x24 && i + 1 < bytes.count && bytes[i + 1] == 0x7B { depth += 1; i += 2; continue }
                    if depth > 0 && b == 0x7D { depth -= 1 }
                    i += 1
                }
                emit(.template, String(decoding: bytes[start..<min(i, bytes.count)], as: UTF8.self))
            case 0x2F where regexAllowed():
                i += 1
                var inClass = false
                while i < bytes.count, bytes[i] != 0x0A {
                    let b = bytes[i]
                    if b == 0x5C { i += 2; continue }
                    if b == 0x5B { inClass = true } else if b == 0x5D { inClass = false } else if b == 0x2F && !inClass { break }
                    i += 1
                }
                i = min(i + 1, bytes.count)
                while i < bytes.count, isIdentifierByte(bytes[i]) { i += 1 }  // flags
                emit(.regex, String(decoding: bytes[start..<i], as: UTF8.self))
            case 0x30...0x39:
                while i < bytes.count, isIdentifierByte(bytes[i]) || bytes[i] == 0x2E { i += 1 }
                emit(.number, String(decoding: bytes[start..<i], as: UTF8.self))
            case _ where isIdentifierByte(c):
                while i < bytes.count, isIdentifierByte(bytes[i]) { i += 1 }
                emit(.identifier, String(decoding: bytes[start..<i], as: UTF8.self))
            case 0x2E where next >= 0x30 && next <= 0x39:
                i += 1
                while i < bytes.count, isIdentifierByte(bytes[i]) { i += 1 }
                emit(.number, String(decoding: bytes[start..<i], as: UTF8.self))
            default:
                // `=>` and `?.` matter to readers of the tokens; other operators are single bytes.
                if (c == 0x3D && next == 0x3E) || (c == 0x3F && next == 0x2E) {
                    i += 2
                } else {
                    i += 1
                }
                emit(.punctuator, String(decoding: bytes[start..<i], as: UTF8.self))
            }
        }
        return tokens
    }
}
