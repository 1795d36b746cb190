import Foundation
import HTTPTestSupport
import PatchFormat
import XCTest

/// Everything signed is read strictly (`JSONParser`): bytes two JSON readers could read
/// differently are refused before any signature is checked, with the problem and its byte offset;
/// and random damage to a signed file, as a hostile mirror or a bad disk would do it, is refused
/// or reads as exactly the signed content (ported from the old signed-patch format's strict
/// parsing and mutation tests; the rules that format had only because its own writers never
/// produced `true`, `null` or `\/` don't apply to TUF metadata, which python-tuf writes too).
final class StrictMetadataParsingTests: XCTestCase {
    func refusal(_ text: String) -> String? {
        refusal(Data(text.utf8))
    }

    func refusal(_ data: Data) -> String? {
        do {
            _ = try JSONValue.parse(data, what: "metadata")
            return nil
        } catch {
            return "\(error)"
        }
    }

    func testDuplicateMembersAreRefusedWhereverTheyAre() {
        // Another reader could take the first value, this one the last: the file has no single meaning.
        XCTAssertEqual(refusal(#"{"signed": {"version": 9, "version": 1}}"#), #"metadata is not valid JSON: duplicate member "version" at byte 26"#)
        XCTAssertEqual(refusal(#"[{"a": 1}, {"b": {"c": 1, "c": 2}}]"#), #"metadata is not valid JSON: duplicate member "c" at byte 26"#)
    }

    func testEncodingAndStructureOutsideJSONAreRefused() {
        XCTAssertEqual(refusal(Data([0xEF, 0xBB, 0xBF]) + Data("{}".utf8)), "metadata is not valid JSON: a byte-order mark at byte 0")
        XCTAssertEqual(refusal(Data([0x7B, 0x22, 0xE9, 0x22, 0x3A, 0x31, 0x7D])), "metadata is not valid JSON: bytes that are not UTF-8 at byte 2")
        XCTAssertEqual(refusal("{} {}"), "metadata is not valid JSON: content after the JSON value at byte 3")
        XCTAssertEqual(refusal(#"{"a": "x\u{1}"}"#.replacingOccurrences(of: "\\u{1}", with: "\u{1}")),
                       "metadata is not valid JSON: a control character in a string at byte 8")
        XCTAssertEqual(refusal(#"{"version": 01}"#), "metadata is not valid JSON: expected ',' or '}' at byte 13")
    }

    func testValuesReadersDisagreeOnAreRefused() {
        XCTAssertEqual(refusal(#"{"version": 99999999999999999999}"#), "metadata is not valid JSON: an integer beyond 64 bits at byte 12")
        XCTAssertEqual(refusal(#"{"name": "\ud800"}"#), "metadata is not valid JSON: a lone surrogate escape at byte 16")
        XCTAssertNil(refusal(#"{"name": "\ud83d\ude00", "max": 9223372036854775807}"#))
    }

    func testNestingIsBoundedBeforeTheStackIs() {
        let limit = JSONParser.maxDepth
        XCTAssertNil(refusal(String(repeating: "[", count: limit) + String(repeating: "]", count: limit)))
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        XCTAssertEqual(refusal(deep), "metadata is not valid JSON: nesting deeper than \(limit) at byte \(limit)")
    }

    /// Seeded random damage to a signed channel role listing a release: every mutated file is
    /// refused (unparsable, malformed, or no longer signed by the key) or reads as exactly the
    /// signed content (a change the format doesn't see, such as whitespace between tokens).
    func testEveryMutatedMetadataFileIsRefusedOrReadsAsTheSignedContent() throws {
        let key = try SigningKey.generate(.ed25519)
        let release = PatchRelease(app: "com.example.shop", patchID: "shop-fixes", version: 3, appVersions: try AppVersionRange(parsing: ">=1.0.0 <2.0.0"),
                                   rollout: 2_500, models: ["iPhone15,2"], attributes: ["tier": ["gold"]])
        var targets = Targets(common: CommonFields(version: 7, expires: Date(timeIntervalSince1970: 1_900_000_000)))
        targets.targets["production/total.js"] = TargetFile(data: Data("defineClass('SKCart', {});\n".utf8), custom: release.custom)
        targets.targets["production/é.js"] = TargetFile(data: Data("var é = \"ü\";\n".utf8), custom: release.custom)
        var signed = try Metadata(signed: targets)
        try signed.sign(with: key)
        let original = try signed.serialized()
        let keys = [key.keyID: key.publicKey]

        let cases = 3000
        var rng = SeededGenerator(state: 0x5EED_1234)
        var refused = 0, sameContent = 0
        for _ in 0..<cases {
            let data = mutate(original, &rng)
            guard let metadata = try? Metadata<Targets>(data: data, name: "production"),
                  ThresholdCheck.isMet(keys: keys, keyids: [key.keyID], threshold: 1, signatures: metadata.signatures, bytes: metadata.signedBytes) else {
                refused += 1
                continue
            }
            XCTAssertEqual(metadata.signed, targets, "a mutation verified to other content: \(String(decoding: data, as: UTF8.self))")
            sameContent += 1
        }
        XCTAssertEqual(refused + sameContent, cases)
        XCTAssertGreaterThan(refused, cases * 9 / 10, "most mutations change what is signed")
        print("mutated metadata files: \(cases) tried, \(refused) refused, \(sameContent) read as the signed content")
    }

    private func mutate(_ data: Data, _ rng: inout SeededGenerator) -> Data {
        var bytes = [UInt8](data)
        let edits = Int.random(in: 1...3, using: &rng)
        for _ in 0..<edits where !bytes.isEmpty {
            let at = Int.random(in: 0..<bytes.count, using: &rng)
            switch Int.random(in: 0..<6, using: &rng) {
            case 0: bytes[at] ^= UInt8(1 << Int.random(in: 0..<8, using: &rng))          // flip a bit
            case 1: bytes.remove(at: at)                                                  // drop a byte
            case 2: bytes.insert(Array(" \t\n\"\\{}[],:0-e".utf8).randomElement(using: &rng)!, at: at)
            case 3: bytes[at] = UInt8.random(in: 0...255, using: &rng)                     // any byte
            case 4: bytes.removeSubrange(at...)                                           // truncate
            default:                                                                      // repeat a slice
                let end = min(bytes.count, at + Int.random(in: 1...40, using: &rng))
                bytes.insert(contentsOf: bytes[at..<end], at: at)
            }
        }
        return Data(bytes)
    }
}
