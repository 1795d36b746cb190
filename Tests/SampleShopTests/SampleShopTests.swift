import Foundation
import PatchFormat
import PatchDevServer
import XCTest

/// The sample shop end to end, as `make demo` runs it: the built `shop` executable launched as an
/// app against a TUF repository's static tree, served by the project's own patch server on
/// loopback, with real keys, files and HTTP.
final class SampleShopTests: XCTestCase {
    struct MissingExecutable: Error, CustomStringConvertible {
        var path: String
        var description: String { "shop is not at \(path)" }
    }

    override func setUpWithError() throws {
        // The test target depends on `shop`, so it is built next to the tests.
        guard FileManager.default.isExecutableFile(atPath: ShopFixture.shopExecutable.path) else {
            throw MissingExecutable(path: ShopFixture.shopExecutable.path)
        }
    }

    /// A launch that ran to the end without a word on standard error.
    func assertCleanLaunch(_ run: ShopRun, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(run.status, 0, "exit status; stderr: \(run.err)", file: file, line: line)
        XCTAssertEqual(run.err, "", "standard error", file: file, line: line)
        XCTAssertEqual(run.lines.suffix(2), ["launch succeeded", ""], run.out, file: file, line: line)
    }

    func testAsShippedTheShopShowsItsBugsAndKeepsRunning() throws {
        let f = try ShopFixture(self)
        let run = try f.launch(device: "plain", online: false, trusting: false)
        assertCleanLaunch(run)
        XCTAssertEqual(Array(run.lines.prefix(2)), ["shop 1.4.0 (com.example.shop)", "patches: off (no --root)"])
        XCTAssertEqual(run.screens(), ExpectedScreens.asShipped)
    }

    func testTheReleasedPatchFromTheRepositoryFixesEveryBug() throws {
        let f = try ShopFixture(self)
        let before = try f.launch(device: "a")
        assertCleanLaunch(before)
        XCTAssertEqual(before.events, ["nothing cached", "channel production refreshed: 0 release(s) listed"])
        XCTAssertEqual(before.screensTitle(), "screens (live patches: none)")
        XCTAssertEqual(before.screens(), ExpectedScreens.asShipped)

        try f.release()
        let after = try f.launch(device: "a")
        assertCleanLaunch(after)
        XCTAssertEqual(after.events, ["nothing cached", "channel production refreshed: 1 release(s) listed",
                                      "release production/shop-fixes.js (shop-fixes v1) applied (from network)"])
        XCTAssertEqual(after.screensTitle(), "screens (live patches: shop-fixes v1)")
        XCTAssertEqual(after.screens(), ExpectedScreens.patched)
    }

    func testEachScriptFixesItsOwnBugAndNothingElse() throws {
        let f = try ShopFixture(self)
        var previous: String?
        for fix in ExpectedScreens.Fix.allCases {
            // A fresh device per script; the channel holds only this script's release.
            let name = "only-" + fix.rawValue
            if let previous { try f.revoke(previous) }
            try f.release(name, scripts: [fix.rawValue])
            previous = name
            let run = try f.launch(device: "only-" + fix.rawValue.replacingOccurrences(of: ".js", with: ""))
            assertCleanLaunch(run)
            XCTAssertEqual(run.events.filter { $0.contains("applied") }, ["release production/\(name) (shop-fixes v1) applied (from network)"])
            XCTAssertEqual(run.screens(), ExpectedScreens.screens(with: [fix]), fix.rawValue)
        }
    }

    func testTamperedTargetsOrMetadataAreRefusedAndTheAppKeepsRunningWithItsBugs() throws {
        let f = try ShopFixture(self)
        try f.release()
        let channelFile = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: f.served.appendingPathComponent("metadata").path)
            .filter { $0.hasSuffix(".production.json") }.max { $0.count == $1.count ? $0 < $1 : $0.count < $1.count })
        let channelURL = f.served.appendingPathComponent("metadata/\(channelFile)")
        let channel = try String(contentsOf: channelURL, encoding: .utf8)

        let cases: [(name: String, damage: () throws -> Void, event: String)] = [
            ("flipped byte in the target", {
                for url in try f.servedTargets() {
                    var data = try Data(contentsOf: url)
                    let offset = try XCTUnwrap(String(decoding: data, as: UTF8.self).range(of: "discountedSubtotalCents() + self")).lowerBound.utf16Offset(in: String(decoding: data, as: UTF8.self))
                    data[offset] ^= 0x20
                    try data.write(to: url)
                }
            }, "release production/shop-fixes.js refused: target production/shop-fixes.js: production/shop-fixes.js: sha256 hash mismatch"),
            ("truncated target", {
                for url in try f.servedTargets() {
                    let data = try Data(contentsOf: url)
                    try data.prefix(data.count / 2).write(to: url)
                }
            }, "release production/shop-fixes.js refused: target production/shop-fixes.js: production/shop-fixes.js: length "),
            ("channel metadata edited after signing (a wider app-version range)", {
                try channel.replacingOccurrences(of: ">=1.4.0 <1.5.0", with: ">=1.0.0 <9.0.0").write(to: channelURL, atomically: true, encoding: .utf8)
            }, "no fresh metadata: metadata refused: production: signature threshold not met"),
            ("channel metadata signed by a key the repository doesn't trust", {
                var metadata = try Metadata(signed: try Metadata<Targets>(data: Data(channel.utf8), name: "production").signed)
                try metadata.sign(with: try PatchFormat.SigningKey.generate(.ed25519))
                try metadata.serialized().write(to: channelURL)
            }, "no fresh metadata: metadata refused: production: signature threshold not met"),
        ]
        for (index, c) in cases.enumerated() {
            try f.publish()
            try c.damage()
            let run = try f.launch(device: "tampered-\(index)")
            assertCleanLaunch(run)
            XCTAssertTrue(run.events.contains { $0.hasPrefix(c.event) }, "\(c.name): \(run.events)")
            XCTAssertFalse(run.events.contains { $0.contains("applied") }, c.name)
            XCTAssertEqual(run.screens(), ExpectedScreens.asShipped, "\(c.name): nothing of it ran")
        }
    }

    func testAReleaseForOtherAppVersionsDoesNotRun() throws {
        let f = try ShopFixture(self)
        try f.release()
        let run = try f.launch(device: "old-build", extra: ["--app-version", "1.3.9"])
        assertCleanLaunch(run)
        XCTAssertEqual(run.lines.first, "shop 1.3.9 (com.example.shop)")
        XCTAssertTrue(run.events.contains("release production/shop-fixes.js (shop-fixes v1) not run here (not-targeted)"), "\(run.events)")
        XCTAssertEqual(run.screens(), ExpectedScreens.asShipped)
    }

    func testAnOlderCopyOfTheRepositoryIsRefusedAndTheNewerReleaseStays() throws {
        let f = try ShopFixture(self)
        try f.release(version: 1)
        let older = f.root.appendingPathComponent("older-copy")
        try FileManager.default.copyItem(at: f.served, to: older)
        try f.revoke()
        try f.release("shop-fixes-2.js", version: 2)
        XCTAssertEqual(try f.launch(device: "a").screens(), ExpectedScreens.patched)

        // A mirror serves the older copy (v1 only): refused, v2 keeps running.
        for name in try FileManager.default.contentsOfDirectory(atPath: f.served.path) {
            try FileManager.default.removeItem(at: f.served.appendingPathComponent(name))
        }
        for name in try FileManager.default.contentsOfDirectory(atPath: older.path) {
            try FileManager.default.copyItem(at: older.appendingPathComponent(name), to: f.served.appendingPathComponent(name))
        }
        let run = try f.launch(device: "a")
        assertCleanLaunch(run)
        XCTAssertEqual(run.events.first, "release production/shop-fixes-2.js (shop-fixes v2) applied (from cache)")
        XCTAssertTrue(run.events.contains { $0.hasPrefix("no fresh metadata: stale metadata refused: timestamp: bad version: ") }, "\(run.events)")
        XCTAssertEqual(run.screens(), ExpectedScreens.patched)
    }

    func testRevocationRevertsTheLiveReleaseAndItDoesNotComeBack() throws {
        let f = try ShopFixture(self)
        try f.release()
        XCTAssertEqual(try f.launch(device: "a").screens(), ExpectedScreens.patched)

        try f.revoke()
        let revoked = try f.launch(device: "a", extra: ["--show-before-update"])
        assertCleanLaunch(revoked)
        XCTAssertEqual(revoked.screensTitle(1), "screens before the update (live patches: shop-fixes v1)")
        XCTAssertEqual(revoked.screens(1), ExpectedScreens.patched, "live from the cache")
        XCTAssertEqual(revoked.events, [
            "release production/shop-fixes.js (shop-fixes v1) applied (from cache)",
            "channel production refreshed: 0 release(s) listed",
            "release production/shop-fixes.js (shop-fixes v1) reverted (withdrawn)",
        ])
        XCTAssertEqual(revoked.screensTitle(2), "screens (live patches: none)")
        // Reverted in the same process: the overrides, the added method's offer and the replaced route are gone.
        XCTAssertEqual(revoked.screens(2), ExpectedScreens.asShipped)

        let next = try f.launch(device: "a")
        assertCleanLaunch(next)
        XCTAssertEqual(next.events, ["nothing cached", "channel production refreshed: 0 release(s) listed"])
        XCTAssertEqual(next.screens(), ExpectedScreens.asShipped)
        // Even offline, nothing of it comes back.
        XCTAssertEqual(try f.launch(device: "a", online: false).screens(), ExpectedScreens.asShipped)
    }

    func testAnUnchangedRepositoryCostsTwoSmallRequestsAndTheCacheCarriesTheAppThroughAnOutage() throws {
        let f = try ShopFixture(self)
        try f.release()
        _ = try f.launch(device: "a")

        f.server.clearRequests()
        let again = try f.launch(device: "a")
        assertCleanLaunch(again)
        XCTAssertEqual(again.events, ["release production/shop-fixes.js (shop-fixes v1) applied (from cache)",
                                      "channel production refreshed: 1 release(s) listed"])
        XCTAssertEqual(f.server.requests.map { "\($0.path) \($0.status)" }, ["/metadata/2.root.json 404", "/metadata/timestamp.json 200"])
        XCTAssertEqual(again.screens(), ExpectedScreens.patched)

        f.server.stop(gracePeriod: 0.1)
        let outage = try f.launch(device: "a")
        assertCleanLaunch(outage)
        XCTAssertEqual(outage.events.first, "release production/shop-fixes.js (shop-fixes v1) applied (from cache)")
        XCTAssertTrue(outage.events.dropFirst().first?.hasPrefix("no fresh metadata: network: ") ?? false, "\(outage.events)")
        XCTAssertEqual(outage.screens(), ExpectedScreens.patched)
    }

    func testBadSetUpIsAClearErrorNotACrash() throws {
        let f = try ShopFixture(self)
        let insecure = try ShopFixture.runShop(["--repository", f.serverURL, "--root", f.rootFile.path,
                                                "--state-dir", f.root.appendingPathComponent("devices/x").path])
        XCTAssertEqual(insecure.status, 1)
        XCTAssertTrue(insecure.err.contains("is not https:// (http:// only with allowsInsecureHTTP)"), insecure.err)

        let missingRoot = try ShopFixture.runShop(["--root", f.root.appendingPathComponent("nope.json").path,
                                                   "--state-dir", f.root.appendingPathComponent("devices/y").path])
        XCTAssertEqual(missingRoot.status, 1)
        XCTAssertTrue(missingRoot.err.contains("cannot read root \(f.root.path)/nope.json"), missingRoot.err)

        let notARoot = f.root.appendingPathComponent("not-a-root.json")
        try Data("{}".utf8).write(to: notARoot)
        let badRoot = try ShopFixture.runShop(["--root", notARoot.path, "--state-dir", f.root.appendingPathComponent("devices/z").path])
        XCTAssertEqual(badRoot.status, 1)
        XCTAssertTrue(badRoot.err.contains("configuration: bundled root: "), badRoot.err)

        let badURL = try ShopFixture.runShop(["--repository", "not a url", "--state-dir", f.root.appendingPathComponent("devices/w").path])
        XCTAssertEqual(badURL.status, 1)
        XCTAssertTrue(badURL.err.contains("--repository 'not a url' is not a URL like http://127.0.0.1:8080/"), badURL.err)
    }
}
