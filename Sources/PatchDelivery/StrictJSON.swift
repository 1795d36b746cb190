/// The JSON reader for everything signed (patch files, revocation lists, key files). It refuses
/// whatever lets two readers of the same bytes see different content, and whatever neither of this
/// library's writers (`CanonicalJSON`, `SignedPatch.fileData()`) would produce:
///
/// - bytes that are not UTF-8, a byte-order mark, content after the value, nesting deeper than 32;
/// - duplicate keys in an object (readers disagree on which one wins);
/// - `true`, `false`, `null`, fractions, exponents, `-0`, leading zeros, integers beyond 64 bits
///   (a signed value is a string, an integer, an array or an object);
/// - escapes for characters that have a plain spelling: `\/`, `\u0041`, surrogate pairs (a
///   character outside U+0000–U+001F is written as its UTF-8 bytes). Control characters are
///   written `\u00xx` (lowercase hex, as canonical form does) or `\b \f \n \r \t` (as the file
///   writer does). Whitespace between tokens is free: files are pretty-printed.
struct StrictJSON {
    static let maxDepth = 32

    private let bytes: [UInt8]
    private var index = 0
    private let what: String

    /// Parses `data` as one JSON document; the error names the problem and its byte offset.
    static func parse(_ data: [UInt8], what: String) throws -> JSONValue {
        var parser = StrictJSON(bytes: data, what: what)
        try parser.checkEncoding()
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.syntax("content after the JSON value") }
        return value
    }

    private init(bytes: [UInt8], what: String) {
        self.bytes = bytes
        self.what = what
    }

    /// Valid JSON that a signed file must not contain.
    private func refusal(_ problem: String, at offset: Int? = nil) -> PatchRefusal {
        .malformed("\(what) is not strict JSON: \(problem) at byte \(offset ?? index)")
    }

    /// Not JSON at all.
    private func syntax(_ problem: String, at offset: Int? = nil) -> PatchRefusal {
        .malformed("\(what) is not valid JSON: \(problem) at byte \(offset ?? index)")
    }

    private func checkEncoding() throws {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { throw refusal("a byte-order mark", at: 0) }
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var offset = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput: return
            case .error: throw syntax("bytes that are not UTF-8", at: offset)
            }
        }
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let b = current, b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { index += 1 }
    }

    private mutating func expect(_ byte: UInt8) throws {
        guard current == byte else { throw syntax("expected '\(Character(Unicode.Scalar(byte)))'") }
        index += 1
    }

    private mutating func value(depth: Int) throws -> JSONValue {
        guard depth < Self.maxDepth else { throw refusal("nesting deeper than \(Self.maxDepth)") }
        guard let byte = current else { throw syntax("unexpected end") }
        switch byte {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .integer(try integer())
        case _ where ["true", "false", "null"].contains { bytes[index...].starts(with: $0.utf8) }:
            throw refusal("true, false or null (a signed file holds only strings, integers, arrays and objects)")
        default: throw syntax("unexpected character")
        }
    }

    private mutating func object(depth: Int) throws -> JSONValue {
        try expect(UInt8(ascii: "{"))
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") { index += 1; return .object(members) }
        while true {
            skipWhitespace()
            let keyOffset = index
            guard current == UInt8(ascii: "\"") else { throw syntax("expected a key") }
            let key = try string()
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            skipWhitespace()
            let member = try value(depth: depth + 1)
            guard members.updateValue(member, forKey: key) == nil else {
                throw refusal("duplicate key '\(LogSafe.escape(key))'", at: keyOffset)
            }
            skipWhitespace()
            if current == UInt8(ascii: ",") { index += 1; continue }
            try expect(UInt8(ascii: "}"))
            return .object(members)
        }
    }

    private mutating func array(depth: Int) throws -> JSONValue {
        try expect(UInt8(ascii: "["))
        var items: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") { index += 1; return .array(items) }
        while true {
            skipWhitespace()
            items.append(try value(depth: depth + 1))
            skipWhitespace()
            if current == UInt8(ascii: ",") { index += 1; continue }
            try expect(UInt8(ascii: "]"))
            return .array(items)
        }
    }

    private mutating func integer() throws -> Int {
        let start = index
        let negative = current == UInt8(ascii: "-")
        if negative { index += 1 }
        let digitsStart = index
        while let b = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) { index += 1 }
        let digits = bytes[digitsStart..<index]
        guard !digits.isEmpty else { throw syntax("a '-' without digits", at: start) }
        if let b = current, b == UInt8(ascii: ".") || b == UInt8(ascii: "e") || b == UInt8(ascii: "E") {
            throw refusal("a number with a fraction or exponent (only integers are signed)", at: start)
        }
        if digits.count > 1 && digits.first == UInt8(ascii: "0") { throw syntax("an integer with a leading zero", at: start) }
        if negative && digits == [UInt8(ascii: "0")] { throw refusal("-0", at: start) }
        guard let value = Int(String(decoding: bytes[start..<index], as: UTF8.self)) else {
            throw refusal("an integer beyond 64 bits", at: start)
        }
        return value
    }

    private mutating func string() throws -> String {
        try expect(UInt8(ascii: "\""))
        var out: [UInt8] = []
        while true {
            guard let b = current else { throw syntax("an unterminated string") }
            switch b {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: out, as: UTF8.self)  // validated as UTF-8 up front
            case UInt8(ascii: "\\"):
                out.append(try escape())
            case 0x00..<0x20:
                throw syntax("a raw control character in a string")
            default:
                out.append(b)
                index += 1
            }
        }
    }

    /// One escape sequence, which may only stand for a control character, `"` or `\`.
    private mutating func escape() throws -> UInt8 {
        let start = index
        index += 1
        guard let b = current else { throw syntax("an unterminated escape", at: start) }
        index += 1
        switch b {
        case UInt8(ascii: "\""): return b
        case UInt8(ascii: "\\"): return b
        case UInt8(ascii: "b"): return 0x08
        case UInt8(ascii: "f"): return 0x0C
        case UInt8(ascii: "n"): return 0x0A
        case UInt8(ascii: "r"): return 0x0D
        case UInt8(ascii: "t"): return 0x09
        case UInt8(ascii: "u"):
            guard index + 4 <= bytes.count else { throw syntax("a short \\u escape", at: start) }
            let hex = bytes[index..<index + 4]
            index += 4
            let lowerHex = Array("0123456789abcdef".utf8)
            guard hex.starts(with: Array("00".utf8)), let high = lowerHex.firstIndex(of: hex[hex.startIndex + 2]),
                  high < 2, let low = lowerHex.firstIndex(of: hex[hex.startIndex + 3]) else {
                throw refusal("a \\u escape of a character that has a plain spelling (only \\u0000–\\u001f, lowercase)", at: start)
            }
            return UInt8(high * 16 + low)
        default:
            throw refusal("the escape '\\\(LogSafe.escape(String(Unicode.Scalar(b))))' (canonical form never writes it)", at: start)
        }
    }
}
