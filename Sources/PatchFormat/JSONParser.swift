/// The JSON reader for metadata. It accepts exactly RFC 8259 JSON and refuses whatever lets two
/// readers of the same bytes see different content:
///
/// - bytes that are not UTF-8 (a byte-order mark included), content after the value;
/// - duplicate member names in an object (readers disagree on which one wins);
/// - integers beyond 64 bits (readers disagree on their value), lone surrogate escapes;
/// - nesting deeper than `maxDepth` (a stack-exhaustion attack on any recursive reader).
///
/// Sizes are bounded before parsing: the downloader cuts every document at its declared length
/// or the role's maximum.
public struct JSONParser {
    public static let maxDepth = 64

    private let bytes: [UInt8]
    private var index = 0
    private let what: String

    /// Parses `bytes` as one JSON document; the error names the problem and its byte offset.
    public static func parse(_ bytes: [UInt8], what: String) throws -> JSONValue {
        var parser = JSONParser(bytes: bytes, what: what)
        try parser.checkEncoding()
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.error("content after the JSON value") }
        return value
    }

    private init(bytes: [UInt8], what: String) {
        self.bytes = bytes
        self.what = what
    }

    private func error(_ problem: String, at offset: Int? = nil) -> FormatError {
        .malformed("\(what) is not valid JSON: \(problem) at byte \(offset ?? index)")
    }

    private func checkEncoding() throws {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { throw error("a byte-order mark", at: 0) }
        // The standard library's validation is fast; the loop below only finds where it failed.
        if String(validating: bytes, as: UTF8.self) != nil { return }
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var offset = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput: return
            case .error: throw error("bytes that are not UTF-8", at: offset)
            }
        }
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let c = current, c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { index += 1 }
    }

    private mutating func expect(_ literal: String) throws {
        for byte in literal.utf8 {
            guard current == byte else { throw error("unexpected character") }
            index += 1
        }
    }

    private mutating func value(depth: Int) throws -> JSONValue {
        guard depth < Self.maxDepth else { throw error("nesting deeper than \(Self.maxDepth)") }
        guard let c = current else { throw error("unexpected end of input") }
        switch c {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw error("unexpected character")
        }
    }

    private mutating func object(depth: Int) throws -> JSONValue {
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") { index += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a member name") }
            let keyOffset = index
            let key = try string()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            skipWhitespace()
            guard members.updateValue(try value(depth: depth + 1), forKey: key) == nil else {
                throw error("duplicate member \"\(key)\"", at: keyOffset)
            }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return .object(members)
            default: throw error("expected ',' or '}'")
            }
        }
    }

    private mutating func array(depth: Int) throws -> JSONValue {
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") { index += 1; return .array(items) }
        while true {
            skipWhitespace()
            items.append(try value(depth: depth + 1))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return .array(items)
            default: throw error("expected ',' or ']'")
            }
        }
    }

    private mutating func string() throws -> String {
        index += 1  // opening quote
        // Most strings have no escape: made straight from their bytes (already checked UTF-8).
        let start = index
        while index < bytes.count {
            let c = bytes[index]
            if c == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: bytes[start..<(index - 1)], as: UTF8.self)
            }
            if c == UInt8(ascii: "\\") || c < 0x20 { break }
            index += 1
        }
        index = start
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flush(_ parser: JSONParser, upTo end: Int) {
            if end > runStart {
                scalars.append(contentsOf: String(decoding: parser.bytes[runStart..<end], as: UTF8.self).unicodeScalars)
            }
        }
        while true {
            guard let c = current else { throw error("unterminated string") }
            if c == UInt8(ascii: "\"") {
                flush(self, upTo: index)
                index += 1
                return String(scalars)
            }
            if c < 0x20 { throw error("a control character in a string") }
            if c != UInt8(ascii: "\\") { index += 1; continue }
            flush(self, upTo: index)
            index += 1
            guard let e = current else { throw error("unterminated escape") }
            index += 1
            switch e {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                let first = try hex4()
                if (0xD800...0xDBFF).contains(first) {
                    guard current == UInt8(ascii: "\\") else { throw error("a lone surrogate escape") }
                    index += 1
                    guard current == UInt8(ascii: "u") else { throw error("a lone surrogate escape") }
                    index += 1
                    let second = try hex4()
                    guard (0xDC00...0xDFFF).contains(second) else { throw error("a lone surrogate escape") }
                    let scalar = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                    scalars.append(Unicode.Scalar(scalar)!)
                } else {
                    guard let scalar = Unicode.Scalar(first) else { throw error("a lone surrogate escape") }
                    scalars.append(scalar)
                }
            default: throw error("an unknown escape")
            }
            runStart = index
        }
    }

    private mutating func hex4() throws -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("unterminated escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            let digit: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw error("a bad \\u escape")
            }
            value = value * 16 + digit
            index += 1
        }
        return value
    }

    private mutating func number() throws -> JSONValue {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            throw error("a malformed number")
        }
        index += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        var integral = true
        if current == UInt8(ascii: ".") {
            integral = false
            index += 1
            guard try digitsFollow() else { throw error("a malformed number") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            integral = false
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard try digitsFollow() else { throw error("a malformed number") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard integral else { return .fraction(text) }
        guard let value = Int64(text) else { throw error("an integer beyond 64 bits", at: start) }
        return .integer(value)
    }

    private mutating func skipDigits() {
        while let c = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c) { index += 1 }
    }

    private mutating func digitsFollow() throws -> Bool {
        let before = index
        skipDigits()
        return index > before
    }
}
