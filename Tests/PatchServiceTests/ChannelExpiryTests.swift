import Foundation
import PatchFormat
import PatchRepository
@testable import PatchService
import PatchUpdater
import XCTest

/// Channels isolated on the service (issue 31): one channel's role that expired, or expires too
/// soon, never refuses another channel's release; the service refuses a role version that would
/// expire sooner than its minimum; a held role that expires stays listed and is flagged on the
/// status; the snapshot pins each role's length and hash. Run against SQLite and PostgreSQL.
enum ChannelExpiryContract {
    /// A stale staging role (expired, then valid for only an hour) in the publisher's record:
    /// refused when it is all the upload holds, left out (the held version kept, its file not
    /// stored) when the upload also carries a production release, which reaches devices.
    static func staleRolesOfOneChannelDoNotStopAnother(_ store: ReleaseStore, _ test: XCTestCase) async throws {
        let f = try await HostedRepositoryFixture(test, store: store)
        do {
            try await f.releaseFix("production")
            let heldStaging = try await store.latestMetadata(role: "staging")
            let heldVersion = try XCTUnwrap(heldStaging).version

            // Staging signed 91 days ago with the default 90-day validity: expired, with a file.
            let early = Data("early()".utf8)
            try f.repository.release("early.js", content: early, release: PatchRelease(app: HostedRepositoryFixture.app, patchID: "early"),
                                     channel: "staging", keys: f.channelKeys("staging"), now: Date().addingTimeInterval(-91 * 86_400))
            var answer = try await f.post(try f.repository.uploadContent())
            XCTAssertEqual(answer.status, 422)
            XCTAssertEqual(answer.reason, "expired", "nothing else is new: the publisher meant to change staging")

            // A production release in the same record: taken; staging's stale version is not.
            try f.repository.release("fix-2.js", content: Data("fix2()".utf8), release: PatchRelease(app: HostedRepositoryFixture.app, patchID: "fix-2"),
                                     channel: "production", keys: f.channelKeys("production"))
            let text = try await f.upload()
            let taken = try JSONDecoder().decode([String: String].self, from: Data(text.utf8))
            let staleVersion = f.repository.channels["staging"]!.signed.common.version
            XCTAssertEqual(taken["not-taken"], "staging version \(staleVersion) has expired", text)
            let production = try await f.deviceReleases("production")
            XCTAssertEqual(Set(production.keys), ["fix.js", "fix-2.js"], "production moved on")
            let stillHeld = try await store.latestMetadata(role: "staging")
            XCTAssertEqual(stillHeld?.version, heldVersion, "the service keeps serving the staging version it held")
            let earlyStored = try await store.targetFile(sha256: HashCheck.digest("sha256", of: early)!)
            XCTAssertNil(earlyStored, "the file of the role not taken is not stored")

            // Valid for an hour: under the default minimum of a day.
            try f.repository.renew("staging", keys: f.channelKeys("staging"), validity: 3600)
            answer = try await f.post(try f.repository.uploadContent())
            XCTAssertEqual(answer.status, 422)
            XCTAssertEqual(answer.reason, "expires-too-soon")
            do {
                try await f.upload()
                XCTFail("taken")
            } catch {
                XCTAssertTrue("\(error)".contains("staging version \(staleVersion + 1) expires in 5"), "\(error)")
                XCTAssertTrue("\(error)".contains("sooner than this service's minimum of 24 h"), "\(error)")
            }

            // Renewed for the default 90 days: taken, and staging's devices get its release.
            try f.repository.renew("staging", keys: f.channelKeys("staging"))
            let renewed = try await f.upload()
            XCTAssertFalse(renewed.contains("not-taken"), renewed)
            let staging = try await f.deviceReleases("staging")
            XCTAssertEqual(Set(staging.keys), ["early.js"])

            // An expired staging role signed by the wrong key is not quietly "not taken": refused.
            var forged = f.repository.channels["staging"]!.signed
            forged.common.version += 1
            forged.common.expires = Date().addingTimeInterval(-60)
            var metadata = try Metadata(signed: forged)
            try metadata.sign(with: f.keys["production"]!)
            try f.repository.release("fix-3.js", content: Data("fix3()".utf8), release: PatchRelease(app: HostedRepositoryFixture.app, patchID: "fix-3"),
                                     channel: "production", keys: f.channelKeys("production"))
            var upload = try f.repository.uploadContent()
            upload.roles["staging"] = try metadata.serialized()
            answer = try await f.post(upload)
            XCTAssertEqual(answer.reason, "unsigned")
        } catch { await f.stop(); throw error }
        await f.stop()
    }

    /// A root or targets version valid for less than the minimum refuses the whole upload: they
    /// concern every channel. The minimum is the service's setting.
    static func shortLivedRootAndTargetsAreRefused(_ store: ReleaseStore, _ test: XCTestCase) async throws {
        let f = try await HostedRepositoryFixture(test, store: store) { $0.minimumRoleValidity = 7200 }
        do {
            try await f.releaseFix("production")
            try f.repository.renew("targets", keys: [f.keys["targets"]!] + f.online, validity: 3600)
            try f.repository.release("fix-2.js", content: Data("fix2()".utf8), release: PatchRelease(app: HostedRepositoryFixture.app, patchID: "fix-2"),
                                     channel: "production", keys: f.channelKeys("production"))
            var answer = try await f.post(try f.repository.uploadContent())
            XCTAssertEqual(answer.reason, "expires-too-soon", "targets valid for 1 h under a 2 h minimum")
            try f.repository.renew("targets", keys: [f.keys["targets"]!] + f.online, validity: 3 * 3600)
            answer = try await f.post(try f.repository.uploadContent())
            XCTAssertEqual(answer.status, 200, "3 h is above the minimum")

            let rootKeys = [f.keys["root-1"]!, f.keys["root-2"]!] + [f.keys["targets"]!] + f.online
            try f.repository.renew("root", keys: rootKeys, validity: 3600)
            answer = try await f.post(try f.repository.uploadContent())
            XCTAssertEqual(answer.reason, "expires-too-soon", "root valid for 1 h")
            let root = try await store.latestMetadata(role: "root")
            XCTAssertEqual(root?.version, 1, "nothing of it stored")
        } catch { await f.stop(); throw error }
        await f.stop()
    }

    /// Staging taken while valid, then expired on the service: uploads go on, the snapshot keeps
    /// listing staging (pinned), the status flags it, production devices keep updating and
    /// staging's devices refuse the expired role.
    static func aHeldRoleThatExpiresIsFlaggedAndStopsOnlyItsChannel(_ store: ReleaseStore, _ test: XCTestCase) async throws {
        let clock = Clock()
        let f = try await HostedRepositoryFixture(test, store: store) { configuration in
            configuration.minimumRoleValidity = 60
            configuration.now = { clock.now() }
        }
        do {
            try f.repository.release("early.js", content: Data("early()".utf8), release: PatchRelease(app: HostedRepositoryFixture.app, patchID: "early"),
                                     channel: "staging", keys: f.channelKeys("staging"))
            try f.repository.renew("staging", keys: f.channelKeys("staging"), validity: 120)
            try await f.releaseFix("production")
            for device in ["staging-device", "production-device"] {
                try Updater.bootstrap(rootData: f.publisher.rootData, metadataDirectory: f.directory.appendingPathComponent(device))
            }
            var status = try await f.publisher.status(f.running.baseURL)
            XCTAssertTrue(try XCTUnwrap(status.first { $0.channel == "staging" }?.expiryWarning).hasPrefix("staging version 3 expires in "), "\(status)")
            XCTAssertNil(status.first { $0.channel == "production" }?.expiryWarning)

            // Ten minutes later, for the service and the devices: staging has expired.
            clock.offset = 600
            try f.repository.release("fix-2.js", content: Data("fix2()".utf8), release: PatchRelease(app: HostedRepositoryFixture.app, patchID: "fix-2"),
                                     channel: "production", keys: f.channelKeys("production"))
            let answer = try await f.upload()
            XCTAssertFalse(answer.contains("not-taken"), answer)
            status = try await f.publisher.status(f.running.baseURL)
            let staging = try XCTUnwrap(status.first { $0.channel == "staging" })
            XCTAssertTrue(try XCTUnwrap(staging.expiryWarning).hasPrefix("staging version 3 expired "), "\(staging)")
            XCTAssertEqual(staging.expires, MetadataDate.format(f.repository.channels["staging"]!.signed.common.expires))

            // Still listed, pinned to the bytes served.
            let hosted = try await HostedRepository.load(from: store)
            let snapshot = try XCTUnwrap(hosted?.snapshot?.signed)
            let stagingBytes = try await store.metadata(role: "staging", version: 3)
            XCTAssertEqual(snapshot.meta["staging.json"], MetaFile(version: 3, length: Int64(stagingBytes!.count),
                                                                   hashes: ["sha256": HashCheck.digest("sha256", of: stagingBytes!)!]))

            let production = try await f.deviceReleases("production", device: "production-device", clockOffset: 600)
            XCTAssertEqual(Set(production.keys), ["fix.js", "fix-2.js"], "production devices keep updating")
            do {
                let seen = try await f.deviceReleases("staging", device: "staging-device", clockOffset: 600)
                XCTFail("a staging device took the expired role: \(seen.keys.sorted())")
            } catch {
                XCTAssertTrue("\(error)".contains("staging"), "\(error)")
            }
        } catch { await f.stop(); throw error }
        await f.stop()
    }

    /// The service's clock, moved by the test.
    final class Clock: @unchecked Sendable {
        private let lock = NSLock()
        private var _offset: TimeInterval = 0
        var offset: TimeInterval {
            get { lock.withLock { _offset } }
            set { lock.withLock { _offset = newValue } }
        }
        func now() -> Date { Date().addingTimeInterval(offset) }
    }
}

final class ChannelExpiryTests: XCTestCase {
    private func sqlite() async throws -> SQLiteReleaseStore {
        try await SQLiteReleaseStore.open(path: try temporaryDirectory(self).appendingPathComponent("releases.sqlite").path)
    }

    private func onBoth(_ body: (ReleaseStore, XCTestCase) async throws -> Void) async throws {
        let sqlite = try await sqlite()
        do { try await body(sqlite, self) } catch { try? await sqlite.close(); throw error }
        try await sqlite.close()
        let postgres = try PostgresInstance(self)
        let store = try await postgres.open()
        do { try await body(store, self) } catch { try? await store.close(); throw error }
        try await store.close()
    }

    func testStaleRolesOfOneChannelDoNotStopAnotherOnSQLiteAndPostgres() async throws {
        try await onBoth(ChannelExpiryContract.staleRolesOfOneChannelDoNotStopAnother)
    }

    func testShortLivedRootAndTargetsAreRefusedOnSQLiteAndPostgres() async throws {
        try await onBoth(ChannelExpiryContract.shortLivedRootAndTargetsAreRefused)
    }

    func testAHeldRoleThatExpiresIsFlaggedAndStopsOnlyItsChannelOnSQLiteAndPostgres() async throws {
        try await onBoth(ChannelExpiryContract.aHeldRoleThatExpiresIsFlaggedAndStopsOnlyItsChannel)
    }

    /// The snapshot pins each channel role's length and SHA-256: a leaked production key and a
    /// mirror serving other content under the pinned version are refused by devices (version
    /// pinning alone lets that through).
    func testTheSnapshotPinsEachRolesBytesAndDevicesRefuseOthers() async throws {
        let store = try await sqlite()
        let f = try await HostedRepositoryFixture(self, store: store)
        do {
            try await f.releaseFix("production")
            let hosted = try await HostedRepository.load(from: store)
            let snapshot = try XCTUnwrap(hosted?.snapshot?.signed)
            for role in ["targets", "staging", "production"] {
                let entry = try XCTUnwrap(snapshot.meta["\(role).json"])
                let bytes = try await store.metadata(role: role, version: entry.version)
                XCTAssertEqual(entry.length, Int64(try XCTUnwrap(bytes).count), role)
                XCTAssertEqual(entry.hashes, ["sha256": HashCheck.digest("sha256", of: bytes!)!], role)
            }

            // Same version, other content, signed by the (leaked) production key.
            var forged = f.repository.channels["production"]!.signed
            let evil = Data("stealCredentials()".utf8)
            forged.targets["production/evil.js"] = TargetFile(data: evil, custom: PatchRelease(app: HostedRepositoryFixture.app, patchID: "evil").custom)
            var metadata = try Metadata(signed: forged)
            try metadata.sign(with: f.keys["production"]!)
            let mirror = SubstitutingTransport(suffix: ".production.json", with: try metadata.serialized())
            let updater = f.device("mirrored", transport: mirror)
            try Updater.bootstrap(rootData: f.publisher.rootData, metadataDirectory: f.directory.appendingPathComponent("mirrored"))
            do {
                try await updater.refresh()
                let seen = try await updater.targets(ofRole: "production")
                XCTFail("the device took the substituted production role: \(seen?.map(\.path) ?? [])")
            } catch {
                XCTAssertTrue("\(error)".contains("production"), "\(error)")
            }
            XCTAssertTrue(mirror.substituted, "the mirror served its copy")
        } catch { await f.stop(); try? await store.close(); throw error }
        await f.stop()
        try await store.close()
    }
}

/// A mirror that serves `replacement` for every URL ending in `suffix`, the rest as the service does.
final class SubstitutingTransport: Transport, @unchecked Sendable {
    let suffix: String
    let replacement: Data
    private let lock = NSLock()
    private var _substituted = false
    var substituted: Bool { lock.withLock { _substituted } }

    init(suffix: String, with replacement: Data) {
        self.suffix = suffix
        self.replacement = replacement
    }

    func fetch(_ url: URL, maxLength: Int64, deadline: Date) async throws -> Data {
        guard url.path.hasSuffix(suffix) else { return try await HTTPTransport.shared.fetch(url, maxLength: maxLength, deadline: deadline) }
        lock.withLock { _substituted = true }
        return Data(replacement.prefix(Int(min(maxLength, Int64(Int.max)))))
    }
}
