import Foundation
import PatchRepository
import PatchService
import XCTest

/// The shared suite against the embedded SQLite storage.
final class SQLiteReleaseStoreTests: XCTestCase {
    private func open() async throws -> SQLiteReleaseStore {
        try await SQLiteReleaseStore.open(path: try temporaryDirectory(self).appendingPathComponent("releases.sqlite").path)
    }

    func testStorageContract() async throws {
        let store = try await open()
        do { try await ReleaseStoreContract.storage(store) } catch { try? await store.close(); throw error }
        try await store.close()
    }

    func testServiceContract() async throws {
        let store = try await open()
        do { try await ReleaseStoreContract.service(store, self) } catch { try? await store.close(); throw error }
        try await store.close()
    }
}

/// The same suite against PostgreSQL, plus what only a shared database gives: several instances.
final class PostgresReleaseStoreTests: XCTestCase {
    func testStorageContract() async throws {
        let postgres = try PostgresInstance(self)
        let store = try await postgres.open()
        do { try await ReleaseStoreContract.storage(store) } catch { try? await store.close(); throw error }
        try await store.close()
    }

    func testServiceContract() async throws {
        let postgres = try PostgresInstance(self)
        let store = try await postgres.open()
        do { try await ReleaseStoreContract.service(store, self) } catch { try? await store.close(); throw error }
        try await store.close()
    }

    /// Two service instances, each with its own connection pool, on one database: what one takes
    /// in, the other serves to a device; of two different uploads of the same next version sent to
    /// the two instances at once, exactly one is accepted; both instances re-signing the
    /// timestamp at once leave one new version.
    func testTwoInstancesShareOneDatabase() async throws {
        let postgres = try PostgresInstance(self)
        let publisher = try Publisher(self)
        let storeA = try await postgres.open(), storeB = try await postgres.open()
        let a = try await RunningReleaseService.start(ReleaseService(store: storeA, configuration: publisher.configuration()))
        let b = try await RunningReleaseService.start(ReleaseService(store: storeB, configuration: publisher.configuration()))
        do {
            try await publisher.release(1, to: "production", via: a.baseURL)
            let statusB = try await publisher.status(b.baseURL)
            XCTAssertEqual(statusB.first { $0.channel == "production" }?.releases.map(\.releaseID), ["fix-1"], "B serves what A took in")

            // Two key holders edit copies of the record to the same next version, differently.
            let copy = publisher.directory.appendingPathComponent("copy")
            try FileManager.default.copyItem(at: publisher.repository.directory, to: copy)
            var other = try Repository(directory: copy)
            try publisher.repository.updateRelease("fix-1", channel: "production", keys: publisher.channelKeys("production")) { $0.rollout = 1000 }
            try other.updateRelease("fix-1", channel: "production", keys: publisher.channelKeys("production")) { $0.enabled = false }
            let first = try publisher.repository.uploadContent().encoded(), second = try other.uploadContent().encoded()
            let appA = a.baseURL.appendingPathComponent("apps/\(publisher.appID)"), appB = b.baseURL.appendingPathComponent("apps/\(publisher.appID)")
            async let r1 = post(appA, "upload", first)
            async let r2 = post(appB, "upload", second)
            let (answer1, answer2) = try await (r1, r2)
            XCTAssertEqual([answer1.status, answer2.status].filter { $0 == 200 }.count, 1, "exactly one of two racing uploads wins (\(answer1), \(answer2))")
            let loser = answer1.status == 200 ? answer2 : answer1
            XCTAssertTrue(["fork", "conflict"].contains(loser.reason ?? ""), "\(loser)")
            let final = try await publisher.status(a.baseURL).first { $0.channel == "production" }?.releases.first
            XCTAssertEqual(final?.state, answer1.status == 200 ? "enabled" : "disabled")

            // Both instances renew at once: one commit lands.
            let before = try await storeA.latestMetadata(role: "timestamp")?.version
            var later = publisher.configuration()
            later.now = { Date().addingTimeInterval(20 * 3600) }
            let serviceA = ReleaseService(store: storeA, configuration: later), serviceB = ReleaseService(store: storeB, configuration: later)
            async let renewedA = serviceA.renewOnlineMetadata()
            async let renewedB = serviceB.renewOnlineMetadata()
            let (wonA, wonB) = try await (renewedA, renewedB)
            XCTAssertTrue(wonA != wonB, "one instance re-signs, the other finds it done (\(wonA), \(wonB))")
            let after = try await storeB.latestMetadata(role: "timestamp")?.version
            XCTAssertEqual(after, before.map { $0 + 1 })
        } catch {
            await a.stop(); await b.stop()
            try? await storeA.close(); try? await storeB.close()
            throw error
        }
        await a.stop(); await b.stop()
        try await storeA.close(); try await storeB.close()
    }
}
