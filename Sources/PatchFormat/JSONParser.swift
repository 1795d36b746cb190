import Foundation

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
    /// While the top-level `signed` member is read: its canonical bytes, written as it is parsed.
    /// Input is copied in runs: `canonical` holds the form up to `runStart`, from where the input
    /// is the canonical form until something differs (spacing, an escape, `-0`), which ends the
    /// run. Compact canonical input is one copy.
    private var recording = false
    private var canonical: [UInt8] = []
    private var runStart = 0
    /// Whether `canonical` is the canonical form: every object read so far listed its members in
    /// canonical order and no number had a fraction.
    private var inCanonicalOrder = true
    /// The members of the objects being read, innermost last (`object`).
    private var pending: [PendingMember] = []
    /// Whether the last string read was its bytes as they stand (no escape).
    private var lastStringWasRaw = false

    /// Parses `bytes` as one JSON document; the error names the problem and its byte offset.
    public static func parse(_ bytes: [UInt8], what: String) throws -> JSONValue {
        var parser = JSONParser(bytes: bytes, what: what)
        return try parser.document(recordsSigned: false)
    }

    /// Parses a metadata file (`bytes`) and, in the same pass, writes the canonical bytes of its
    /// top-level `signed` member (what signatures cover, `CanonicalJSON.encode`) — when every
    /// object in it lists its members in canonical order, as canonical writers and python-tuf
    /// (`sort_keys`) do. Otherwise, or without a `signed` member, nil: the caller encodes the
    /// parsed value. Same bytes either way; one pass instead of a second walk that sorts.
    public static func parseSignedDocument(_ bytes: [UInt8], what: String) throws -> (document: JSONValue, signedCanonical: [UInt8]?) {
        var parser = JSONParser(bytes: bytes, what: what)
        parser.canonical.reserveCapacity(bytes.count)
        let value = try parser.document(recordsSigned: true)
        guard case .object(let members) = value, members["signed"] != nil, parser.inCanonicalOrder else { return (value, nil) }
        return (value, parser.canonical)
    }

    /// The whole input as one JSON value, nothing but spacing after it.
    private mutating func document(recordsSigned: Bool) throws -> JSONValue {
        try checkEncoding()
        skipWhitespace()
        let value = try value(depth: 0, recordsSigned: recordsSigned)
        skipWhitespace()
        guard index == bytes.count else { throw error("content after the JSON value") }
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
        let start = index
        while let c = current, c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { index += 1 }
        if recording, index > start { replace(start..<index, with: EmptyCollection()) }
    }

    private mutating func expect(_ literal: String) throws {
        for byte in literal.utf8 {
            guard current == byte else { throw error("unexpected character") }
            index += 1
        }
    }

    /// `recordsSigned`: this is the document's value, whose `signed` member is recorded.
    private mutating func value(depth: Int, recordsSigned: Bool = false) throws -> JSONValue {
        guard depth < Self.maxDepth else { throw error("nesting deeper than \(Self.maxDepth)") }
        guard let c = current else { throw error("unexpected end of input") }
        switch c {
        case UInt8(ascii: "{"): return try object(depth: depth, recordsSigned: recordsSigned)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""):
            let start = index
            let text = try string()
            if recording { record(text, from: start) }
            return .string(text)
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = index
            let number = try number()
            if recording {
                // An integer is written as it reads, but for -0 (0); a fraction has no form.
                if case .integer(let value) = number {
                    if value == 0, bytes[start] == UInt8(ascii: "-") { replace(start..<index, with: CollectionOfOne(UInt8(ascii: "0"))) }
                } else {
                    inCanonicalOrder = false
                }
            }
            return number
        default: throw error("unexpected character")
        }
    }

    private mutating func object(depth: Int, recordsSigned: Bool = false) throws -> JSONValue {
        index += 1
        // Members wait in `pending` (shared by every object being read) until the object ends,
        // then go into a dictionary made at their number: no dictionary grows by rehashing.
        let first = pending.count
        // The previous member name, while recording: canonical order is the names' UTF-8 order.
        var previous: String?
        skipWhitespace()
        if current == UInt8(ascii: "}") { index += 1; return .object([:]) }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a member name") }
            let keyOffset = index
            let key = try string()
            if recording {
                if let previous, !Self.utf8Precedes(previous, key) { inCanonicalOrder = false }
                record(key, from: keyOffset)
                previous = key
            }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            skipWhitespace()
            let startsRecording = recordsSigned && key == "signed"
            if startsRecording { recording = true; runStart = index }
            let member = try value(depth: depth + 1)
            if startsRecording { replace(index..<index, with: EmptyCollection()); recording = false }
            pending.append(PendingMember(name: key, value: member, offset: keyOffset))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return .object(try members(from: first))
            default: throw error("expected ',' or '}'")
            }
        }
    }

    private struct PendingMember {
        var name: String
        var value: JSONValue
        let offset: Int
    }

    /// The members pending from `first` on, as a dictionary; they leave `pending` (moved, not
    /// copied). A name seen twice is refused at its second place.
    private mutating func members(from first: Int) throws -> [String: JSONValue] {
        var members = [String: JSONValue](minimumCapacity: pending.count - first)
        for i in first..<pending.count {
            var name = "", value = JSONValue.null
            swap(&name, &pending[i].name)
            swap(&value, &pending[i].value)
            guard members.updateValue(value, forKey: name) == nil else {
                throw error("duplicate member \"\(name)\"", at: pending[i].offset)
            }
        }
        pending.removeSubrange(first...)
        return members
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

    // MARK: the canonical bytes of `signed` (CanonicalJSON.encode's form)

    /// Ends the run at `range`'s start, writes `replacement` for the input in `range`, and starts
    /// the next run after it.
    private mutating func replace<C: Collection>(_ range: Range<Int>, with replacement: C) where C.Element == UInt8 {
        canonical.append(contentsOf: bytes[runStart..<range.lowerBound])
        canonical.append(contentsOf: replacement)
        runStart = range.upperBound
    }

    /// The string just read (from `start`, its opening quote): as it stands if it had no escape
    /// (then it holds no quote, backslash or control character), else rewritten with only `"`
    /// and `\` escaped.
    private mutating func record(_ text: String, from start: Int) {
        guard !lastStringWasRaw else { return }
        var form: [UInt8] = [UInt8(ascii: "\"")]
        for byte in text.utf8 {
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { form.append(UInt8(ascii: "\\")) }
            form.append(byte)
        }
        form.append(UInt8(ascii: "\""))
        replace(start..<index, with: form)
    }

    /// Whether `a`'s UTF-8 bytes sort before `b`'s (canonical JSON's member order).
    static func utf8Precedes(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                let common = min(x.count, y.count)
                if common > 0, let xs = x.baseAddress, let ys = y.baseAddress {
                    let order = memcmp(xs, ys, common)
                    if order != 0 { return order < 0 }
                }
                return x.count < y.count
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
                lastStringWasRaw = true
                return String(decoding: bytes[start..<(index - 1)], as: UTF8.self)
            }
            if c == UInt8(ascii: "\\") || c < 0x20 { break }
            index += 1
        }
        index = start
        lastStringWasRaw = false
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
