import Foundation
import HTTPTestSupport
import PatchFormat
import XCTest

/// The bytes signatures cover, written while a metadata file is parsed
/// (`JSONParser.parseSignedDocument`) when its members come in canonical order, must be exactly
/// what encoding the parsed value gives (`CanonicalJSON.encode`): a difference would make valid
/// metadata fail to verify, or verify bytes other than the ones read.
final class SignedBytesInOnePassTests: XCTestCase {
    /// Thousands of generated documents, each written with random spacing and escapes, once with
    /// members in canonical order and once shuffled: the one-pass bytes, when given, are the
    /// encoded value's; in canonical order they are always given (a document without fractions).
    func testOnePassBytesAreTheEncodedValuesForGeneratedDocuments() throws {
        var random = SeededGenerator(state: 0x5EED_CA90_1CA1)
        var onePass = 0
        for round in 0..<3_000 {
            let signed = Self.value(depth: 0, &random)
            for sorted in [true, false] {
                var text = "{"
                var envelope = [("signatures", "[]"), ("x-extra", "1"), ("signed", Self.write(signed, sorted: sorted, &random))]
                envelope.shuffle(using: &random)
                text += envelope.map { "\"\($0.0)\"" + Self.space(&random) + ":" + Self.space(&random) + $0.1 }.joined(separator: ",")
                text += "}"
                let (document, canonical) = try JSONParser.parseSignedDocument(Array(text.utf8), what: "case \(round)")
                let parsed = try XCTUnwrap(document.objectValue?["signed"])
                XCTAssertEqual(parsed, signed, "round \(round): \(text)")
                let expected = try? CanonicalJSON.encode(parsed)
                if let canonical {
                    onePass += 1
                    XCTAssertEqual(canonical.map { $0 }, expected.map { [UInt8]($0) }, "round \(round), sorted \(sorted): \(text)")
                } else if sorted, expected != nil {
                    XCTFail("round \(round): members in canonical order, yet no one-pass bytes: \(text)")
                }
            }
        }
        XCTAssertGreaterThan(onePass, 3_000, "documents in canonical order took the one pass")
    }

    /// A signed file rewritten by another writer (members reordered, spaced, strings escaped
    /// differently) still verifies, and one with a member changed does not.
    func testMetadataVerifiesWhateverOrderAndSpacingItsFileHas() throws {
        let key = try SigningKey.generate(.ed25519)
        let custom = JSONValue.object(["note": .string("é \"quoted\" \\ ｚ\n"), "b": .integer(-3), "a": .array([.null, .bool(true)])])
        let targets = Targets(common: CommonFields(expires: Date(timeIntervalSince1970: 4_000_000_000)),
                              targets: ["patches/a.js": TargetFile(data: Data("a".utf8), custom: custom)])
        var metadata = try Metadata(signed: targets)
        try metadata.sign(with: key)
        let file = try metadata.serialized()
        var random = SeededGenerator(state: 42)
        let value = try JSONValue.parse(file)
        for sorted in [true, false] {
            let rewritten = Data(Self.write(value, sorted: sorted, &random).utf8)
            let read = try Metadata<Targets>(data: rewritten)
            XCTAssertEqual(read.signedBytes, metadata.signedBytes, "sorted \(sorted)")
            XCTAssertTrue(key.publicKey.verify(signatureHex: read.signatures[0].sig, message: read.signedBytes))
        }
        let tampered = Data(String(decoding: file, as: UTF8.self).replacingOccurrences(of: "\"length\":1", with: "\"length\":2").utf8)
        let read = try Metadata<Targets>(data: tampered)
        XCTAssertFalse(key.publicKey.verify(signatureHex: read.signatures[0].sig, message: read.signedBytes))
    }

    // MARK: generated documents

    private static let names = ["a", "b", "B", "ab", "é", "e\u{301}x", "ｚ", "z", "\u{1F600}", "q\"uote", "back\\slash", "line\nbreak", "_type", "signed", ""]

    private static func value(depth: Int, _ random: inout SeededGenerator) -> JSONValue {
        let kind = depth >= 4 ? Int.random(in: 0..<5, using: &random) : Int.random(in: 0..<8, using: &random)
        switch kind {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2:
            let pick = Int.random(in: 0..<4, using: &random)
            return .integer(pick == 0 ? .min : pick == 1 ? .max : Int64.random(in: -1_000_000...1_000_000, using: &random))
        case 3: return Int.random(in: 0..<40, using: &random) == 0 ? .fraction("1.5") : .integer(0)
        case 4: return .string(string(&random))
        case 5: return .array((0..<Int.random(in: 0..<4, using: &random)).map { _ in value(depth: depth + 1, &random) })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0..<6, using: &random) {
                let name = Bool.random(using: &random) ? names.randomElement(using: &random)! : string(&random)
                members[name] = value(depth: depth + 1, &random)
            }
            return .object(members)
        }
    }

    private static func string(_ random: inout SeededGenerator) -> String {
        let pieces = ["a", "Z", "0", "é", "中", "\u{1F600}", "\"", "\\", "/", "\n", "\u{1}", "\u{1F}", " ", "ｚ"]
        return (0..<Int.random(in: 0..<6, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
    }

    /// `value` as JSON text: random spaces, each character written raw or escaped at random, 0 as -0 at random,
    /// members in UTF-8 order (`sorted`) or shuffled.
    private static func write(_ value: JSONValue, sorted: Bool, _ random: inout SeededGenerator) -> String {
        switch value {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .integer(let i): return i == 0 && Bool.random(using: &random) ? "-0" : String(i)
        case .fraction(let text): return text
        case .string(let s): return quoted(s, &random)
        case .array(let items):
            return "[" + space(&random) + items.map { write($0, sorted: sorted, &random) }.joined(separator: "," + space(&random)) + space(&random) + "]"
        case .object(let members):
            var names = Array(members.keys)
            if sorted { names.sort { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) } } else { names.shuffle(using: &random) }
            let written = names.map { quoted($0, &random) + space(&random) + ":" + space(&random) + write(members[$0]!, sorted: sorted, &random) }
            return "{" + space(&random) + written.joined(separator: "," + space(&random)) + space(&random) + "}"
        }
    }

    private static func space(_ random: inout SeededGenerator) -> String {
        ["", "", " ", "\n  ", "\t"].randomElement(using: &random)!
    }

    private static func quoted(_ s: String, _ random: inout SeededGenerator) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            let escape = Int.random(in: 0..<4, using: &random) == 0
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += escape ? "\\u000a" : "\\n"
            case "/": out += escape ? "\\/" : "/"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            case _ where escape && scalar.value > 0xFFFF:
                let v = scalar.value - 0x10000
                out += String(format: "\\u%04x\\u%04x", 0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF))
            case _ where escape: out += String(format: "\\u%04X", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
