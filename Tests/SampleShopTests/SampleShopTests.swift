import Foundation
import PatchDelivery
import PatchServer
import XCTest

/// The sample shop end to end, as `make demo` runs it: the built `shop` executable launched as an
/// app against the project's own patch server on loopback, with real keys, files and HTTP.
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
        XCTAssertEqual(Array(run.lines.prefix(2)), ["shop 1.4.0 (com.example.shop)", "patches: off (no --public-key)"])
        XCTAssertEqual(run.screens(), ExpectedScreens.asShipped)
    }

    func testTheSignedPatchFromTheServerFixesEveryBug() throws {
        let f = try ShopFixture(self)
        try f.publishRevocations(["shop-experiment"], sequence: 1)

        let before = try f.launch(device: "a")
        assertCleanLaunch(before)
        XCTAssertEqual(before.events, ["nothing cached", "revocation list #1: 1 revoked",
                                       "fetch failed for shop-fixes.json: HTTP 404 Not Found"])
        XCTAssertEqual(before.screensTitle(), "screens (live patches: none)")
        XCTAssertEqual(before.screens(), ExpectedScreens.asShipped)

        try f.publish(try f.signedPatch())
        let after = try f.launch(device: "a")
        assertCleanLaunch(after)
        XCTAssertEqual(after.events, ["nothing cached", "applied shop-fixes v1 from network",
                                      "cached shop-fixes v1 (shop-fixes.json)"])
        XCTAssertEqual(after.screensTitle(), "screens (live patches: shop-fixes v1)")
        XCTAssertEqual(after.screens(), ExpectedScreens.patched)
    }

    func testEachScriptFixesItsOwnBugAndNothingElse() throws {
        let f = try ShopFixture(self)
        for fix in ExpectedScreens.Fix.allCases {
            // A fresh device per script; the file stays bound to the shop's patch id.
            let device = "only-" + fix.rawValue.replacingOccurrences(of: ".js", with: "")
            try f.publish(try f.signedPatch(scripts: [fix.rawValue]))
            let run = try f.launch(device: device)
            assertCleanLaunch(run)
            XCTAssertEqual(run.events.filter { $0.hasPrefix("applied") }, ["applied shop-fixes v1 from network"])
            XCTAssertEqual(run.screens(), ExpectedScreens.screens(with: [fix]), fix.rawValue)
        }
    }

    func testTamperedOrForeignPatchesAreRefusedAndTheAppKeepsRunningWithItsBugs() throws {
        let f = try ShopFixture(self)
        let good = try f.signedPatch().fileData()
        let text = String(decoding: good, as: UTF8.self)

        // One byte of total.js flipped (the demo's case).
        let marker = try XCTUnwrap(text.range(of: "discountedSubtotalCents() + self"))
        var flipped = good
        let offset = text.utf8.distance(from: text.startIndex, to: marker.lowerBound)
        flipped[offset] ^= 0x20
        // The manifest edited after signing (a wider app-version range).
        let widened = Data(text.replacingOccurrences(of: #">=1.4.0 <1.5.0"#, with: #">=1.0.0 <9.0.0"#).utf8)
        XCTAssertNotEqual(widened, good)
        // Signed by a key the app doesn't trust.
        let foreign = try f.signedPatch(key: SigningKey.generate(id: "someone-else")).fileData()
        // Cut short in transit.
        let truncated = good.prefix(good.count / 2)

        let cases: [(name: String, data: Data, refusal: String)] = [
            ("flipped byte", flipped, "script hash mismatch: 'total.js' has SHA-256 "),
            ("edited manifest", widened, "bad signature: the manifest was not signed by key 'shop-release' or was altered after signing"),
            ("unknown key", foreign, "signed with unknown key 'someone-else': it is not among the trusted keys"),
            ("truncated", Data(truncated), "malformed patch: "),
        ]
        for (index, c) in cases.enumerated() {
            try f.publish(c.data)
            let run = try f.launch(device: "tampered-\(index)")
            assertCleanLaunch(run)
            let refusals = run.events.filter { $0.hasPrefix("refused shop-fixes.json: ") }
            XCTAssertEqual(refusals.count, 1, "\(c.name): \(run.events)")
            XCTAssertTrue(refusals.first?.hasPrefix("refused shop-fixes.json: " + c.refusal) ?? false, "\(c.name): \(refusals)")
            XCTAssertFalse(run.events.contains { $0.hasPrefix("applied") }, c.name)
            XCTAssertEqual(run.screens(), ExpectedScreens.asShipped, "\(c.name): nothing of it ran")
        }
    }

    func testAPatchForOtherAppVersionsIsRefused() throws {
        let f = try ShopFixture(self)
        try f.publish(try f.signedPatch())
        let run = try f.launch(device: "old-build", extra: ["--app-version", "1.3.9"])
        assertCleanLaunch(run)
        XCTAssertEqual(run.lines.first, "shop 1.3.9 (com.example.shop)")
        XCTAssertTrue(run.events.contains("refused shop-fixes.json: app version 1.3.9 is outside the patch's range '>=1.4.0 <1.5.0'"),
                      "\(run.events)")
        XCTAssertEqual(run.screens(), ExpectedScreens.asShipped)
    }

    func testAnOlderVersionIsRefusedAndTheNewerOneStays() throws {
        let f = try ShopFixture(self)
        try f.publish(try f.signedPatch(version: 2))
        XCTAssertEqual(try f.launch(device: "a").screens(), ExpectedScreens.patched)

        try f.publish(try f.signedPatch(version: 1))
        let run = try f.launch(device: "a")
        assertCleanLaunch(run)
        XCTAssertEqual(run.events, [
            "applied shop-fixes v2 from cache",
            "refused shop-fixes.json: patch 'shop-fixes' version 1 is not newer than the applied version 2 (rollback or replay)",
        ])
        XCTAssertEqual(run.screens(), ExpectedScreens.patched)
    }

    func testRevocationRevertsTheLivePatchAndRefusesItAtTheNextLaunch() throws {
        let f = try ShopFixture(self)
        try f.publishRevocations(["shop-experiment"], sequence: 1)
        try f.publish(try f.signedPatch())
        XCTAssertEqual(try f.launch(device: "a").screens(), ExpectedScreens.patched)

        try f.publishRevocations(["shop-experiment", "shop-fixes"], sequence: 2)
        let revoked = try f.launch(device: "a", extra: ["--show-before-update"])
        assertCleanLaunch(revoked)
        XCTAssertEqual(revoked.screensTitle(1), "screens before the update (live patches: shop-fixes v1)")
        XCTAssertEqual(revoked.screens(1), ExpectedScreens.patched, "live from the cache")
        XCTAssertEqual(revoked.events, [
            "applied shop-fixes v1 from cache",
            "revocation list #2: 2 revoked",
            "reverted shop-fixes v1: revoked",
            "refused shop-fixes.json: patch 'shop-fixes' version 1 is revoked",
        ])
        XCTAssertEqual(revoked.screensTitle(2), "screens (live patches: none)")
        // Reverted in the same process: the overrides, the added method's offer and the replaced route are gone.
        XCTAssertEqual(revoked.screens(2), ExpectedScreens.asShipped)

        let next = try f.launch(device: "a")
        assertCleanLaunch(next)
        XCTAssertEqual(next.events, ["nothing cached", "refused shop-fixes.json: patch 'shop-fixes' version 1 is revoked"])
        XCTAssertEqual(next.screens(), ExpectedScreens.asShipped)
        // Even offline, nothing of it comes back.
        XCTAssertEqual(try f.launch(device: "a", online: false).screens(), ExpectedScreens.asShipped)
    }

    func testAnUnchangedPatchCostsOne304AndTheCacheCarriesTheAppThroughAServerOutage() throws {
        let f = try ShopFixture(self)
        try f.publishRevocations(["shop-experiment"], sequence: 1)
        try f.publish(try f.signedPatch())
        _ = try f.launch(device: "a")

        f.server.clearRequests()
        let again = try f.launch(device: "a")
        assertCleanLaunch(again)
        XCTAssertEqual(again.events, ["applied shop-fixes v1 from cache", "up to date: shop-fixes.json (shop-fixes v1)"])
        XCTAssertEqual(f.server.requests.map { "\($0.path) \($0.status)" }, ["/revocations.json 304", "/shop-fixes.json 304"])
        XCTAssertEqual(again.screens(), ExpectedScreens.patched)

        f.server.stop(gracePeriod: 0.1)
        let outage = try f.launch(device: "a")
        assertCleanLaunch(outage)
        XCTAssertEqual(outage.events.first, "applied shop-fixes v1 from cache")
        XCTAssertEqual(outage.events.dropFirst().map { $0.components(separatedBy: ":").first ?? "" },
                       ["fetch failed for revocations.json", "fetch failed for shop-fixes.json"], "\(outage.events)")
        XCTAssertEqual(outage.screens(), ExpectedScreens.patched)
    }

    func testBadSetUpIsAClearErrorNotACrash() throws {
        let f = try ShopFixture(self)
        let insecure = try ShopFixture.runShop(["--server", f.serverURL, "--public-key", f.publicKeyFile.path,
                                                "--state-dir", f.root.appendingPathComponent("devices/x").path])
        XCTAssertEqual(insecure.status, 1)
        XCTAssertTrue(insecure.err.contains("HTTPS is required (set allowsInsecureHTTP for local QA over plain HTTP)"), insecure.err)

        let missingKey = try ShopFixture.runShop(["--public-key", f.root.appendingPathComponent("nope.json").path,
                                                  "--state-dir", f.root.appendingPathComponent("devices/y").path])
        XCTAssertEqual(missingKey.status, 1)
        XCTAssertTrue(missingKey.err.contains("cannot read public key \(f.root.path)/nope.json"), missingKey.err)

        let notAKey = f.root.appendingPathComponent("not-a-key.json")
        try Data("{}".utf8).write(to: notAKey)
        let badKey = try ShopFixture.runShop(["--public-key", notAKey.path,
                                              "--state-dir", f.root.appendingPathComponent("devices/z").path])
        XCTAssertEqual(badKey.status, 1)
        XCTAssertTrue(badKey.err.contains("public key \(notAKey.path): "), badKey.err)

        let badURL = try ShopFixture.runShop(["--server", "not a url", "--state-dir", f.root.appendingPathComponent("devices/w").path])
        XCTAssertEqual(badURL.status, 1)
        XCTAssertTrue(badURL.err.contains("--server 'not a url' is not a URL like http://127.0.0.1:8080/"), badURL.err)
    }
}
