import Foundation
import PatchFormat
import XCTest

final class PatchFormatTests: XCTestCase {
    func testCanonicalJSONSortsMembersAndEscapesOnlyQuoteAndBackslash() throws {
        let value = try JSONValue.parse(Data(#"{"b": [1, true, null], "a": "x\"y\\z\n\u00e9", "A": {}}"#.utf8))
        let bytes = try CanonicalJSON.encode(value)
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self), "{\"A\":{},\"a\":\"x\\\"y\\\\z\n\u{e9}\",\"b\":[1,true,null]}")
    }

    /// Members sort by code point (UTF-8 byte order), not by `String`'s order: "é" (U+00E9)
    /// after "z", "ｚ" (U+FF5A) after it, "Z" before "a", a prefix before its extensions; the
    /// same bytes whether the document's strings were escaped or written raw.
    func testCanonicalJSONOrdersNamesByCodePointsAndReadsEscapedAndRawStringsAlike() throws {
        let escaped = try JSONValue.parse(Data(#"{"\uff5a": 1, "\u00e9": 2, "z": 3, "Z": 4, "ab": 5, "a": 6}"#.utf8))
        let raw = try JSONValue.parse(Data("{\"ｚ\": 1, \"é\": 2, \"z\": 3, \"Z\": 4, \"ab\": 5, \"a\": 6}".utf8))
        XCTAssertEqual(escaped, raw)
        let bytes = try CanonicalJSON.encode(escaped)
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self), "{\"Z\":4,\"a\":6,\"ab\":5,\"z\":3,\"é\":2,\"ｚ\":1}")
        // Names are compared as Swift strings, by canonical equivalence: "é" spelled as one code
        // point and as "e" + a combining accent are one name, so a document with both is refused.
        XCTAssertThrowsError(try JSONValue.parse(Data(#"{"\u00e9": 1, "e\u0301": 2}"#.utf8))) { error in
            XCTAssertTrue("\(error)".contains("duplicate member"), "\(error)")
        }
        XCTAssertThrowsError(try JSONValue.parse(Data("{\"a\": \"x\u{1}y\"}".utf8)), "a raw control character in a string")
        XCTAssertThrowsError(try JSONValue.parse(Data([0x7B, 0x22, 0xC3, 0x22, 0x3A, 0x31, 0x7D])), "a name that is not UTF-8") { error in
            XCTAssertTrue("\(error)".contains("not UTF-8 at byte 2"), "\(error)")
        }
    }

    func testCanonicalJSONRefusesFractions() throws {
        let value = try JSONValue.parse(Data(#"{"a": 1.5}"#.utf8))
        XCTAssertThrowsError(try CanonicalJSON.encode(value))
    }

    func testParserRefusesDuplicateMembersDeepNestingAndHugeIntegers() {
        XCTAssertThrowsError(try JSONValue.parse(Data(#"{"a": 1, "a": 2}"#.utf8))) { error in
            XCTAssertTrue("\(error)".contains("duplicate member \"a\""), "\(error)")
        }
        XCTAssertThrowsError(try JSONValue.parse(Data((String(repeating: "[", count: 100) + String(repeating: "]", count: 100)).utf8)))
        XCTAssertThrowsError(try JSONValue.parse(Data("123456789012345678901234567890".utf8)))
        XCTAssertThrowsError(try JSONValue.parse(Data(#""\ud800""#.utf8)))
        XCTAssertThrowsError(try JSONValue.parse(Data([0x22, 0xFF, 0x22])))
        XCTAssertThrowsError(try JSONValue.parse(Data("{} x".utf8)))
    }

    func testEverySchemeSignsAndVerifiesAndRefusesOtherBytes() throws {
        for scheme in SigningKey.Scheme.allCases {
            let key = try SigningKey.generate(scheme)
            let message = Data("signed bytes".utf8)
            let signature = try key.sign(message)
            XCTAssertTrue(key.publicKey.verify(signatureHex: signature, message: message), "\(scheme)")
            XCTAssertFalse(key.publicKey.verify(signatureHex: signature, message: Data("other bytes".utf8)), "\(scheme)")
            XCTAssertFalse(key.publicKey.verify(signatureHex: "", message: message), "\(scheme)")
            let reread = try SigningKey(scheme: scheme, privateRepresentation: key.privateRepresentation)
            XCTAssertEqual(reread.keyID, key.keyID)
        }
    }

    func testThresholdCountsEachKeyOnce() throws {
        let key = try SigningKey.generate(.ed25519)
        let other = try SigningKey.generate(.ed25519)
        let bytes = Data("x".utf8)
        let sig = try key.sign(bytes)
        let keys = [key.keyID: key.publicKey, other.keyID: other.publicKey]
        let twice = [Signature(keyid: key.keyID, sig: sig), Signature(keyid: key.keyID, sig: sig)]
        XCTAssertFalse(ThresholdCheck.isMet(keys: keys, keyids: [key.keyID, other.keyID], threshold: 2, signatures: twice, bytes: bytes))
        XCTAssertTrue(ThresholdCheck.isMet(keys: keys, keyids: [key.keyID, other.keyID], threshold: 1, signatures: twice, bytes: bytes))
    }

    func testMetadataRefusesTwoSignaturesByOneKey() throws {
        let key = try SigningKey.generate(.ed25519)
        var metadata = try Metadata(signed: Targets(common: CommonFields(expires: Date(timeIntervalSinceNow: 3600))))
        try metadata.sign(with: key)
        var document = try JSONValue.parse(try metadata.serialized()).objectValue!
        guard case .array(let list) = document["signatures"]! else { return XCTFail() }
        document["signatures"] = .array(list + list)
        XCTAssertThrowsError(try Metadata<Targets>(data: try CanonicalJSON.encode(.object(document)))) { error in
            XCTAssertTrue("\(error)".contains("more than one signature"), "\(error)")
        }
    }

    func testPathPatternsDoNotCrossSlashesAndAreCaseSensitive() {
        XCTAssertTrue(PathPattern.matches(pattern: "releases/*/*", path: "releases/x/y"))
        XCTAssertFalse(PathPattern.matches(pattern: "*.md", path: "releases/README.md"))
        XCTAssertTrue(PathPattern.matches(pattern: "foo-?.tgz", path: "foo-1.tgz"))
        XCTAssertFalse(PathPattern.matches(pattern: "foo-?.tgz", path: "foo-alpha.tgz"))
        XCTAssertFalse(PathPattern.matches(pattern: "*.md", path: "README.MD"))
        XCTAssertTrue(PathPattern.matches(pattern: "v[0-9].[!a]", path: "v1.b"))
        XCTAssertFalse(PathPattern.matches(pattern: "v[0-9].[!a]", path: "v1.a"))
        XCTAssertTrue(PathPattern.matches(pattern: "*", path: "anything"))
    }

    func testExpiryFormatIsExactlyUTCSeconds() throws {
        let date = try MetadataDate.parse("2030-01-02T03:04:05Z", context: "t")
        XCTAssertEqual(MetadataDate.format(date), "2030-01-02T03:04:05Z")
        XCTAssertThrowsError(try MetadataDate.parse("2030-01-02T03:04:05+00:00", context: "t"))
        XCTAssertThrowsError(try MetadataDate.parse("2030-02-30T03:04:05Z", context: "t"))
    }

    /// Hash-bin delegation gives the bins python-tuf 7.0.0 computes for the same paths (values
    /// taken from tuf.api.metadata.SuccinctRoles), and hash-prefix delegation trusts by prefix.
    func testSuccinctBinsAndHashPrefixesMatchPythonTUF() throws {
        func delegations(_ json: String) throws -> Delegations {
            let targets = try Targets(json: JSONValue.parse(Data("""
                {"_type": "targets", "spec_version": "1.0.31", "version": 1, "expires": "2030-01-01T00:00:00Z",
                 "targets": {}, "delegations": \(json)}
                """.utf8)))
            return targets.delegations!
        }
        let bins8 = try delegations(#"{"keys": {}, "succinct_roles": {"keyids": [], "threshold": 1, "bit_length": 8, "name_prefix": "bin"}}"#)
        XCTAssertEqual(["x.txt", "patches/a.js", "production/fix-1.js"].map { bins8.roles(for: $0).first!.name }, ["bin-8a", "bin-1d", "bin-85"])
        XCTAssertTrue(bins8.roles(for: "x.txt").first!.terminating)
        let bins3 = try delegations(#"{"keys": {}, "succinct_roles": {"keyids": [], "threshold": 1, "bit_length": 3, "name_prefix": "b"}}"#)
        XCTAssertEqual(["x.txt", "patches/a.js"].map { bins3.roles(for: $0).first!.name }, ["b-4", "b-0"])
        XCTAssertNotNil(bins3.keys(for: "b-7"))
        XCTAssertNil(bins3.keys(for: "b-8"))
        let prefixed = try delegations(#"{"keys": {}, "roles": [{"name": "r", "keyids": [], "threshold": 1, "terminating": false, "path_hash_prefixes": ["1d6b"]}]}"#)
        XCTAssertEqual(prefixed.roles(for: "patches/a.js").map(\.name), ["r"])
        XCTAssertEqual(prefixed.roles(for: "x.txt").count, 0)
        XCTAssertThrowsError(try delegations(#"{"keys": {}, "roles": [{"name": "targets", "keyids": [], "threshold": 1, "terminating": false, "paths": ["*"]}]}"#))
    }

    /// A target's members are read whatever they are: unknown ones kept (they are signed), a
    /// target without `custom` has none, a malformed one is refused with its path named.
    func testTargetFilesKeepUnknownMembersAndNameTheTargetThatIsMalformed() throws {
        func targets(_ entries: String) throws -> Targets {
            try Targets(json: try JSONValue.parse(Data(#"{"_type": "targets", "spec_version": "1.0.31", "version": 1, "expires": "2030-01-01T00:00:00Z", "targets": {\#(entries)}}"#.utf8)))
        }
        let read = try targets(#""a.js": {"length": 1, "hashes": {"sha256": "ab"}, "x-note": [1]}, "b.js": {"length": 2, "hashes": {"sha256": "cd"}, "custom": {"k": true}}"#)
        XCTAssertEqual(read.targets["a.js"]?.unrecognized, ["x-note": .array([.integer(1)])])
        XCTAssertNil(read.targets["a.js"]?.custom)
        XCTAssertEqual(read.targets["b.js"]?.custom, .object(["k": .bool(true)]))
        XCTAssertEqual(read.targets["b.js"]?.unrecognized, [:])
        XCTAssertEqual(try Targets(json: read.json), read)
        for (entry, message) in [(#""c.js": {"length": -1, "hashes": {"sha256": "ab"}}"#, "target c.js: length must not be negative"),
                                 (#""c.js": {"length": 1, "hashes": {"sha256": 5}}"#, "target c.js: each hash must be a string"),
                                 (#""c.js": {"length": 1, "hashes": {}}"#, "target c.js: hashes must not be empty"),
                                 (#""c.js": {"hashes": {"sha256": "ab"}}"#, "target c.js: missing \"length\""),
                                 (#""c.js": [1]"#, "target c.js must be an object")] {
            XCTAssertThrowsError(try targets(entry), entry) { XCTAssertTrue("\($0)".contains(message), "\($0)") }
        }
    }
}
