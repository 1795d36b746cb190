import Foundation
import HTTPTestSupport
import PatchFormat
import PatchRepository
import PatchService
import PatchUpdater
import XCTest

/// `patchctl repo` end to end against the release service: init with per-role expiry periods,
/// a release with targeting attributes, `publish --to` the service, a device reading it.
final class PatchctlPublishTests: XCTestCase {
    static var patchctl: URL { productsDirectory.appendingPathComponent("patchctl") }

    private func patchctl(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let run = try await blocking { try runProgram([Self.patchctl.path] + arguments, timeout: 120) }
        return (run.status, run.output)
    }

    func testPublishToTheServiceWithAttributesAndExpiryPeriods() async throws {
        let dir = try temporaryDirectory(self)
        let repo = dir.appendingPathComponent("repo").path
        var run = try await patchctl(["repo", "init", repo, "--timestamp-expiry", "3600", "--snapshot-expiry", "7200",
                                      "--targets-expiry", "10000", "--root-expiry", "20000"])
        XCTAssertEqual(run.status, 0, run.output)
        let script = dir.appendingPathComponent("fix.js")
        try Data("fix()".utf8).write(to: script)
        run = try await patchctl(["repo", "release", repo, script.path, "--channel", "production", "--app", "com.example.shop",
                                  "--patch-id", "fix", "--version", "3", "--rollout", "12.5",
                                  "--attribute", "tier=beta", "--attribute", "tier=gold", "--attribute", "region=eu"])
        XCTAssertEqual(run.status, 0, run.output)
        run = try await patchctl(["repo", "release", repo, script.path, "--channel", "staging", "--app", "a", "--patch-id", "x", "--attribute", "novalue"])
        XCTAssertNotEqual(run.status, 0)
        XCTAssertTrue(run.output.contains("KEY=VALUE"), run.output)

        let record = try Repository(directory: URL(fileURLWithPath: repo))
        let now = Date()
        XCTAssertEqual(record.root.signed.common.expires.timeIntervalSince(now), 20000, accuracy: 120)
        XCTAssertEqual(record.channels["production"]!.signed.common.expires.timeIntervalSince(now), 10000, accuracy: 120)
        XCTAssertEqual(record.snapshot.signed.common.expires.timeIntervalSince(now), 7200, accuracy: 120)
        XCTAssertEqual(record.timestamp.signed.common.expires.timeIntervalSince(now), 3600, accuracy: 120)

        let store = try await SQLiteReleaseStore.open(path: dir.appendingPathComponent("releases.sqlite").path)
        let rootData = try Data(contentsOf: URL(fileURLWithPath: repo + "/record/root/1.root.json"))
        var configuration = ReleaseService.Configuration(
            appID: "com.example.shop", trustedRoot: rootData,
            onlineKeys: OnlineKeys(keys: try ["snapshot", "timestamp"].map { try KeyFile.read(URL(fileURLWithPath: repo + "/keys/\($0).key")) }))
        // This repository's roles live hours, not days: the service's minimum lowered to match.
        configuration.minimumRoleValidity = 3600
        let service = try await RunningReleaseService.start(ReleaseService(store: store, configuration: configuration))
        do {
            run = try await patchctl(["repo", "publish", repo, "--to", service.baseURL.absoluteString, "--app", "com.example.shop"])
            XCTAssertEqual(run.status, 0, run.output)
            XCTAssertTrue(run.output.contains("uploaded"), run.output)
            run = try await patchctl(["repo", "publish", repo, "--to", service.baseURL.absoluteString, "--app", "com.example.other"])
            XCTAssertNotEqual(run.status, 0, "a service hosting another app answers 404")

            // Staging re-signed for 10 minutes, then a production release: published, with a
            // warning that the service kept its staging version.
            run = try await patchctl(["repo", "renew", repo, "staging", "--valid-for", "600"])
            XCTAssertEqual(run.status, 0, run.output)
            run = try await patchctl(["repo", "release", repo, script.path, "--name", "fix-2.js", "--channel", "production", "--app", "com.example.shop",
                                      "--patch-id", "fix-2"])
            XCTAssertEqual(run.status, 0, run.output)
            run = try await patchctl(["repo", "publish", repo, "--to", service.baseURL.absoluteString, "--app", "com.example.shop"])
            XCTAssertEqual(run.status, 0, run.output)
            XCTAssertTrue(run.output.contains("warning: the service did not take staging version 2 expires in "), run.output)
            XCTAssertTrue(run.output.contains("sooner than this service's minimum of 1 h"), run.output)

            let device = dir.appendingPathComponent("device")
            try Updater.bootstrap(rootData: rootData, metadataDirectory: device)
            let app = service.baseURL.appendingPathComponent("apps/com.example.shop")
            let updater = Updater(configuration: UpdaterConfiguration(metadataDirectory: device, metadataBaseURL: app.appendingPathComponent("metadata/"),
                                                                      targetBaseURL: app.appendingPathComponent("targets/")))
            try await updater.refresh()
            let target = try await updater.targetInfo(for: "production/fix.js")
            let release = try PatchRelease(custom: target?.file.custom)
            let fix2 = try await updater.targetInfo(for: "production/fix-2.js")
            XCTAssertNotNil(fix2, "production's release went out with the staging version left out")
            XCTAssertEqual(release?.attributes, ["tier": ["beta", "gold"], "region": ["eu"]])
            XCTAssertEqual(release?.rollout, 1250)
            XCTAssertEqual(release?.version, 3)
        } catch { await service.stop(); try? await store.close(); throw error }
        await service.stop()
        try await store.close()
    }
}
