import Foundation
import PatchFormat
import PatchRepository
@testable import PatchService
import PatchUpdater
import XCTest

/// The issue's attacks on the publisher's side (issue 19, attacks 1 and 2): the service, or a
/// man in the middle, controls what the service returns; the publisher's edits never build on it.
final class PublisherAttackTests: XCTestCase {
    private func sqlite() async throws -> SQLiteReleaseStore {
        try await SQLiteReleaseStore.open(path: try temporaryDirectory(self).appendingPathComponent("releases.sqlite").path)
    }

    /// Attack 1: a compromised service strips a release's targeting from the staging channel it
    /// serves; promoting to production copies the release from the publisher's verified record,
    /// so production keeps its targeting. Content altered in the record is refused by promote.
    func testAttack1PromoteCopiesTheVerifiedRecordNotWhatTheServiceServes() async throws {
        let store = try await sqlite()
        let f = try await HostedRepositoryFixture(self, store: store)
        do {
            let targeted = PatchRelease(app: HostedRepositoryFixture.app, patchID: "fix", appVersions: try AppVersionRange(parsing: ">=1.4.0 <1.5.0"), rollout: 1000,
                                        models: ["iPhone15,2"], attributes: ["tier": ["beta"]])
            let script = Data("fix()".utf8)
            try f.repository.release("fix.js", content: script, release: targeted, channel: "staging", keys: f.channelKeys("staging"))
            try await f.upload()

            // The service now serves a staging role with the targeting stripped (and re-signs
            // snapshot and timestamp over it: the attacker holds the online keys too).
            var stripped = f.repository.channels["staging"]!.signed
            stripped.common.version += 1
            stripped.targets["staging/fix.js"]!.custom = PatchRelease(app: HostedRepositoryFixture.app, patchID: "fix").custom
            let forged = try Metadata(signed: stripped)
            try await f.serveForged(forged, as: "staging")

            try f.repository.promote("fix.js", from: "staging", to: "production", keys: f.channelKeys("production"))
            let answer = try await f.post(try f.repository.uploadContent())
            // The forged staging outranks the record's, so this service refuses the upload: a
            // compromised service can withhold, it never chooses what the publisher signs.
            XCTAssertEqual(answer.reason, "rollback")
            try await f.assertDeviceRefusesSignatures(of: "staging")
            let production = try XCTUnwrap(f.repository.channels["production"]?.signed.targets["production/fix.js"])
            XCTAssertEqual(try PatchRelease(custom: production.custom), targeted, "production carries the targeting the publisher signed")

            // Content altered in the record itself: promote refuses to sign a copy of it.
            let stored = f.directory.appendingPathComponent("publisher/targets/\(HashCheck.digest("sha256", of: script)!)")
            try Data("evil()".utf8).write(to: stored)
            XCTAssertThrowsError(try f.repository.promote("fix.js", from: "staging", to: "production", keys: f.channelKeys("production"))) {
                XCTAssertTrue("\($0)".contains("altered"), "\($0)")
            }
        } catch { await f.stop(); try? await store.close(); throw error }
        await f.stop()
        try await store.close()
    }

    /// Attack 1 without a forger's online keys: a service that serves a staging role whose
    /// targeting was stripped after signing is refused by devices; a fresh service gets the
    /// promoted release with its targeting.
    func testAttack1PromotedTargetingReachesDevicesIntact() async throws {
        let store = try await sqlite()
        let f = try await HostedRepositoryFixture(self, store: store)
        do {
            let targeted = PatchRelease(app: HostedRepositoryFixture.app, patchID: "fix", rollout: 1000, models: ["iPhone15,2"])
            try f.repository.release("fix.js", content: Data("fix()".utf8), release: targeted, channel: "staging", keys: f.channelKeys("staging"))
            try f.repository.promote("fix.js", from: "staging", to: "production", rollout: 2500, keys: f.channelKeys("production"))
            try await f.upload()
            let production = try await f.deviceReleases("production")
            XCTAssertEqual(production["fix.js"]?.models, ["iPhone15,2"])
            XCTAssertEqual(production["fix.js"]?.rollout, 2500)
        } catch { await f.stop(); try? await store.close(); throw error }
        await f.stop()
        try await store.close()
    }

    /// Attack 2: after a release is disabled, the service (or a man in the middle) hands back
    /// the older document in which it was enabled. Two routine edits made afterwards start from
    /// the publisher's record, so devices still see the release disabled; uploading the old
    /// document itself is refused as a rollback.
    func testAttack2RoutineEditsAfterAReplayedOldDocumentKeepTheReleaseDisabled() async throws {
        let store = try await sqlite()
        let f = try await HostedRepositoryFixture(self, store: store)
        do {
            try f.repository.release("fix.js", content: Data("fix()".utf8), release: PatchRelease(app: HostedRepositoryFixture.app, patchID: "fix", rollout: 1000),
                                     channel: "production", keys: f.channelKeys("production"))
            try await f.upload()
            let oldDocument = try f.repository.uploadContent()
            try f.repository.updateRelease("fix.js", channel: "production", keys: f.channelKeys("production")) { $0.enabled = false }
            try await f.upload()

            let replayed = try await f.post(oldDocument)
            XCTAssertEqual(replayed.reason, "rollback")

            try f.repository.updateRelease("fix.js", channel: "production", keys: f.channelKeys("production")) { $0.rollout = 2000 }
            try await f.upload()
            try f.repository.updateRelease("fix.js", channel: "production", keys: f.channelKeys("production")) { $0.rollout = 3000 }
            try await f.upload()
            let production = try await f.deviceReleases("production")
            XCTAssertEqual(production["fix.js"]?.enabled, false, "still disabled after two routine edits")
            XCTAssertEqual(production["fix.js"]?.rollout, 3000)
        } catch { await f.stop(); try? await store.close(); throw error }
        await f.stop()
        try await store.close()
    }
}
