import Foundation
import PatchDelivery
import XCTest

/// Random damage to signed files, as a hostile mirror or a bad disk would do it: every mutated
/// patch file and revocation list is either refused with a `PatchRefusal` or verifies to exactly
/// the signed content (a change the format doesn't see, such as whitespace between tokens).
/// Nothing crashes, and nothing else gets through. The counts are printed for the README's figures.
final class MutatedFileTests: XCTestCase {
    /// A small seeded generator (xorshift64*): the same cases on every run.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state >> 12; state ^= state << 25; state ^= state >> 27
            return state &* 2685821657736338717
        }
    }

    static let cases = 3000

    func mutate(_ data: Data, _ rng: inout Seeded) -> Data {
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

    func testEveryMutatedPatchFileIsRefusedOrVerifiesToTheSignedContent() throws {
        let key = SigningKey.generate(id: "release-1")
        let patch = try PatchSigner(key: key).sign(
            patchID: "shop-fixes", version: 3, appID: "com.example.shop", appVersions: try AppVersionRange(parsing: ">=1.0.0 <2.0.0"),
            created: Date(timeIntervalSince1970: 1_800_000_000), expires: Date(timeIntervalSince1970: 1_900_000_000),
            scripts: [("total.js", "defineClass('SKCart', { totalCents: function () { return 1; } });\n"), ("b.js", "var é = \"ü\";\n")])
        let verifier = PatchVerifier(trustStore: TrustStore(keys: [key.trustedKey]),
                                     target: .init(appID: "com.example.shop", appVersion: SemanticVersion(1, 4, 0)),
                                     now: { Date(timeIntervalSince1970: 1_800_000_100) })
        let original = try patch.fileData()
        var rng = Seeded(state: 0x5EED_1234)
        var refused = 0, sameContent = 0
        for _ in 0..<Self.cases {
            let data = mutate(original, &rng)
            do {
                let accepted = try verifier.verify(patchFile: data, patchID: "shop-fixes")
                XCTAssertEqual(accepted, patch, "a mutation verified to other content: \(String(decoding: data, as: UTF8.self))")
                sameContent += 1
            } catch is PatchRefusal {
                refused += 1
            }
        }
        XCTAssertEqual(refused + sameContent, Self.cases)
        XCTAssertGreaterThan(refused, Self.cases * 9 / 10, "most mutations change what is signed")
        print("mutated patch files: \(Self.cases) tried, \(refused) refused, \(sameContent) verified to the signed content")
    }

    func testEveryMutatedRevocationListIsRefusedOrVerifiesToTheSignedContent() throws {
        let key = SigningKey.generate(id: "release-1")
        let list = try PatchSigner(key: key).sign(RevocationList(
            sequence: 9, issued: Date(timeIntervalSince1970: 1_800_000_000), expires: Date(timeIntervalSince1970: 1_800_600_000),
            keyID: "", entries: [.init(patchID: "shop-fixes", versions: [2, 3]), .init(patchID: "old")]))
        let verifier = PatchVerifier(trustStore: TrustStore(keys: [key.trustedKey]))
        let original = try list.fileData()
        let expected = try verifier.verify(revocationListFile: original).list
        var rng = Seeded(state: 0xC0FFEE)
        var refused = 0, sameContent = 0
        for _ in 0..<Self.cases {
            let data = mutate(original, &rng)
            do {
                let accepted = try verifier.verify(revocationListFile: data).list
                XCTAssertEqual(accepted, expected, "a mutation verified to other content: \(String(decoding: data, as: UTF8.self))")
                sameContent += 1
            } catch is PatchRefusal {
                refused += 1
            }
        }
        XCTAssertEqual(refused + sameContent, Self.cases)
        XCTAssertGreaterThan(refused, Self.cases * 9 / 10)
        print("mutated revocation lists: \(Self.cases) tried, \(refused) refused, \(sameContent) verified to the signed content")
    }
}
