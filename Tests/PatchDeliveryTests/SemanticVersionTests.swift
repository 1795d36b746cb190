import PatchFormat
import XCTest

final class SemanticVersionTests: XCTestCase {
    func v(_ s: String) throws -> SemanticVersion { try SemanticVersion(parsing: s) }

    func testParsesFullAndShortForms() throws {
        XCTAssertEqual(try v("1.2.3"), SemanticVersion(1, 2, 3))
        XCTAssertEqual(try v("1.4"), SemanticVersion(1, 4, 0))
        XCTAssertEqual(try v("2"), SemanticVersion(2, 0, 0))
        XCTAssertEqual(try v("1.0.0-beta.2+build.7").prerelease, ["beta", "2"])
        XCTAssertEqual(try v("1.0.0-beta.2+build.7").build, ["build", "7"])
        XCTAssertEqual(try v("1.0.0-beta.2+build.7").description, "1.0.0-beta.2+build.7")
    }

    func testRejectsMalformedVersionsWithReason() {
        for bad in ["", "1.2.3.4", "01.2.3", "1.02.3", "1..3", "a.b.c", "1.2.3-", "1.2.3-beta..1", "1.2.3-01", "-1.2.3", "1.2.3+"] {
            XCTAssertThrowsError(try v(bad), bad) { error in
                XCTAssertTrue("\(error)".hasPrefix("invalid version '\(bad)'"), "\(error)")
            }
        }
        XCTAssertThrowsError(try v("01.2.3")) { XCTAssertTrue("\($0)".contains("'01' is not a number without leading zeros")) }
    }

    func testOrderingFollowsSemver() throws {
        // semver.org §11 example chain.
        let chain = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
                     "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.1.0", "1.10.0", "2.0.0"]
        let versions = try chain.map(v)
        for i in 0..<versions.count - 1 {
            XCTAssertLessThan(versions[i], versions[i + 1], "\(chain[i]) < \(chain[i + 1])")
            XCTAssertFalse(versions[i + 1] < versions[i])
        }
        XCTAssertEqual(try v("1.0.0+a"), try v("1.0.0+b"), "build metadata does not count")
        XCTAssertLessThan(try v("1.9.0"), try v("1.10.0"), "numeric, not lexical")
    }
}

final class AppVersionRangeTests: XCTestCase {
    func r(_ s: String) throws -> AppVersionRange { try AppVersionRange(parsing: s) }
    func v(_ s: String) throws -> SemanticVersion { try SemanticVersion(parsing: s) }

    func testHalfOpenRangeEdges() throws {
        let range = try r(">=1.2.0 <2.0.0")
        XCTAssertFalse(range.contains(try v("1.1.9")))
        XCTAssertTrue(range.contains(try v("1.2.0")))
        XCTAssertTrue(range.contains(try v("1.99.99")))
        XCTAssertFalse(range.contains(try v("2.0.0")))
        XCTAssertTrue(range.contains(try v("2.0.0-beta")), "a pre-release sorts before its release")
        XCTAssertFalse(range.contains(try v("1.2.0-rc.1")), "1.2.0-rc.1 is below 1.2.0")
    }

    func testOtherOperators() throws {
        XCTAssertTrue(try r("=1.4.2").contains(try v("1.4.2")))
        XCTAssertFalse(try r("=1.4.2").contains(try v("1.4.3")))
        XCTAssertTrue(try r("1.4.2").contains(try v("1.4.2")))
        XCTAssertFalse(try r(">1.0").contains(try v("1.0.0")))
        XCTAssertTrue(try r(">1.0").contains(try v("1.0.1")))
        XCTAssertTrue(try r("<=1.0.0").contains(try v("1.0.0")))
        XCTAssertFalse(try r("<=1.0.0").contains(try v("1.0.1")))
        XCTAssertTrue(try r("*").contains(try v("0.0.1")))
    }

    func testNormalizedText() throws {
        XCTAssertEqual(try r(">=1.2   <2").description, ">=1.2.0 <2.0.0")
        XCTAssertEqual(try r("1.4.2").description, "=1.4.2")
        XCTAssertEqual(try r("*").description, "*")
    }

    func testRejectsBadRangesWithReason() {
        XCTAssertThrowsError(try r("")) { XCTAssertTrue("\($0)".contains("empty version range")) }
        XCTAssertThrowsError(try r(">=")) { XCTAssertTrue("\($0)".contains("operator '>=' has no version")) }
        XCTAssertThrowsError(try r(">=1.x")) { XCTAssertTrue("\($0)".contains("in '>=1.x'"), "\($0)") }
        XCTAssertThrowsError(try r("~1.2")) { XCTAssertTrue("\($0)".contains("'~1' is not a number"), "\($0)") }
    }

    /// The one release rule: its order (the first failing check answers) and `*` as any app, which
    /// the dev loop has always accepted and the release channel now accepts alike.
    func testTheReleaseRuleChecksInOrderAndStarMeansAnyApp() throws {
        let device = DeviceProfile(deviceID: "d", osVersion: SemanticVersion(17, 4), model: "iPhone15,2", attributes: ["tier": "beta"])
        func decide(_ change: (inout PatchRelease) throws -> Void) rethrows -> DeviceExclusion? {
            var release = PatchRelease(app: "com.example.shop", patchID: "p")
            try change(&release)
            return release.exclusion(appID: "com.example.shop", appVersion: SemanticVersion(1, 4), device: device, releaseID: "production/p.js")
        }
        XCTAssertNil(decide { _ in })
        XCTAssertNil(decide { $0.app = "*" })
        XCTAssertEqual(decide { $0.app = "com.example.other"; $0.enabled = false }, .otherApp)
        XCTAssertEqual(decide { $0.enabled = false; $0.rollout = 0 }, .disabled)
        XCTAssertEqual(try decide { $0.appVersions = try AppVersionRange(parsing: ">=1.5"); $0.rollout = 0 }, .notTargeted)
        XCTAssertNil(try decide { $0.appVersions = try AppVersionRange(parsing: ">=1.4 <1.5"); $0.osVersions = try AppVersionRange(parsing: ">=17") })
        XCTAssertEqual(try decide { $0.osVersions = try AppVersionRange(parsing: "<17") }, .notTargeted)
        XCTAssertEqual(decide { $0.models = ["Pixel8"] }, .notTargeted)
        XCTAssertEqual(decide { $0.attributes = ["tier": ["gold"]] }, .notTargeted)
        XCTAssertNil(decide { $0.attributes = ["tier": ["gold", "beta"]]; $0.models = ["iPhone15,2"] })
        XCTAssertEqual(decide { $0.rollout = 0 }, .outsideRollout)
        let unknown = PatchRelease(app: "*", patchID: "p", osVersions: try AppVersionRange(parsing: ">=1"))
            .exclusion(appID: "a", appVersion: SemanticVersion(1), device: DeviceProfile(deviceID: "d"), releaseID: "p")
        XCTAssertEqual(unknown, .notTargeted, "an unknown OS version matches no range")
    }
}
