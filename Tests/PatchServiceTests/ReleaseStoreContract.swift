import Foundation
import PatchDelivery
import PatchFormat
import PatchService
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One suite, run against every `ReleaseStore` (SQLite and PostgreSQL): the storage behaves the
/// same, and so does the service on top of it.
enum ReleaseStoreContract {
    static func storage(_ store: ReleaseStore) async throws {
        var ok: Bool
        // TUF metadata: a commit lands only on the timestamp it was made from; all or nothing.
        func row(_ role: String, _ version: Int64) -> StoredMetadata { StoredMetadata(role: role, version: version, data: Data("\(role) \(version)".utf8)) }
        ok = try await store.commit(RepositoryCommit(metadata: [row("root", 1)], basedOnTimestamp: nil))
        XCTAssertTrue(ok)
        ok = try await store.commit(RepositoryCommit(metadata: [row("targets", 1), row("snapshot", 1), row("timestamp", 1)],
                                                     targetFiles: ["ab": Data("content".utf8)], basedOnTimestamp: nil))
        XCTAssertTrue(ok)
        ok = try await store.commit(RepositoryCommit(metadata: [row("targets", 2), row("timestamp", 2)], basedOnTimestamp: nil))
        XCTAssertFalse(ok, "made from a timestamp that is no longer the newest")
        let notStored = try await store.metadata(role: "targets", version: 2)
        XCTAssertNil(notStored, "a refused commit stores nothing")
        let latestTimestamp = try await store.latestMetadata(role: "timestamp")
        XCTAssertEqual(latestTimestamp, row("timestamp", 1))
        let target = try await store.targetFile(sha256: "ab")
        XCTAssertEqual(target, Data("content".utf8))
        let racing = try await withThrowingTaskGroup(of: Bool.self) { group in
            for n in 2...11 { group.addTask { try await store.commit(RepositoryCommit(metadata: [row("timestamp", Int64(n))], basedOnTimestamp: 1)) } }
            var wins = 0
            for try await won in group where won { wins += 1 }
            return wins
        }
        XCTAssertEqual(racing, 1, "of commits made from one timestamp exactly one lands")

        // Telemetry adds up.
        try await store.addTelemetry([TelemetryCount(channel: "production", releaseID: "fix-1", kind: "applied", hour: 3600, count: 2)])
        try await store.addTelemetry([TelemetryCount(channel: "production", releaseID: "fix-1", kind: "applied", hour: 3600, count: 3),
                                      TelemetryCount(channel: "production", releaseID: "fix-1", kind: "failed", hour: 7200, count: 1),
                                      TelemetryCount(channel: "staging", releaseID: "fix-1", kind: "applied", hour: 3600, count: 4)])
        let counts = try await store.telemetry()
        XCTAssertEqual(counts, [TelemetryCount(channel: "production", releaseID: "fix-1", kind: "applied", hour: 3600, count: 5),
                                TelemetryCount(channel: "production", releaseID: "fix-1", kind: "failed", hour: 7200, count: 1),
                                TelemetryCount(channel: "staging", releaseID: "fix-1", kind: "applied", hour: 3600, count: 4)])
        // Read as aggregates: totals summed by the database, the timeline from an hour on.
        try await store.addTelemetry([TelemetryCount(channel: "production", releaseID: "fix-1", kind: "applied", hour: 7200, count: 10)])
        let totals = try await store.telemetryTotals()
        XCTAssertEqual(totals, [TelemetryCount(channel: "production", releaseID: "fix-1", kind: "applied", hour: 0, count: 15),
                                TelemetryCount(channel: "production", releaseID: "fix-1", kind: "failed", hour: 0, count: 1),
                                TelemetryCount(channel: "staging", releaseID: "fix-1", kind: "applied", hour: 0, count: 4)])
        let recent = try await store.telemetry(since: 7200)
        XCTAssertEqual(recent, [TelemetryCount(channel: "production", releaseID: "fix-1", kind: "applied", hour: 7200, count: 10),
                                TelemetryCount(channel: "production", releaseID: "fix-1", kind: "failed", hour: 7200, count: 1)])
    }

    /// The service on `store`: metadata with ETags, telemetry from a device's reporter counted in
    /// the status, refusals that store nothing, body limits.
    static func service(_ store: ReleaseStore, _ test: XCTestCase) async throws {
        let publisher = try Publisher(test)
        let running = try await RunningReleaseService.start(ReleaseService(store: store, configuration: publisher.configuration()))
        do {
            try await exercise(running.baseURL, publisher, test)
        } catch {
            await running.stop()
            throw error
        }
        await running.stop()
    }

    private static func exercise(_ url: URL, _ publisher: Publisher, _ test: XCTestCase) async throws {
        try await publisher.release(1, to: "production", via: url)
        try await publisher.release(2, to: "production", rollout: 1000, via: url)
        try publisher.repository.updateRelease("fix-2", channel: "production", keys: publisher.channelKeys("production")) { $0.rollout = 5000 }
        try await publisher.upload(to: url)

        // Metadata with ETags and 304; versioned files immutable, the timestamp never cached.
        let app = url.appendingPathComponent("apps/\(publisher.appID)")
        let (timestampStatus, timestampHeaders, _) = try await blocking { try HTTPProbe.get(app.appendingPathComponent("metadata/timestamp.json")) }
        XCTAssertEqual(timestampStatus, 200)
        XCTAssertEqual(timestampHeaders["Cache-Control"], "no-cache")
        let etag = try XCTUnwrap(timestampHeaders["Etag"] ?? timestampHeaders["ETag"])
        let (notModified, _, _) = try await blocking { try HTTPProbe.get(app.appendingPathComponent("metadata/timestamp.json"), headers: ["If-None-Match": etag]) }
        XCTAssertEqual(notModified, 304)
        let (rootStatus, rootHeaders, rootBody) = try await blocking { try HTTPProbe.get(app.appendingPathComponent("metadata/1.root.json")) }
        XCTAssertEqual(rootStatus, 200)
        XCTAssertEqual(rootBody, publisher.rootData)
        XCTAssertEqual(rootHeaders["Cache-Control"], "public, max-age=31536000, immutable")
        for missing in ["metadata/2.root.json", "metadata/x.json", "metadata/1.timestamp.json", "metadata/1.%2E%2E.json", "targets/production/0000.fix-1",
                        "targets/production/\(String(repeating: "0", count: 64)).fix-1"] {
            let (status, _, _) = try await blocking { try HTTPProbe.get(app.appendingPathComponent(missing)) }
            XCTAssertEqual(status, 404, missing)
        }
        let (otherApp, _, _) = try await blocking { try HTTPProbe.get(url.appendingPathComponent("apps/com.example.other/metadata/timestamp.json")) }
        XCTAssertEqual(otherApp, 404, "an app the service doesn't host")

        // A device's telemetry reporter: its events show up in the status, by release name.
        let delivered: Bool = try await blocking {
            var telemetry = TelemetryReporter.Configuration(collectorURL: url.appendingPathComponent("telemetry"), appID: publisher.appID,
                                                            appVersion: "1.4.0", channel: "production", directory: nil)
            telemetry.allowsInsecureHTTP = true
            let reporter = try TelemetryReporter(configuration: telemetry)
            reporter.record(TelemetryEvent(kind: .applied, releaseID: "fix-2", patchID: "shop-fixes", version: 2, bucket: 1, time: Date()))
            return reporter.flush(timeout: 15)
        }
        XCTAssertTrue(delivered)
        let report = try await publisher.status(url)
        let production = try XCTUnwrap(report.first { $0.channel == "production" })
        XCTAssertEqual(production.releases.map(\.releaseID), ["fix-1", "fix-2"])
        XCTAssertEqual(production.releases.first { $0.releaseID == "fix-2" }?.applied, 1)
        XCTAssertEqual(production.releases.first { $0.releaseID == "fix-2" }?.rollout, 5000, "read from the channel role's custom metadata")
        XCTAssertEqual(production.releases.first { $0.releaseID == "fix-2" }?.version, 2)
        XCTAssertEqual(production.releases.first { $0.releaseID == "fix-2" }?.state, "enabled")

        // Telemetry that names what the service doesn't host is refused with a reason and stores nothing.
        func refusal(_ batch: TelemetryBatch) async throws -> (Int, String?) {
            try await post(url, "telemetry", try JSONEncoder().encode(batch))
        }
        let event = TelemetryEvent(kind: .applied, releaseID: "fix-2", patchID: "shop-fixes", version: 2, bucket: 1, time: Date())
        var made = event
        made.releaseID = "made-up"
        let junk: [(TelemetryBatch, Int, String)] = [
            (TelemetryBatch(appID: "com.example.other", appVersion: "1", channel: "production", dropped: 0, events: [event]), 422, "wrong-app"),
            (TelemetryBatch(appID: publisher.appID, appVersion: "1", channel: "made-up", dropped: 0, events: [event]), 422, "unknown-channel"),
            (TelemetryBatch(appID: publisher.appID, appVersion: "1", channel: "targets", dropped: 0, events: [event]), 422, "unknown-channel"),
            (TelemetryBatch(appID: publisher.appID, appVersion: "1", channel: "production", dropped: 0, events: [event, made]), 422, "unknown-release"),
            (TelemetryBatch(appID: publisher.appID, appVersion: "1", channel: "production", dropped: 0, events: Array(repeating: event, count: 1001)), 422, "too-many-events"),
        ]
        for (batch, status, reason) in junk {
            let (got, gotReason) = try await refusal(batch)
            XCTAssertEqual(got, status, reason)
            XCTAssertEqual(gotReason, reason)
        }
        let notJSON = try await post(url, "telemetry", Data("{".utf8))
        XCTAssertEqual(notJSON.status, 400)
        XCTAssertEqual(notJSON.reason, "malformed")
        let after = try await publisher.status(url)
        XCTAssertEqual(after, report, "nothing refused was counted")

        // Limits: an oversized telemetry body is refused without being stored.
        let tooLarge = try await post(url, "telemetry", Data(repeating: UInt8(ascii: " "), count: 300 << 10))
        XCTAssertEqual(tooLarge.status, 413)
    }
}

/// Plain GETs with chosen headers (what a device or an attacker would send).
enum HTTPProbe {
    static func get(_ url: URL, headers: [String: String] = [:]) throws -> (status: Int, headers: [String: String], body: Data) {
        var request = URLRequest(url: url, timeoutInterval: 15)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let done = DispatchSemaphore(value: 0)
        let box = Box()
        let task = URLSession.shared.dataTask(with: request) { data, response, error in
            box.set(response as? HTTPURLResponse, data, error)
            done.signal()
        }
        task.resume()
        guard done.wait(timeout: .now() + 20) == .success else { task.cancel(); throw URLError(.timedOut) }
        return try box.get()
    }

    final class Box: @unchecked Sendable {
        private let lock = NSLock()
        private var response: HTTPURLResponse?
        private var data: Data?
        private var error: Error?
        func set(_ r: HTTPURLResponse?, _ d: Data?, _ e: Error?) { lock.withLock { response = r; data = d; error = e } }
        func get() throws -> (status: Int, headers: [String: String], body: Data) {
            try lock.withLock {
                guard let response else { throw error ?? URLError(.badServerResponse) }
                var headers: [String: String] = [:]
                for (k, v) in response.allHeaderFields { if let k = k as? String, let v = v as? String { headers[k] = v } }
                return (response.statusCode, headers, data ?? Data())
            }
        }
    }
}
