import Foundation

/// JavaScriptCore reports a syntax error's line but no column. The column is recovered from the
/// token the message names ("Unexpected token ';'", "Unexpected identifier 'foo'") on that line;
/// when the message names none, it is the line's first non-blank character.
enum SyntaxErrorColumn {
    static func locate(message: String, line: Int, in code: String) -> Int {
        var lines = code.split(separator: "\n", omittingEmptySubsequences: false)
        guard line >= 1, line <= lines.count else { return 1 }
        let text = String(lines.remove(at: line - 1))
        let utf16 = Array(text.utf16)
        if let token = quotedToken(in: message), !token.isEmpty,
           let range = text.range(of: token) {
            return text.utf16.distance(from: text.startIndex, to: range.lowerBound) + 1
        }
        let firstNonBlank = utf16.firstIndex { $0 != 0x20 && $0 != 0x09 } ?? 0
        return firstNonBlank + 1
    }

    /// The text between the first pair of single quotes in the message.
    private static func quotedToken(in message: String) -> String? {
        guard let open = message.firstIndex(of: "'") else { return nil }
        let rest = message[message.index(after: open)...]
        guard let close = rest.lastIndex(of: "'") else { return nil }
        return String(rest[..<close])
    }
}
