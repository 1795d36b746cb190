import Crypto
import Foundation
@testable import PatchDelivery
import XCTest

final class CanonicalFormTests: XCTestCase {
    func testCanonicalJSONBytesAreExact() {
        let value = CanonicalJSON.object([
            "b": .integer(-12),
            "a": .array([.string("x\"y\\z/\u{1}\n"), .integer(0)]),
            "é": .string("ü"),
            "B": .object([:]),
        ])
        // Keys by UTF-8 byte order ("B" < "a" < "b" < "é"), no whitespace, minimal escapes.
        XCTAssertEqual(String(decoding: value.bytes, as: UTF8.self),
                       #"{"B":{},"a":["x\"y\\z/\u0001\u000a",0],"b":-12,"é":"ü"}"#)
    }

    func testManifestCanonicalBytesAreDocumentedForm() {
        let manifest = PatchManifest(
            patchID: "shop-fixes", version: 3, appID: "com.example.shop",
            appVersions: try! AppVersionRange(parsing: ">=1.0.0 <2.0.0"),
            created: Date(timeIntervalSince1970: 1_763_700_000.9), expires: nil, keyID: "release-2026",
            scripts: [.init(name: "total.js", sha256: String(repeating: "ab", count: 32))])
        XCTAssertEqual(String(decoding: manifest.canonicalBytes, as: UTF8.self),
                       #"{"appID":"com.example.shop","appVersions":">=1.0.0 <2.0.0","created":1763700000,"format":1,"#
                       + #""keyID":"release-2026","patchID":"shop-fixes","scripts":[{"name":"total.js","sha256":""#
                       + String(repeating: "ab", count: 32) + #""}],"type":"patch-manifest","version":3}"#)
    }

    func testSignatureCoversCanonicalBytesAndSurvivesReformatting() throws {
        let key = SigningKey.generate(id: "k")
        let patch = try PatchSigner(key: key).sign(patchID: "p", version: 1, appID: "app", scripts: [("a.js", "var a = 1;")])
        XCTAssertTrue(key.privateKey.publicKey.isValidSignature(patch.signature, for: patch.manifest.canonicalBytes))
        // Same values, different whitespace and member order: still the same signed content.
        let object = try JSONSerialization.jsonObject(with: patch.fileData())
        let compact = try JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes])
        let reparsed = try SignedPatch(fileData: compact)
        XCTAssertEqual(reparsed, patch)
        XCTAssertNoThrow(try PatchVerifier(trustStore: TrustStore(keys: [key.trustedKey])).verify(reparsed))
    }

    func testFileRoundTripAndScriptOrder() throws {
        let key = SigningKey.generate()
        XCTAssertTrue(key.id.hasPrefix("ed25519-") && key.id.count == 24, key.id)
        let patch = try PatchSigner(key: key).sign(
            patchID: "p", version: 2, appID: "app", expires: Date(timeIntervalSinceNow: 3600),
            scripts: [("z.js", "1"), ("a.js", "2")])
        let again = try SignedPatch(fileData: patch.fileData())
        XCTAssertEqual(again, patch)
        XCTAssertEqual(again.orderedScripts.map(\.name), ["z.js", "a.js"], "manifest order, not name order")
    }

    func testKeyFilesRoundTrip() throws {
        let key = SigningKey.generate(id: "rot-2")
        let reread = try SigningKey(fileData: key.fileData())
        XCTAssertEqual(reread.id, "rot-2")
        XCTAssertEqual(reread.privateKey.rawRepresentation, key.privateKey.rawRepresentation)
        let pub = try TrustedKey(fileData: key.trustedKey.fileData())
        XCTAssertEqual(pub.publicKey.rawRepresentation, key.privateKey.publicKey.rawRepresentation)
        XCTAssertEqual(try TrustedKey(id: "rot-2", base64: key.trustedKey.base64).publicKey.rawRepresentation,
                       pub.publicKey.rawRepresentation)
        XCTAssertThrowsError(try TrustedKey(fileData: key.fileData())) {
            XCTAssertTrue("\($0)".contains("not a patchengine-ed25519-public-key file"), "\($0)")
        }
        XCTAssertThrowsError(try TrustedKey(id: "x", base64: "not base64!")) {
            XCTAssertEqual("\($0)", "public key 'x' is not a base64 Ed25519 public key")
        }
    }

    func testSignerRejectsInvalidManifestValues() {
        let signer = PatchSigner(key: .generate(id: "k"))
        XCTAssertThrowsError(try signer.sign(patchID: "bad id", version: 1, appID: "a", scripts: [("a.js", "")])) {
            XCTAssertEqual($0 as? PatchRefusal, .malformed("patchID 'bad id' must be 1–128 letters, digits, '.', '_' or '-'"))
        }
        XCTAssertThrowsError(try signer.sign(patchID: "p", version: 0, appID: "a", scripts: [("a.js", "")])) {
            XCTAssertEqual($0 as? PatchRefusal, .malformed("manifest field 'version' must be at least 1, found 0"))
        }
        XCTAssertThrowsError(try signer.sign(patchID: "p", version: 1, appID: "a", scripts: [("a.js", ""), ("a.js", "")])) {
            XCTAssertEqual($0 as? PatchRefusal, .malformed("script 'a.js' is listed twice"))
        }
        XCTAssertThrowsError(try signer.sign(patchID: "p", version: 1, appID: "a", scripts: [])) {
            XCTAssertEqual($0 as? PatchRefusal, .malformed("manifest lists no scripts"))
        }
    }

    func testRevocationListMergesEntries() throws {
        var list = RevocationList(sequence: 1, issued: Date(), keyID: "k")
        list.revoke("b", versions: [3, 1])
        list.revoke("a")
        list.revoke("b", versions: [2, 3])
        XCTAssertEqual(list.entries, [.init(patchID: "a"), .init(patchID: "b", versions: [1, 2, 3])])
        list.revoke("b")
        XCTAssertEqual(list.entries.last, .init(patchID: "b", versions: nil))
        XCTAssertTrue(list.revokes(patchID: "b", version: 99))
        XCTAssertFalse(list.revokes(patchID: "c", version: 1))
        let key = SigningKey.generate(id: "k")
        let signed = try PatchSigner(key: key).sign(list)
        XCTAssertEqual(try SignedRevocationList(fileData: signed.fileData()), signed)
    }
}
