import Foundation
import PatchDelivery
import XCTest

/// Everything signed is read strictly: a file that two JSON readers could read differently, or
/// that neither of the library's writers would produce, is refused before its signature is checked.
final class StrictParsingTests: XCTestCase {
    let key = SigningKey.generate(id: "release-1")

    func signedText() throws -> String {
        let patch = try PatchSigner(key: key).sign(patchID: "shop-fixes", version: 1, appID: "com.example.shop",
                                                   created: Date(timeIntervalSince1970: 1_800_000_000),
                                                   scripts: [("fix.js", "var fixed = 1;\n")])
        return String(decoding: patch.fileData(), as: UTF8.self)
    }

    /// The refusal message for the signed file with `target` replaced by `replacement` (exactly once).
    func refusal(replacing target: String, with replacement: String, file: StaticString = #filePath, line: UInt = #line) throws -> String? {
        let text = try signedText()
        XCTAssertEqual(text.components(separatedBy: target).count, 2, "'\(target)' occurs once", file: file, line: line)
        return refusal(Data(text.replacingOccurrences(of: target, with: replacement).utf8))
    }

    func refusal(_ data: Data) -> String? {
        do {
            _ = try PatchVerifier(trustStore: TrustStore(keys: [key.trustedKey])).verify(patchFile: data)
            return nil
        } catch let PatchRefusal.malformed(why) {
            return why
        } catch {
            return "\(error)"
        }
    }

    func testTheWritersOutputIsAccepted() throws {
        XCTAssertNil(refusal(Data(try signedText().utf8)))
        // Escapes both writers use for control characters in a script.
        let patch = try PatchSigner(key: key).sign(patchID: "p", version: 1, appID: "a", scripts: [("s.js", "a\n\t\u{1b}/é😀\"\\")])
        XCTAssertNil(refusal(patch.fileData()))
    }

    func testDuplicateKeysAreRefused() throws {
        // Another reader could take the first value, this one the last: the file has no single meaning.
        XCTAssertEqual(try refusal(replacing: #""version" : 1"#, with: #""version" : 9, "version" : 1"#)?
                        .hasPrefix("patch file is not strict JSON: duplicate key 'version' at byte "), true)
        XCTAssertEqual(try refusal(replacing: #""fix.js" : "#, with: #""fix.js" : "evil();", "fix.js" : "#)?
                        .hasPrefix("patch file is not strict JSON: duplicate key 'fix.js' at byte "), true)
    }

    func testValuesCanonicalFormCannotExpressAreRefused() throws {
        let cases: [(String, String, String)] = [
            (#""version" : 1"#, #""version" : 1.0"#, "a number with a fraction or exponent (only integers are signed)"),
            (#""version" : 1"#, #""version" : 1e0"#, "a number with a fraction or exponent (only integers are signed)"),
            (#""version" : 1"#, #""version" : 99999999999999999999"#, "an integer beyond 64 bits"),
            (#""created" : 1800000000"#, #""created" : -0"#, "-0"),
            (#""type" : "patch-manifest""#, #""type" : "patch-manifest", "x" : null"#, "true, false or null (a signed file holds only strings, integers, arrays and objects)"),
            (#""type" : "patch-manifest""#, #""type" : "patch\/manifest""#, #"the escape '\/' (canonical form never writes it)"#),
            (#""type" : "patch-manifest""#, #""type" : "p\u0061tch-manifest""#, #"a \u escape of a character that has a plain spelling (only \u0000–\u001f, lowercase)"#),
            (#""type" : "patch-manifest""#, #""type" : "patch-manifest\ud800""#, #"a \u escape of a character that has a plain spelling (only \u0000–\u001f, lowercase)"#),
            (#"fixed = 1;\n""#, #"fixed = 1;\u000A""#, #"a \u escape of a character that has a plain spelling (only \u0000–\u001f, lowercase)"#),
        ]
        for (target, replacement, problem) in cases {
            let why = try refusal(replacing: target, with: replacement)
            XCTAssertTrue(why?.hasPrefix("patch file is not strict JSON: \(problem) at byte ") ?? false,
                          "\(replacement): \(why ?? "accepted")")
        }
    }

    func testBytesAndStructureOutsideJSONAreRefused() throws {
        let text = try signedText()
        XCTAssertEqual(try refusal(replacing: #""version" : 1"#, with: #""version" : 01"#)?
                        .hasPrefix("patch file is not valid JSON: an integer with a leading zero at byte "), true)
        XCTAssertEqual(refusal(Data([0xEF, 0xBB, 0xBF]) + Data(text.utf8)), "patch file is not strict JSON: a byte-order mark at byte 0")
        var latin1 = Data(text.utf8)
        let at = latin1.firstRange(of: Data("fixed".utf8))!.lowerBound
        latin1[at] = 0xE9  // 'é' in Latin-1: not UTF-8
        XCTAssertEqual(refusal(latin1), "patch file is not valid JSON: bytes that are not UTF-8 at byte \(at)")
        XCTAssertEqual(refusal(Data((text + "{}").utf8))?.hasPrefix("patch file is not valid JSON: content after the JSON value"), true)
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        XCTAssertEqual(refusal(Data(deep.utf8)), "patch file is not strict JSON: nesting deeper than 32 at byte 32")
    }

    func testNonCanonicalBase64SignatureIsRefused() throws {
        let text = try signedText()
        let signature = try XCTUnwrap(text.range(of: #"(?<="signature" : ")[^"]+"#, options: .regularExpression))
        let spaced = text.replacingCharacters(in: signature, with: String(text[signature]).replacingOccurrences(of: "==", with: "=\n="))
        XCTAssertEqual(refusal(Data(spaced.replacingOccurrences(of: "=\n=", with: "=\\n=").utf8)),
                       "patch file field 'signature' is not canonical base64")
    }

    func testNamesWithControlCharactersAreRefused() throws {
        let text = try signedText()
        for (target, replacement, message) in [
            (#""name" : "fix.js""#, #""name" : "fix\n.js""#, #"script name 'fix\u{a}.js' must be a plain file name"#),
            (#""appID" : "com.example.shop""#, #""appID" : "com.example\u001b[2Jshop""#,
             #"manifest field 'appID' 'com.example\u{1b}[2Jshop' has control or format characters"#),
        ] {
            XCTAssertTrue(text.contains(target))
            XCTAssertEqual(refusal(Data(text.replacingOccurrences(of: target, with: replacement).utf8)), message)
        }
    }
}
