import Foundation
import PatchDelivery
import XCTest

/// Edits a patch file's JSON the way an attacker (or a broken tool) would, keeping the signature.
func tamper(_ patch: SignedPatch, _ change: (inout [String: Any]) -> Void) throws -> Data {
    var object = try JSONSerialization.jsonObject(with: patch.fileData()) as! [String: Any]
    change(&object)
    // Without `\/`: the strict reader refuses escapes canonical form never writes.
    return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
}

final class PatchVerifierTests: XCTestCase {
    let key = SigningKey.generate(id: "release-1")
    let target = PatchVerifier.Target(appID: "com.example.shop", appVersion: SemanticVersion(1, 4, 0))

    func signed(version: Int = 1, appID: String = "com.example.shop", range: String = ">=1.0.0 <2.0.0",
                expires: Date? = nil, key: SigningKey? = nil) throws -> SignedPatch {
        try PatchSigner(key: key ?? self.key).sign(
            patchID: "shop-fixes", version: version, appID: appID, appVersions: try AppVersionRange(parsing: range),
            created: Date(timeIntervalSince1970: 1_800_000_000), expires: expires,
            scripts: [("total.js", "var total = 1;"), ("nil.js", "var nilFix = 2;")])
    }

    func verifier(_ keys: [TrustedKey]? = nil, now: Date = Date(timeIntervalSince1970: 1_800_000_100)) -> PatchVerifier {
        PatchVerifier(trustStore: TrustStore(keys: keys ?? [key.trustedKey]), target: target, now: { now })
    }

    func refusal(_ data: Data, _ verifier: PatchVerifier? = nil) -> PatchRefusal? {
        do { _ = try (verifier ?? self.verifier()).verify(patchFile: data); return nil } catch { return error as? PatchRefusal }
    }

    func testValidPatchVerifies() throws {
        let patch = try signed()
        XCTAssertEqual(try verifier().verify(patchFile: patch.fileData()), patch)
    }

    func testBadSignatureWhenASignedValueChanges() throws {
        let data = try tamper(try signed(version: 1)) { file in
            var m = file["manifest"] as! [String: Any]
            m["version"] = 99
            file["manifest"] = m
        }
        XCTAssertEqual(refusal(data), .badSignature(keyID: "release-1"))
        XCTAssertEqual(refusal(data)?.description,
                       "bad signature: the manifest was not signed by key 'release-1' or was altered after signing")
    }

    func testBadSignatureWhenSignedByAnotherKeyUnderTheSameID() throws {
        let impostor = SigningKey.generate(id: "release-1")
        XCTAssertEqual(refusal(try signed(key: impostor).fileData()), .badSignature(keyID: "release-1"))
    }

    func testUnknownAndRetiredKeys() throws {
        let other = SigningKey.generate(id: "someone-else")
        XCTAssertEqual(refusal(try signed(key: other).fileData()), .unknownKey(keyID: "someone-else"))
        var store = TrustStore(keys: [key.trustedKey, other.trustedKey])
        store.retire("release-1")
        let v = PatchVerifier(trustStore: store, target: target)
        XCTAssertEqual(refusal(try signed().fileData(), v), .retiredKey(keyID: "release-1"))
        XCTAssertNil(refusal(try signed(key: other).fileData(), v), "the other key still works: rotation")
        XCTAssertEqual(PatchRefusal.retiredKey(keyID: "release-1").description,
                       "signed with retired key 'release-1': the key is no longer trusted")
    }

    func testScriptHashMismatchMissingAndUnsignedScripts() throws {
        let patch = try signed()
        let changed = try tamper(patch) { file in
            var s = file["scripts"] as! [String: Any]
            s["nil.js"] = "var nilFix = 2; evil();"
            file["scripts"] = s
        }
        guard case .scriptHashMismatch("nil.js", let expected, let actual?)? = refusal(changed) else {
            return XCTFail("expected a hash mismatch, got \(String(describing: refusal(changed)))")
        }
        XCTAssertEqual(expected, patch.manifest.scripts[1].sha256)
        XCTAssertNotEqual(actual, expected)

        let missing = try tamper(patch) { file in
            var s = file["scripts"] as! [String: Any]
            s["total.js"] = nil
            file["scripts"] = s
        }
        XCTAssertEqual(refusal(missing)?.description,
                       "script hash mismatch: 'total.js' is listed in the signed manifest but missing from the file")

        let extra = try tamper(patch) { file in
            var s = file["scripts"] as! [String: Any]
            s["extra.js"] = "evil();"
            file["scripts"] = s
        }
        XCTAssertEqual(refusal(extra), .unsignedScript("extra.js"))
    }

    func testWrongAppAndAppVersionOutsideRange() throws {
        XCTAssertEqual(refusal(try signed(appID: "com.example.other").fileData()),
                       .wrongApp(expected: "com.example.shop", patchAppID: "com.example.other"))
        XCTAssertNil(refusal(try signed(appID: "*").fileData()), "'*' targets any app")
        let outside = refusal(try signed(range: ">=1.5.0").fileData())
        XCTAssertEqual(outside, .appVersionOutOfRange(appVersion: "1.4.0", range: ">=1.5.0"))
        XCTAssertEqual(outside?.description, "app version 1.4.0 is outside the patch's range '>=1.5.0'")
        XCTAssertNil(refusal(try signed(range: "<=1.4.0").fileData()), "edge: 1.4.0 is inside <=1.4.0")
        XCTAssertEqual(refusal(try signed(range: "<1.4.0").fileData()),
                       .appVersionOutOfRange(appVersion: "1.4.0", range: "<1.4.0"))
    }

    func testExpiry() throws {
        let expires = Date(timeIntervalSince1970: 1_800_000_500)
        let data = try signed(expires: expires).fileData()
        XCTAssertNil(refusal(data, verifier(now: expires.addingTimeInterval(-1))))
        XCTAssertEqual(refusal(data, verifier(now: expires)), .expired(patchID: "shop-fixes", at: expires))
        XCTAssertEqual(refusal(data, verifier(now: expires))?.description,
                       "patch 'shop-fixes' expired at 2027-01-15T08:08:20Z")
    }

    func testManifestsThatDoNotParse() throws {
        let patch = try signed()
        func malformed(_ data: Data) -> String? {
            if case .malformed(let why)? = refusal(data) { return why }
            return nil
        }
        XCTAssertEqual(malformed(Data("not json".utf8)), "patch file is not valid JSON: unexpected character at byte 0")
        XCTAssertEqual(malformed(Data("[1,2]".utf8)), "patch file must be a JSON object, found an array")
        XCTAssertEqual(malformed(try tamper(patch) { $0["manifest"] = nil }), "patch file is missing field 'manifest'")
        XCTAssertEqual(malformed(try tamper(patch) { $0["comment"] = "hi" }), "patch file has unknown field 'comment'")
        XCTAssertEqual(malformed(try tamper(patch) { $0["signature"] = "%%%" }), "patch file field 'signature' is not canonical base64")
        func editManifest(_ change: @escaping (inout [String: Any]) -> Void) throws -> Data {
            try tamper(patch) { file in
                var m = file["manifest"] as! [String: Any]
                change(&m)
                file["manifest"] = m
            }
        }
        XCTAssertEqual(malformed(try editManifest { $0["version"] = "3" }),
                       "manifest field 'version' must be an integer, found a string")
        XCTAssertEqual(malformed(try editManifest { $0["version"] = [1] }),
                       "manifest field 'version' must be an integer, found an array")
        XCTAssertEqual(malformed(try editManifest { $0["keyID"] = nil }), "manifest is missing field 'keyID'")
        XCTAssertEqual(malformed(try editManifest { $0["debug"] = "yes" }), "manifest has unknown field 'debug'")
        XCTAssertEqual(malformed(try editManifest { $0["format"] = 2 }),
                       "manifest format 2 is not supported (this library reads format 1)")
        XCTAssertEqual(malformed(try editManifest { $0["appVersions"] = ">=1.x" }),
                       "manifest field 'appVersions': invalid version '>=1.x': 'x' is not a number without leading zeros in '>=1.x'")
        XCTAssertEqual(malformed(try editManifest { $0["appVersions"] = ">=1.0" }),
                       "manifest field 'appVersions' is not in normalized form ('>=1.0.0')")
        XCTAssertEqual(malformed(try editManifest { $0["type"] = "revocation-list" }), "manifest type must be 'patch-manifest'")
    }

    func testRevocationListVerification() throws {
        let list = RevocationList(sequence: 2, issued: Date(), keyID: "", entries: [.init(patchID: "shop-fixes")])
        let signed = try PatchSigner(key: key).sign(list)
        XCTAssertEqual(try verifier().verify(revocationListFile: signed.fileData()).list.entries.map(\.patchID), ["shop-fixes"])
        let forged = try PatchSigner(key: .generate(id: "release-1")).sign(list)
        XCTAssertThrowsError(try verifier().verify(revocationListFile: forged.fileData())) {
            XCTAssertEqual($0 as? PatchRefusal, .badSignature(keyID: "release-1"))
        }
        // A patch file is not a revocation list, even when signed by the same key.
        XCTAssertThrowsError(try verifier().verify(revocationListFile: try self.signed().fileData())) {
            XCTAssertEqual($0 as? PatchRefusal, .malformed("revocation list file has unknown field 'manifest'"))
        }
    }
}
