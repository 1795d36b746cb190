import Foundation
import PatchDelivery
import XCTest

/// The loader against the project's own HTTP server on loopback, with real keys and files.
final class PatchLoaderTests: XCTestCase {
    func testDownloadsVerifiesAppliesAndCachesThenAppliesFromCacheAtNextLaunch() throws {
        let f = try DeliveryFixture(self)
        try f.serve(try f.patch(version: 1))
        let applier = RecordingApplier()
        var seen: [PatchEvent] = []
        let loader = try PatchLoader(configuration: f.configuration(), applier: applier, onEvent: { seen.append($0) })
        XCTAssertEqual(loader.applyCachedPatches(), [], "nothing cached on first launch")
        let events = loader.update()
        XCTAssertEqual(events, [.applied(patchID: "shop-fixes", version: 1, source: .network),
                                .cached(file: "patch.json", patchID: "shop-fixes", version: 1)])
        XCTAssertEqual(seen, events, "the handler sees the same events")
        XCTAssertEqual(applier.calls, [.apply("shop-fixes@1/fix.js")])
        XCTAssertEqual(applier.sources["shop-fixes@1/fix.js"], "// shop-fixes v1\nvar fixed = 1;\n")
        XCTAssertEqual(applier.bundles["shop-fixes@1/fix.js"], ["fix.js": "// shop-fixes v1\nvar fixed = 1;\n"],
                       "the engine gets the patch's own signed scripts to resolve include() among")
        XCTAssertEqual(loader.livePatches.map(\.scriptNames), [["shop-fixes@1/fix.js"]])

        // Next launch: applied from disk, before any request.
        let requestsBefore = f.server.requests.count
        let next = RecordingApplier()
        XCTAssertEqual(try f.launch(next).applyCachedPatches(), [.applied(patchID: "shop-fixes", version: 1, source: .cache)])
        XCTAssertEqual(next.calls, [.apply("shop-fixes@1/fix.js")])
        XCTAssertEqual(f.server.requests.count, requestsBefore)
    }

    func testATrailingClosureThatWouldAlsoFitSleepReceivesTheEvents() throws {
        // `{ event in lines.append("\(event)") }` type-checks as a sleep function too; written as a
        // trailing closure it must still be the event handler (it once landed in `sleep`).
        let f = try DeliveryFixture(self)
        try f.serve(try f.patch(version: 1))
        var lines: [String] = []
        let loader = try PatchLoader(configuration: f.configuration(), applier: RecordingApplier()) { event in
            lines.append("\(event)")
        }
        loader.update()
        XCTAssertEqual(lines, ["applied shop-fixes v1 from network", "cached shop-fixes v1 (patch.json)"])
    }

    func testUnchangedPatchCostsOne304() throws {
        let f = try DeliveryFixture(self)
        try f.serve(try f.patch(version: 1))
        let applier = RecordingApplier()
        let loader = try f.launch(applier)
        loader.update()
        XCTAssertEqual(loader.update(), [.upToDate(file: "patch.json", patchID: "shop-fixes", version: 1)])
        let requests = f.requests("/patch.json")
        XCTAssertEqual(requests.map(\.status), [200, 304])
        XCTAssertNil(requests[0].ifNoneMatch)
        XCTAssertNotNil(requests[1].ifNoneMatch)
        XCTAssertEqual(applier.calls.count, 1, "nothing re-applied")

        // The ETag survives a relaunch too.
        let next = RecordingApplier()
        let relaunched = try f.launch(next)
        relaunched.applyCachedPatches()
        XCTAssertEqual(relaunched.update(), [.upToDate(file: "patch.json", patchID: "shop-fixes", version: 1)])
        XCTAssertEqual(f.requests("/patch.json").map(\.status), [200, 304, 304])
    }

    func testNewerVersionReplacesTheRunningOne() throws {
        let f = try DeliveryFixture(self)
        try f.serve(try f.patch(version: 1))
        let applier = RecordingApplier()
        let loader = try f.launch(applier)
        loader.update()
        try f.serve(try f.patch(version: 2))
        XCTAssertEqual(loader.update(), [
            .reverted(patchID: "shop-fixes", version: 1, reason: .superseded(byVersion: 2)),
            .applied(patchID: "shop-fixes", version: 2, source: .network),
            .cached(file: "patch.json", patchID: "shop-fixes", version: 2),
        ])
        XCTAssertEqual(applier.calls, [.apply("shop-fixes@1/fix.js"), .revert("shop-fixes@1/fix.js"), .apply("shop-fixes@2/fix.js")])
        XCTAssertEqual(applier.live, ["shop-fixes@2/fix.js"])
    }

    func testScriptsRunInManifestOrderAndAThrowingScriptRollsBackTheWholePatch() throws {
        let f = try DeliveryFixture(self)
        try f.serve(try f.patch(version: 1))
        let applier = RecordingApplier()
        let loader = try f.launch(applier)
        loader.update()
        try f.serve(try f.patch(version: 2, scripts: [("b.js", "var b = 1;"), ("a.js", "throw new Error('boom');")]))
        let events = loader.update()
        XCTAssertEqual(events, [
            .reverted(patchID: "shop-fixes", version: 1, reason: .superseded(byVersion: 2)),
            .failed(patchID: "shop-fixes", version: 2, message: "shop-fixes@2/a.js: script threw"),
            .applied(patchID: "shop-fixes", version: 1, source: .cache),
        ])
        XCTAssertEqual(applier.calls, [
            .apply("shop-fixes@1/fix.js"),
            .revert("shop-fixes@1/fix.js"),
            .apply("shop-fixes@2/b.js"), .apply("shop-fixes@2/a.js"), .revert("shop-fixes@2/b.js"),
            .apply("shop-fixes@1/fix.js"),
        ])
        XCTAssertEqual(applier.live, ["shop-fixes@1/fix.js"], "the previous version is back")
        // The failed version was not cached: the next launch applies v1.
        XCTAssertEqual(try f.launch(RecordingApplier()).applyCachedPatches(), [.applied(patchID: "shop-fixes", version: 1, source: .cache)])
    }

    func testSeveralPatchFiles() throws {
        let f = try DeliveryFixture(self)
        try f.serve(try f.patch(id: "cart", version: 4), as: "cart.json")
        try f.serve(try f.patch(id: "deeplinks", version: 1), as: "links/deeplinks.json")
        let applier = RecordingApplier()
        let loader = try f.launch(applier, configuration: f.configuration(patchFiles: [.init("cart.json", patchID: "cart"),
                                                                                         .init("links/deeplinks.json", patchID: "deeplinks")]))
        loader.update()
        XCTAssertEqual(applier.live, ["cart@4/fix.js", "deeplinks@1/fix.js"])
        XCTAssertEqual(loader.livePatches.map(\.patchID), ["cart", "deeplinks"])
    }

    func testServerDownCachedPatchStillApplied() throws {
        let f = try DeliveryFixture(self)
        try f.serve(try f.patch(version: 1))
        let config = f.configuration(retry: RetryPolicy(maxAttempts: 2, initialDelay: 0.01))
        try f.launch(RecordingApplier(), configuration: config).update()
        f.server.stop()

        let applier = RecordingApplier()
        let loader = try f.launch(applier, configuration: config)
        XCTAssertEqual(loader.applyCachedPatches(), [.applied(patchID: "shop-fixes", version: 1, source: .cache)])
        let events = loader.update()
        XCTAssertEqual(events.count, 1)
        guard case .fetchFailed("patch.json", let message)? = events.first else { return XCTFail("\(events)") }
        XCTAssertTrue(message.hasSuffix("(after 2 attempts)"), message)
        XCTAssertEqual(applier.live, ["shop-fixes@1/fix.js"], "the cached patch stays live")
    }

    func testPlainHTTPRefusedWithoutOptIn() throws {
        let f = try DeliveryFixture(self)
        try f.serve(try f.patch(version: 1))
        var config = f.configuration()
        config.allowsInsecureHTTP = false
        XCTAssertThrowsError(try PatchLoader(configuration: config, applier: RecordingApplier())) { error in
            XCTAssertEqual(error as? PatchLoader.ConfigurationError, .insecureURL(f.baseURL.absoluteString))
            XCTAssertEqual("\(error)", "refusing to load patches from \(f.baseURL.absoluteString): HTTPS is required "
                           + "(set allowsInsecureHTTP for local QA over plain HTTP)")
        }
        config.baseURL = URL(string: "ftp://127.0.0.1/patches/")!
        config.allowsInsecureHTTP = true
        XCTAssertThrowsError(try PatchLoader(configuration: config, applier: RecordingApplier())) {
            XCTAssertEqual($0 as? PatchLoader.ConfigurationError, .insecureURL("ftp://127.0.0.1/patches/"))
        }
        XCTAssertEqual(f.server.requests, [], "no request was made")
    }

    func testInvalidAppVersionIsAConfigurationError() throws {
        let f = try DeliveryFixture(self)
        XCTAssertThrowsError(try f.launch(RecordingApplier(), configuration: f.configuration(appVersion: "1.4-beta_2"))) {
            XCTAssertEqual("\($0)", "invalid app version: invalid version '1.4-beta_2': bad pre-release identifier 'beta_2'")
        }
    }

    func testRetriesWithBackOffAfterServerErrors() throws {
        let f = try DeliveryFixture(self)
        try f.serve(try f.patch(version: 1))
        f.server.failNextRequests(2, status: 503, path: "/patch.json")
        var delays: [TimeInterval] = []
        let applier = RecordingApplier()
        let loader = try PatchLoader(configuration: f.configuration(retry: RetryPolicy(maxAttempts: 3, initialDelay: 0.05, multiplier: 3)),
                                     applier: applier, sleep: { delays.append($0); Thread.sleep(forTimeInterval: $0) })
        XCTAssertEqual(loader.update().first, .applied(patchID: "shop-fixes", version: 1, source: .network))
        XCTAssertEqual(f.requests("/patch.json").map(\.status), [503, 503, 200])
        XCTAssertEqual(delays.count, 2)
        XCTAssertEqual(delays[0], 0.05, accuracy: 1e-9)
        XCTAssertEqual(delays[1], 0.15, accuracy: 1e-9)
    }

    func testGivesUpAfterMaxAttemptsAndDoesNotRetryA404() throws {
        let f = try DeliveryFixture(self)
        try f.serve(try f.patch(version: 1))
        f.server.failNextRequests(10, status: 503, path: "/patch.json")
        let loader = try f.launch(RecordingApplier(), configuration: f.configuration(retry: RetryPolicy(maxAttempts: 3, initialDelay: 0)))
        XCTAssertEqual(loader.update(), [.fetchFailed(file: "patch.json", message: "HTTP 503 (after 3 attempts)")])
        XCTAssertEqual(f.requests("/patch.json").count, 3)

        let missing = try f.launch(RecordingApplier(), configuration: f.configuration(patchFiles: [.init("nope.json", patchID: "nope")], retry: RetryPolicy(maxAttempts: 3, initialDelay: 0)))
        let events = missing.update()
        guard case .fetchFailed("nope.json", let message)? = events.first else { return XCTFail("\(events)") }
        XCTAssertTrue(message.hasPrefix("HTTP 404"), message)
        XCTAssertEqual(f.requests("/nope.json").count, 1, "a 404 is not retried")
    }

    func testRetryPolicyDelays() {
        XCTAssertEqual(RetryPolicy(maxAttempts: 5, initialDelay: 0.5, multiplier: 2, maxDelay: 1.5).delays, [0.5, 1.0, 1.5, 1.5])
        XCTAssertEqual(RetryPolicy.standard.delays, [0.5, 1.0])
        XCTAssertEqual(RetryPolicy.none.delays, [])
    }

    func testOversizedDownloadRefused() throws {
        let f = try DeliveryFixture(self)
        try f.serve(try f.patch(version: 1))
        var config = f.configuration()
        config.maxDownloadBytes = 100
        let events = try f.launch(RecordingApplier(), configuration: config).update()
        guard case .fetchFailed("patch.json", let message)? = events.first else { return XCTFail("\(events)") }
        XCTAssertTrue(message.hasSuffix("more than the 100-byte limit"), message)
    }

    func testUnreadableStateFileIsReportedAndReset() throws {
        let f = try DeliveryFixture(self)
        try FileManager.default.createDirectory(at: f.stateDirectory, withIntermediateDirectories: true)
        try Data("{ not json".utf8).write(to: f.stateDirectory.appendingPathComponent("state.json"))
        let events = try f.launch(RecordingApplier()).applyCachedPatches()
        guard case .stateReset("state.json", let message)? = events.first else { return XCTFail("\(events)") }
        XCTAssertTrue(message.hasPrefix("state.json does not parse"), message)
    }
}
