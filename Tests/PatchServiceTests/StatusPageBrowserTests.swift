import Foundation
import PatchDelivery
import PatchService
import XCTest

/// The status page rendered by a real browser (headless Chromium): the DOM it builds holds the
/// channels, releases, counts and the chart; a screenshot is written and its path printed.
final class StatusPageBrowserTests: XCTestCase {
    static func chromium() -> String? {
        ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    func testStatusPageInHeadlessChromium() async throws {
        guard let chromium = Self.chromium() else { throw XCTSkip("chromium is not installed (make deps installs it)") }
        let root = try temporaryDirectory(self)
        let store = try await SQLiteReleaseStore.open(path: root.appendingPathComponent("releases.sqlite").path)
        let publisher = try Publisher(self)
        let running = try await RunningReleaseService.start(ReleaseService(store: store, configuration: publisher.configuration()))
        do {
            try await publisher.release(1, to: "production", via: running.baseURL)
            try await publisher.release(2, to: "production", rollout: 1000, via: running.baseURL)
            try await publisher.release(2, to: "staging", via: running.baseURL)
            // Staging re-signed for two days only: inside the week's warning, above the day's minimum.
            try publisher.repository.renew("staging", keys: publisher.channelKeys("staging"), validity: 2 * 86_400)
            try await publisher.upload(to: running.baseURL)
            // Telemetry over three hours, as devices would send it.
            let now = Int(Date().timeIntervalSince1970)
            var events: [TelemetryEvent] = []
            for (hoursAgo, applied, failed) in [(2, 7, 0), (1, 12, 1), (0, 20, 2)] {
                let time = Date(timeIntervalSince1970: TimeInterval(now - hoursAgo * 3600))
                events += (0..<applied).map { TelemetryEvent(kind: .applied, releaseID: "fix-2", patchID: "shop-fixes", version: 2, bucket: $0, time: time) }
                events += (0..<failed).map { TelemetryEvent(kind: .failed, releaseID: "fix-2", patchID: "shop-fixes", version: 2, bucket: $0, detail: "TypeError", time: time) }
            }
            let batch = try JSONEncoder().encode(TelemetryBatch(appID: publisher.appID, appVersion: "1.4.0", channel: "production", dropped: 0, events: events))
            let posted = try await post(running.baseURL, "telemetry", batch)
            XCTAssertEqual(posted.status, 202)

            let url = running.baseURL.appendingPathComponent("status").absoluteString
            let profile = root.appendingPathComponent("profile").path
            let common = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                          "--user-data-dir=\(profile)"]
            let dom = try await blocking { try runProgram(common + ["--dump-dom", url], timeout: 90) }
            XCTAssertEqual(dom.status, 0, dom.output)
            let html = dom.output
            XCTAssertTrue(html.contains("id=\"channel-production\""), html)
            XCTAssertTrue(html.contains("id=\"channel-staging\""))
            XCTAssertTrue(html.contains("data-release=\"fix-2\""))
            XCTAssertTrue(html.contains("<td class=\"applied\">39</td>"), "7 + 12 + 20 applied")
            XCTAssertEqual(html.components(separatedBy: "<td class=\"applied\">39</td>").count - 1, 1, "counted on production only, not on staging")
            XCTAssertTrue(html.contains("<td class=\"failed\">3</td>"))
            XCTAssertTrue(html.contains("10 %"), "the rollout is shown")
            XCTAssertTrue(html.contains("<svg class=\"chart\""))
            XCTAssertTrue(html.contains("<polyline class=\"applied\""), "a line over the three hours")
            let stagingVersion = publisher.repository.channels["staging"]!.signed.common.version
            XCTAssertTrue(html.contains("<li class=\"expiry-warning\" data-role=\"staging\">staging version \(stagingVersion) expires in 47 h ("), html)
            XCTAssertFalse(html.contains("data-role=\"production\""), "production is valid for 90 days")
            XCTAssertTrue(html.contains("<p class=\"expiry-warning\">staging version \(stagingVersion) expires in 47 h"), "in the channel's section too")

            let screenshot = FileManager.default.temporaryDirectory.appendingPathComponent("patchserver-status-\(UUID().uuidString.prefix(8)).png")
            let shot = try await blocking { try runProgram(common + ["--screenshot=\(screenshot.path)", "--window-size=1100,800", "--hide-scrollbars", url], timeout: 90) }
            XCTAssertEqual(shot.status, 0, shot.output)
            let png = try Data(contentsOf: screenshot)
            XCTAssertEqual(Array(png.prefix(4)), [0x89, 0x50, 0x4E, 0x47], "a PNG")
            XCTAssertGreaterThan(png.count, 5000)
            print("status page screenshot: \(screenshot.path)")
        } catch {
            await running.stop()
            try? await store.close()
            throw error
        }
        await running.stop()
        try await store.close()
    }
}
