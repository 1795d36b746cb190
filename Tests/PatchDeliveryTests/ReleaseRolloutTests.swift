import Crypto
import Foundation
import PatchDelivery
import XCTest

/// Buckets, targeting and the signed channel document (no network).
final class ReleaseBucketTargetingTests: XCTestCase {
    func testBucketIsSHA256OfReleaseAndDeviceAndStable() {
        // Computed independently: first 8 bytes of SHA-256("r1\ndev-42") big-endian, mod 10000.
        let digest = Array(SHA256.hash(data: Data("r1\ndev-42".utf8)))
        var value: UInt64 = 0
        for byte in digest.prefix(8) { value = value << 8 | UInt64(byte) }
        XCTAssertEqual(RolloutBucket.bucket(deviceID: "dev-42", releaseID: "r1"), Int(value % 10_000))
        XCTAssertEqual(RolloutBucket.bucket(deviceID: "dev-42", releaseID: "r1"), RolloutBucket.bucket(deviceID: "dev-42", releaseID: "r1"))
    }

    func testTenThousandDevicesFallWithinTwoPercentOfEachRollout() {
        let ids = (0..<10_000).map { "device-\($0)-\(UUID().uuidString)" }
        for (releaseID, rollout) in [("fix-1", 100), ("fix-2", 1000), ("fix-3", 5000), ("fix-4", 9000)] {
            let inside = ids.filter { RolloutBucket.bucket(deviceID: $0, releaseID: releaseID) < rollout }.count
            let fraction = Double(inside) / Double(ids.count), target = Double(rollout) / 10_000
            XCTAssertLessThanOrEqual(abs(fraction - target), 0.02, "\(releaseID): \(inside) of 10000 in a \(target * 100) % rollout")
            print("rollout \(target * 100) %: \(inside) of 10000 devices inside")
        }
        // Raising a rollout only adds devices: everyone inside 10 % is inside 50 %.
        let at10 = Set(ids.filter { RolloutBucket.bucket(deviceID: $0, releaseID: "fix-2") < 1000 })
        let at50 = Set(ids.filter { RolloutBucket.bucket(deviceID: $0, releaseID: "fix-2") < 5000 })
        XCTAssertTrue(at10.isSubset(of: at50))
        // Different releases sample independently: the first waves of two releases are not the same devices.
        let other = Set(ids.filter { RolloutBucket.bucket(deviceID: $0, releaseID: "fix-9") < 1000 })
        XCTAssertLessThan(at10.intersection(other).count, at10.count / 2)
    }

    func testTargetingByAppVersionOSVersionModelAndAttributes() throws {
        let t = ReleaseChannel.Targeting(appVersions: try AppVersionRange(parsing: ">=1.4.0"), osVersions: try AppVersionRange(parsing: ">=17.0.0 <18.0.0"),
                                         models: ["iPhone15,2", "iPhone15,3"], attributes: ["tier": ["beta", "staff"]])
        let app = try SemanticVersion(parsing: "1.4.0")
        var device = DeviceProfile(deviceID: "d", osVersion: try SemanticVersion(parsing: "17.4"), model: "iPhone15,2", attributes: ["tier": "beta"])
        XCTAssertTrue(t.matches(appVersion: app, profile: device))
        XCTAssertFalse(t.matches(appVersion: try SemanticVersion(parsing: "1.3.9"), profile: device), "app version below the range")
        device.osVersion = try SemanticVersion(parsing: "18.0"); XCTAssertFalse(t.matches(appVersion: app, profile: device), "OS outside")
        device.osVersion = nil; XCTAssertFalse(t.matches(appVersion: app, profile: device), "an unknown OS never matches an OS range")
        device.osVersion = try SemanticVersion(parsing: "17.0")
        device.model = "iPhone14,7"; XCTAssertFalse(t.matches(appVersion: app, profile: device), "model not listed")
        device.model = "iPhone15,3"; XCTAssertTrue(t.matches(appVersion: app, profile: device))
        device.attributes = ["tier": "public"]; XCTAssertFalse(t.matches(appVersion: app, profile: device), "attribute value not allowed")
        device.attributes = [:]; XCTAssertFalse(t.matches(appVersion: app, profile: device), "attribute missing")
        XCTAssertTrue(ReleaseChannel.Targeting().matches(appVersion: app, profile: DeviceProfile(deviceID: "x")), "no criteria: everyone")
    }

    func testSelectionTakesTheLatestQualifyingReleaseAndSaysWhyOthersAreNot() throws {
        let inside = ReleaseFixture.deviceID(for: "fix-2", inside: true, rollout: 1000)
        let outside = ReleaseFixture.deviceID(for: "fix-2", inside: false, rollout: 1000)
        let digest = String(repeating: "a", count: 64)
        var channel = ReleaseChannel(appID: "app", channel: "production", sequence: 1, issued: Date(), releases: [
            .init(releaseID: "fix-1", patchID: "p", version: 1, digest: digest, file: "p1.json"),
            .init(releaseID: "fix-2", patchID: "p", version: 2, digest: digest, file: "p2.json", rollout: 1000),
        ])
        let app = try SemanticVersion(parsing: "1.0")
        var s = ReleaseSelection(channel: channel, appVersion: app, profile: DeviceProfile(deviceID: inside))
        XCTAssertEqual(s.chosen["p"]?.releaseID, "fix-2")
        XCTAssertEqual(s.exclusion(of: "fix-1"), .superseded)
        s = ReleaseSelection(channel: channel, appVersion: app, profile: DeviceProfile(deviceID: outside))
        XCTAssertEqual(s.chosen["p"]?.releaseID, "fix-1", "outside the rollout: the previous release")
        XCTAssertEqual(s.exclusion(of: "fix-2"), .outsideRollout)
        channel.releases[1].state = .disabled
        s = ReleaseSelection(channel: channel, appVersion: app, profile: DeviceProfile(deviceID: inside))
        XCTAssertEqual(s.chosen["p"]?.releaseID, "fix-1")
        XCTAssertEqual(s.exclusion(of: "fix-2"), .disabled)
        XCTAssertEqual(s.exclusion(of: "gone"), .withdrawn)
    }
}

/// The signed channel document: what is signed, what is refused.
final class ReleaseChannelDocumentTests: XCTestCase {
    private func document() throws -> ReleaseChannel {
        ReleaseChannel(appID: "com.example.shop", channel: "production", sequence: 3, issued: Date(timeIntervalSince1970: 1_763_700_000), releases: [
            .init(releaseID: "fix-2", patchID: "shop-fixes", version: 2, digest: String(repeating: "b", count: 64), file: "patches/shop-fixes-2.json",
                  rollout: 1000, targeting: .init(appVersions: try AppVersionRange(parsing: ">=1.4.0"), models: ["iPhone15,2"], attributes: ["tier": ["beta"]])),
        ])
    }

    func testRoundTripAndCanonicalBytes() throws {
        let key = SigningKey.generate(id: "k")
        let signed = try PatchSigner(key: key).sign(try document())
        let verifier = PatchVerifier(trustStore: TrustStore(keys: [key.trustedKey]))
        let back = try verifier.verify(releaseChannelFile: signed.fileData())
        XCTAssertEqual(back, signed)
        let text = String(decoding: signed.channel.canonicalBytes, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("{\"appID\":\"com.example.shop\",\"channel\":\"production\",\"format\":1,\"issued\":1763700000,\"keyID\":\"k\",\"releases\":[{\"digest\":"), text)
        XCTAssertTrue(text.contains("\"rollout\":1000,\"state\":\"enabled\",\"targeting\":{\"appVersions\":\">=1.4.0\",\"attributes\":{\"tier\":[\"beta\"]},\"models\":[\"iPhone15,2\"]}"), text)
    }

    func testAWidenedRolloutOrReenabledReleaseFailsTheSignature() throws {
        let key = SigningKey.generate(id: "k")
        let verifier = PatchVerifier(trustStore: TrustStore(keys: [key.trustedKey]))
        var signed = try PatchSigner(key: key).sign(try document())
        let widened = String(decoding: signed.fileData(), as: UTF8.self).replacingOccurrences(of: "\"rollout\":1000", with: "\"rollout\":10000")
        XCTAssertThrowsError(try verifier.verify(releaseChannelFile: Data(widened.utf8))) { XCTAssertEqual($0 as? PatchRefusal, .badSignature(keyID: "k")) }
        signed.channel.releases[0].state = .disabled
        signed = try PatchSigner(key: key).sign(signed.channel)
        let enabled = String(decoding: signed.fileData(), as: UTF8.self).replacingOccurrences(of: "\"disabled\"", with: "\"enabled\"")
        XCTAssertThrowsError(try verifier.verify(releaseChannelFile: Data(enabled.utf8))) { XCTAssertEqual($0 as? PatchRefusal, .badSignature(keyID: "k")) }
    }

    func testMalformedDocumentsAreRefusedWithTheReason() throws {
        let key = SigningKey.generate(id: "k")
        let good = String(decoding: try PatchSigner(key: key).sign(try document()).fileData(), as: UTF8.self)
        let cases: [(String, String, String)] = [
            ("\"rollout\":1000", "\"rollout\":10001", "outside 0–10000"),
            ("\"state\":\"enabled\"", "\"state\":\"on\"", "'enabled' or 'disabled'"),
            ("\"file\":\"patches/shop-fixes-2.json\"", "\"file\":\"../secrets.json\"", "relative path"),
            ("\">=1.4.0\"", "\">=1.4\"", "normalized form"),
            ("\"sequence\":3", "\"sequence\":3,\"extra\":1", "unknown field 'extra'"),
            ("\"sequence\":3", "\"sequence\":true", "true, false or null"),
        ]
        for (from, to, expected) in cases {
            let bad = good.replacingOccurrences(of: from, with: to)
            XCTAssertNotEqual(bad, good, from)
            XCTAssertThrowsError(try SignedReleaseChannel(fileData: Data(bad.utf8)), to) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(to): \(error)")
            }
        }
        var twice = try document()
        twice.releases.append(twice.releases[0])
        XCTAssertThrowsError(try PatchSigner(key: key).sign(twice)) { XCTAssertTrue("\($0)".contains("listed twice")) }
    }
}
