import Foundation

/// The exact bytes that get signed: a small JSON value with one, and only one, serialization.
///
/// Rules (they define the signed bytes, so they never change for a given `format`):
/// - UTF-8, no byte-order mark, no whitespace anywhere outside strings.
/// - Object members sorted by the bytes of their keys' UTF-8 (plain byte order); keys are unique.
///   Optional members that are absent are left out (never written as `null`).
/// - Integers in decimal, `-` for negatives, no leading zeros, no fraction, no exponent.
///   There are no floating-point numbers: times are whole seconds since 1970-01-01T00:00:00Z.
/// - Strings in double quotes; `"` is written `\"`, `\` is written `\\`, code points U+0000–U+001F
///   are written `\u00xx` (four lowercase hex digits); every other code point is written as its
///   UTF-8 bytes unchanged (no `\/`, no Unicode normalization).
/// - Arrays keep their order.
///
/// Signing these bytes rather than whatever bytes a file happens to hold means a verifier
/// re-derives them from the parsed values: whitespace or key order in the file doesn't matter,
/// any change of a value does.
public enum CanonicalJSON: Equatable, Sendable {
    case string(String)
    case integer(Int)
    case array([CanonicalJSON])
    case object([String: CanonicalJSON])

    /// The canonical serialization (see the type's documentation).
    public var bytes: Data {
        var out = [UInt8]()
        write(to: &out)
        return Data(out)
    }

    private func write(to out: inout [UInt8]) {
        switch self {
        case .string(let s):
            Self.writeString(s, to: &out)
        case .integer(let i):
            out.append(contentsOf: Array(String(i).utf8))
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                item.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            let keys = members.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            for (index, key) in keys.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                members[key]!.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x00...0x1F:
                out.append(contentsOf: Array("\\u00".utf8))
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
