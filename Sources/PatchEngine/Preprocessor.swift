/// Rewrites patch scripts so that every method call goes through the `__c` dispatcher:
/// `expr.name(` becomes `expr.__c(__pe.name||"name")(` — JSPatch's `expr.__c("name")(`, with
/// the name's record loaded at the call site when it has one (runtime.js says why) — but only
/// in code, never in strings, template text, comments or regular expressions — and never in the callee of
/// `new` (`new a.B(1)` keeps constructing `a.B`) or after `super.` (class `super` calls
/// keep their meaning).
///
/// Whitespace, comments and line breaks between the dot, the name and the `(` are kept,
/// so the output has exactly the lines of the input and `Preprocessed.originalPosition`
/// maps JavaScriptCore's error positions back to the source. `a?.name(` becomes
/// `a?.__c(__pe.name||"name")(`; `a.name?.(` is left alone (no call follows the name directly).
/// `.__c(` itself is never rewritten, so rewriting twice gives the same script.
/// Malformed input (an unterminated string, comment, template or regex) is copied as it
/// is from the point where it stops making sense; JavaScriptCore then reports the error.
public enum Preprocessor {
    /// Rewrites `source` in one pass over its UTF-8 bytes.
    public static func rewrite(_ source: String) -> Preprocessed {
        run(source, checkPoints: false, functionBody: false)
    }

    /// What the engine evaluates: the rewrite, plus a check point (`ScriptLexer.CheckPoint`) at
    /// the start of every loop body and every function body, where the execution time and heap
    /// growth limits are checked (`ExecutionTimeLimit`). `functionBody`: `source` is the body of
    /// a function made at run time (`new Function`), which gets a check point first.
    /// A script that names the check points' reserved identifiers has `reservedName` set and must
    /// be refused (`ReservedNameError`).
    public static func prepare(_ source: String, functionBody: Bool = false) -> Preprocessed {
        run(source, checkPoints: true, functionBody: functionBody)
    }

    /// `prepare`, throwing `ReservedNameError` for a script that names the reserved identifiers.
    static func checked(_ source: String, functionBody: Bool = false) throws -> Preprocessed {
        let prepared = prepare(source, functionBody: functionBody)
        if let reserved = prepared.reservedName { throw reserved }
        return prepared
    }

    private static func run(_ source: String, checkPoints: Bool, functionBody: Bool) -> Preprocessed {
        var bytes = source  // withUTF8 may make the storage contiguous, hence a mutable copy
        let (output, insertions, reserved) = bytes.withUTF8 { buffer in
            var lexer = ScriptLexer(buffer, checkPoints: checkPoints, functionBody: functionBody)
            lexer.run()
            let reserved = lexer.reserved.map { (line: Int($0.line), column: utf16Count(buffer, $0.lineStart, $0.start) + 1) }
            return (lexer.output, lexer.insertions, reserved)
        }
        let code = insertions.isEmpty ? source : String(decoding: output, as: UTF8.self)
        var result = Preprocessed(code: code, insertions: insertions)
        if let reserved { result.reservedName = ReservedNameError(line: reserved.line, column: reserved.column) }
        return result
    }

    /// Undoes the rewrite in text quoted from rewritten code, such as JavaScriptCore's error
    /// messages: `o.__c(__pe.missing||"missing") is not a function` becomes `o.missing is not a
    /// function`.
    public static func restoreCalls(in text: String) -> String {
        var text = text
        return text.withUTF8 { bytes -> String in
            let prefix: [UInt8] = [UInt8(ascii: ".")] + ScriptLexer.callPrefix
            let middle = ScriptLexer.callMiddle
            func matches(_ at: Int, _ expected: some Collection<UInt8>) -> Bool {
                at + expected.count <= bytes.count && zip(bytes[at..<(at + expected.count)], expected).allSatisfy { $0 == $1 }
            }
            var result: [UInt8] = []
            var copied = 0, j = 0
            while j + prefix.count < bytes.count {
                guard bytes[j] == prefix[0], matches(j, prefix) else {
                    j += 1
                    continue
                }
                // The name, `||"`, the same name, `")`: anything else is not ours.
                let name = j + prefix.count
                var k = name
                while k < bytes.count && !Self.endsName(bytes[k]) { k += 1 }
                let second = k + middle.count, end = second + (k - name)
                guard k > name, matches(k, middle), matches(second, bytes[name..<k]), matches(end, [UInt8(ascii: "\""), UInt8(ascii: ")")]) else {
                    j += 1
                    continue
                }
                if result.isEmpty { result.reserveCapacity(bytes.count) }
                result.append(contentsOf: bytes[copied...j])  // up to and including the dot
                result.append(contentsOf: bytes[name..<k])
                j = end + 2
                copied = j
            }
            if copied == 0 { return String(decoding: bytes, as: UTF8.self) }
            result.append(contentsOf: bytes[copied...])
            return String(decoding: result, as: UTF8.self)
        }
    }

    /// Bytes that end a name quoted in a message: ASCII that no identifier (or `\u` escape in one) has.
    private static func endsName(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "_"), UInt8(ascii: "$"), UInt8(ascii: "\\"), UInt8(ascii: "{"), UInt8(ascii: "}"), 0x80...0xFF:
            return false
        default:
            return true
        }
    }
}

/// A preprocessed script and the means to map positions in it back to the source.
public struct Preprocessed: Sendable, Equatable {
    /// The script to evaluate.
    public let code: String
    /// Rewritten calls and inserted check points, in source order.
    let insertions: [ScriptLexer.Insertion]
    /// Where the script names an identifier reserved for the check points (`Preprocessor.prepare`).
    var reservedName: ReservedNameError?

    init(code: String, insertions: [ScriptLexer.Insertion]) {
        self.code = code
        self.insertions = insertions
    }

    /// How many `.name(` calls were rewritten.
    public var rewriteCount: Int { insertions.lazy.filter { $0.inserted == 0 }.count }

    /// Maps a position in `code` to the same place in the original source.
    ///
    /// Lines are 1-based and never change (the rewrite keeps every line break). Columns are
    /// 1-based and counted in UTF-16 code units, as JavaScriptCore reports them in an
    /// exception's `column`. A column inside the inserted `__c(__pe.` maps to the start of
    /// the method name, one inside the inserted `||"name")` to the end of the name.
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
        let prefix = ScriptLexer.callPrefix.count, suffix = ScriptLexer.insertedLength - prefix
        var code = code
        return code.withUTF8 { bytes -> (line: Int, column: Int) in
            // Earlier lines' insertions moved this line by as much as they moved its first one.
            var position = insertions[low].lineStart + (insertions[low].outputStart - insertions[low].start)
            var units = 0  // UTF-16 units of the output line before `position`
            var shift = 0  // units inserted on this line before `position`
            var k = low
            while k < insertions.count && Int(insertions[k].line) == line {
                let prefixStart = insertions[k].outputStart, length = Int(insertions[k].length)
                units += utf16Count(bytes, position, prefixStart)
                if insertions[k].inserted > 0 {
                    // A check point (ASCII): a column inside it maps to the code it precedes.
                    let added = Int(insertions[k].inserted)
                    if target < units { break }
                    if target < units + added { return (line, units - shift + 1) }
                    shift += added
                    units += added
                    position = prefixStart + added
                    k += 1
                    continue
                }
                let nameUnits = utf16Count(bytes, prefixStart + prefix, prefixStart + prefix + length)
                let added = prefix + suffix + nameUnits  // the name's second copy is inserted too
                if target < units { break }
                if target < units + prefix { return (line, units - shift + 1) }
                if target < units + prefix + nameUnits { return (line, target - prefix - shift + 1) }
                if target < units + added + nameUnits { return (line, units + nameUnits - shift + 1) }
                shift += added
                units += added + nameUnits
                position = prefixStart + prefix + suffix + 2 * length
                k += 1
            }
            return (line, target - shift + 1)
        }
    }
}

/// A script names an identifier the engine's check points use (`__peTick`, `__peTock`, `__peTicked`, in any
/// spelling): refused before it runs, since it could reach the counter that bounds its run time.
struct ReservedNameError: Error, Equatable, Sendable, CustomStringConvertible {
    let line: Int
    let column: Int

    var message: String {
        "the identifiers __peTick, __peTock and __peTicked are reserved for the engine's execution checks; rename it"
    }

    var description: String { "line \(line), column \(column): \(message)" }
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
