import Foundation
import PatchDelivery
import PatchPublishing
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
    /// in, the other serves; a request replayed to the other instance is refused; of two racing
    /// channel updates with the same sequence, one wins.
    func testTwoInstancesShareOneDatabase() async throws {
        let postgres = try PostgresInstance(self)
        let publisher = Publisher()
        let storeA = try await postgres.open(), storeB = try await postgres.open()
        let a = try await RunningReleaseService.start(ReleaseService(store: storeA, configuration: publisher.configuration))
        let b = try await RunningReleaseService.start(ReleaseService(store: storeB, configuration: publisher.configuration))
        do {
            try await publisher.release(1, to: "production", via: a.baseURL)
            let fromB = try await blocking { try publisher.client(b.baseURL).channel("production") }
            XCTAssertEqual(fromB?.channel.releases.map(\.releaseID), ["fix-1"], "B serves what A took in")

            let next = try PatchSigner(key: publisher.releaseKey).sign(
                try ChannelEdit.rollout(releaseID: "fix-1", rollout: 500).apply(to: fromB?.channel, appID: publisher.appID, channel: "production", now: Date()))
            let body = next.fileData()
            let headers = try PublisherSignature.headers(method: "PUT", path: "/api/channels/production", body: body, key: publisher.publisherKey)
            let answer6 = try await blocking { try PublisherClientProbe.send("PUT", a.baseURL, "/api/channels/production", body, headers) }
            XCTAssertEqual(answer6, 200)
            let answer7 = try await blocking { try PublisherClientProbe.send("PUT", b.baseURL, "/api/channels/production", body, headers) }
            XCTAssertEqual(answer7, 409,
                           "the nonce is spent on every instance")

            // Two different documents with the same next sequence, one to each instance at once.
            let current = try await storeA.channel("production")
            let base = try SignedReleaseChannel(fileData: try XCTUnwrap(current).data).channel
            let d1 = try PatchSigner(key: publisher.releaseKey).sign(try ChannelEdit.rollout(releaseID: "fix-1", rollout: 1000).apply(to: base, appID: publisher.appID, channel: "production", now: Date()))
            let d2 = try PatchSigner(key: publisher.releaseKey).sign(try ChannelEdit.disable(releaseID: "fix-1").apply(to: base, appID: publisher.appID, channel: "production", now: Date()))
            let clientA = publisher.client(a.baseURL), clientB = publisher.client(b.baseURL)
            async let r1: Bool = blocking { (try? clientA.putChannel(d1)) != nil }
            async let r2: Bool = blocking { (try? clientB.putChannel(d2)) != nil }
            let (won1, won2) = try await (r1, r2)
            XCTAssertTrue(won1 != won2, "exactly one of two racing updates wins (\(won1), \(won2))")
            let final = try await storeB.channel("production")
            XCTAssertEqual(final?.digest, won1 ? d1.digest : d2.digest)
        } catch {
            await a.stop(); await b.stop()
            try? await storeA.close(); try? await storeB.close()
            throw error
        }
        await a.stop(); await b.stop()
        try await storeA.close(); try await storeB.close()
    }
}
