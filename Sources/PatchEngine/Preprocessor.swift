/// Rewrites patch scripts so that every method call goes through the `__c` dispatcher:
/// `expr.name(` becomes `expr.__c("name")(`, as in JSPatch, but only in code — never in
/// strings, template text, comments or regular expressions — and never in the callee of
/// `new` (`new a.B(1)` keeps constructing `a.B`) or after `super.` (class `super` calls
/// keep their meaning).
///
/// Whitespace, comments and line breaks between the dot, the name and the `(` are kept,
/// so the output has exactly the lines of the input and `Preprocessed.originalPosition`
/// maps JavaScriptCore's error positions back to the source. `a?.name(` becomes
/// `a?.__c("name")(`; `a.name?.(` is left alone (no call follows the name directly).
/// `.__c(` itself is never rewritten, so rewriting twice gives the same script.
/// Malformed input (an unterminated string, comment, template or regex) is copied as it
/// is from the point where it stops making sense; JavaScriptCore then reports the error.
public enum Preprocessor {
    /// Rewrites `source` in one pass over its UTF-8 bytes.
    public static func rewrite(_ source: String) -> Preprocessed {
        var bytes = source  // withUTF8 may make the storage contiguous, hence a mutable copy
        let (output, insertions) = bytes.withUTF8 { buffer in
            var lexer = ScriptLexer(buffer)
            lexer.run()
            return (lexer.output, lexer.insertions)
        }
        if insertions.isEmpty { return Preprocessed(code: source, insertions: []) }
        return Preprocessed(code: String(decoding: output, as: UTF8.self), insertions: insertions)
    }

    /// Undoes the rewrite in text quoted from rewritten code, such as JavaScriptCore's error
    /// messages: `o.__c("missing") is not a function` becomes `o.missing is not a function`.
    public static func restoreCalls(in text: String) -> String {
        var text = text
        return text.withUTF8 { bytes -> String in
            let prefix: [UInt8] = Array(".__c(\"".utf8)
            var result: [UInt8] = []
            var copied = 0, j = 0
            while j + prefix.count < bytes.count {
                guard bytes[j] == prefix[0], (1..<prefix.count).allSatisfy({ bytes[j + $0] == prefix[$0] }) else {
                    j += 1
                    continue
                }
                // The name runs to the next quote, which must be followed by `)`; a line break first means it is not ours.
                var k = j + prefix.count
                while k < bytes.count && bytes[k] != 0x22 && bytes[k] != 0x0A && bytes[k] != 0x0D { k += 1 }
                guard k > j + prefix.count, k + 1 < bytes.count, bytes[k] == 0x22, bytes[k + 1] == 0x29 else {
                    j += 1
                    continue
                }
                if result.isEmpty { result.reserveCapacity(bytes.count) }
                result.append(contentsOf: bytes[copied...j])  // up to and including the dot
                result.append(contentsOf: bytes[(j + prefix.count)..<k])
                j = k + 2
                copied = j
            }
            if copied == 0 { return String(decoding: bytes, as: UTF8.self) }
            result.append(contentsOf: bytes[copied...])
            return String(decoding: result, as: UTF8.self)
        }
    }
}

/// A preprocessed script and the means to map positions in it back to the source.
public struct Preprocessed: Sendable, Equatable {
    /// The script to evaluate.
    public let code: String
    /// Rewritten calls, in source order.
    let insertions: [ScriptLexer.Insertion]

    init(code: String, insertions: [ScriptLexer.Insertion]) {
        self.code = code
        self.insertions = insertions
    }

    /// How many `.name(` calls were rewritten.
    public var rewriteCount: Int { insertions.count }

    /// Maps a position in `code` to the same place in the original source.
    ///
    /// Lines are 1-based and never change (the rewrite keeps every line break). Columns are
    /// 1-based and counted in UTF-16 code units, as JavaScriptCore reports them in an
    /// exception's `column`. A column inside the inserted `__c("` maps to the start of
    /// the method name, one inside the closing `")` to the end of the name.
    public func originalPosition(line: Int, column: Int) -> (line: Int, column: Int) {
        guard line >= 1, column >= 1 else { return (line, column) }
        // The first insertion on `line` (they are sorted by line).
        var low = 0, high = insertions.count
        while low < high {
            let mid = (low + high) / 2
            if Int(insertions[mid].line) < line { low = mid + 1 } else { high = mid }
        }
        guard low < insertions.count, Int(insertions[low].line) == line else { return (line, column) }

        let target = column - 1  // UTF-16 offset from the start of the line in `code`
        let inserted = ScriptLexer.insertedLength
        var code = code
        return code.withUTF8 { bytes -> (line: Int, column: Int) in
            // Each earlier insertion added `inserted` bytes before this line.
            var position = insertions[low].lineStart + inserted * low
            var units = 0  // UTF-16 units of the output line before `position`
            var shift = 0  // units inserted on this line before `position`
            var k = low
            while k < insertions.count && Int(insertions[k].line) == line {
                let prefixStart = insertions[k].start + inserted * k
                units += utf16Count(bytes, position, prefixStart)
                let nameUnits = utf16Count(bytes, prefixStart + 5, prefixStart + 5 + Int(insertions[k].length))
                if target < units { break }
                if target < units + 5 { return (line, units - shift + 1) }
                if target < units + 5 + nameUnits { return (line, target - 5 - shift + 1) }
                if target < units + inserted + nameUnits { return (line, units + nameUnits - shift + 1) }
                shift += inserted
                units += inserted + nameUnits
                position = prefixStart + inserted + Int(insertions[k].length)
                k += 1
            }
            return (line, target - shift + 1)
        }
    }
}

extension ScriptLexer {
    /// Bytes added per rewrite: `__c("` and `")`, all ASCII, so also UTF-16 units.
    static let insertedLength = 7
}

/// UTF-16 code units encoded by the UTF-8 bytes `from..<to` (clamped to the buffer).
private func utf16Count(_ bytes: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> Int {
    var count = 0
    var j = max(from, 0)
    let stop = min(to, bytes.count)
    while j < stop {
        let b = bytes[j]
        if b & 0xC0 != 0x80 { count += b >= 0xF0 ? 2 : 1 }  // a 4-byte sequence is a surrogate pair
        j += 1
    }
    return count
}
