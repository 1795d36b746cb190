import Foundation

/// The bytes TUF signatures cover: OLPC canonical JSON as securesystemslib writes it, so that
/// signatures made by python-tuf, go-tuf and `patchctl` verify alike.
///
/// - No whitespace outside strings; object members sorted by their names' code points (the same
///   as the order of their UTF-8 bytes).
/// - Strings in double quotes with only `\` and `"` escaped; every other character, control
///   characters included, is written as its UTF-8 bytes.
/// - Integers in decimal; `true`, `false`, `null` as themselves. Numbers with a fraction or an
///   exponent have no canonical form: encoding one throws (such metadata cannot be signed or
///   verified).
public enum CanonicalJSON {
    /// The canonical bytes of `value`.
    public static func encode(_ value: JSONValue) throws -> Data {
        var out = [UInt8]()
        out.reserveCapacity(1024)
        try write(value, to: &out, fileForm: false)
        return Data(out)
    }

    /// The bytes a metadata file holds: the canonical form with control characters escaped
    /// (`\n`, `\u001f`), since canonical JSON's raw control characters are not JSON (PEM keys
    /// carry newlines). Readers parse it back to the same value, so signatures still verify.
    public static func encodeFile(_ value: JSONValue) throws -> Data {
        var out = [UInt8]()
        out.reserveCapacity(1024)
        try write(value, to: &out, fileForm: true)
        return Data(out)
    }

    private static func write(_ value: JSONValue, to out: inout [UInt8], fileForm: Bool) throws {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .integer(let i): out.append(contentsOf: String(i).utf8)
        case .fraction(let text): throw FormatError.malformed("canonical JSON has no form for the number \(text)")
        case .string(let s): writeString(s, to: &out, fileForm: fileForm)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (n, item) in items.enumerated() {
                if n > 0 { out.append(UInt8(ascii: ",")) }
                try write(item, to: &out, fileForm: fileForm)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            // Sorting the names alone moves less than sorting (name, value) pairs; UTF-8 order
            // is code point order (`String`'s `<` is not).
            for (n, key) in members.keys.sorted(by: JSONParser.utf8Precedes).enumerated() {
                if n > 0 { out.append(UInt8(ascii: ",")) }
                writeString(key, to: &out, fileForm: fileForm)
                out.append(UInt8(ascii: ":"))
                try write(members[key]!, to: &out, fileForm: fileForm)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func writeString(_ s: String, to out: inout [UInt8], fileForm: Bool) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { bytes in
            // Most strings (names, hashes, paths) need no escape: copied whole.
            guard bytes.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || (fileForm && $0 < 0x20) }) else {
                out.append(contentsOf: bytes)
                return
            }
            for byte in bytes {
                if fileForm && byte < 0x20 {
                    switch byte {
                    case 0x0A: out.append(contentsOf: "\\n".utf8)
                    case 0x0D: out.append(contentsOf: "\\r".utf8)
                    case 0x09: out.append(contentsOf: "\\t".utf8)
                    default:
                        let hex = Array("0123456789abcdef".utf8)
                        out.append(contentsOf: "\\u00".utf8)
                        out.append(hex[Int(byte >> 4)])
                        out.append(hex[Int(byte & 0xF)])
                    }
                    continue
                }
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { out.append(UInt8(ascii: "\\")) }
                out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
