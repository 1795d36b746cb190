import Foundation
import PatchDelivery
import PatchPublishing
import PatchService
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One suite, run against every `ReleaseStore` (SQLite and PostgreSQL): the storage behaves the
/// same, and so does the service on top of it.
enum ReleaseStoreContract {
    static func storage(_ store: ReleaseStore) async throws {
        // Patches: idempotent, never replaced.
        try await store.putPatch(path: "patches/a-1.json", data: Data("one".utf8), digest: "d1")
        try await store.putPatch(path: "patches/a-1.json", data: Data("one".utf8), digest: "d1")
        do {
            try await store.putPatch(path: "patches/a-1.json", data: Data("two".utf8), digest: "d2")
            XCTFail("other content under a taken path must be refused")
        } catch is StoreConflict {}
        let stored = try await store.patch(path: "patches/a-1.json")
        XCTAssertEqual(stored, StoredFile(data: Data("one".utf8), digest: "d1"))
        let missing = try await store.patch(path: "patches/none.json")
        XCTAssertNil(missing)
        let all = try await store.patches()
        XCTAssertEqual(all, ["patches/a-1.json": Data("one".utf8)])

        // Channels: only a higher sequence replaces the stored document.
        func doc(_ n: Int) -> StoredChannel { StoredChannel(name: "production", sequence: n, digest: "c\(n)", data: Data("doc \(n)".utf8)) }
        var ok = try await store.putChannel(doc(1)); XCTAssertTrue(ok)
        ok = try await store.putChannel(doc(1)); XCTAssertFalse(ok, "same sequence")
        ok = try await store.putChannel(doc(3)); XCTAssertTrue(ok)
        ok = try await store.putChannel(doc(2)); XCTAssertFalse(ok, "lower sequence")
        var current = try await store.channel("production")
        XCTAssertEqual(current, doc(3))
        // Racing writers: whatever the interleaving, the highest sequence ends up stored, and
        // exactly the writers that raised the sequence report success.
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for n in 4...23 { group.addTask { try await store.putChannel(doc(n)) } }
            var wins = 0
            for try await won in group where won { wins += 1 }
            return wins
        }
        XCTAssertGreaterThanOrEqual(results, 1)
        current = try await store.channel("production")
        XCTAssertEqual(current?.sequence, 23)
        ok = try await store.putChannel(StoredChannel(name: "staging", sequence: 1, digest: "s", data: Data()))
        XCTAssertTrue(ok)
        let names = try await store.channels().map(\.name)
        XCTAssertEqual(names, ["production", "staging"])

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

        // Nonces: once only; old ones may be forgotten.
        var fresh = try await store.useNonce("nonce-000000000001", keyID: "p", timestamp: 1000, forgetBefore: 0)
        XCTAssertTrue(fresh)
        fresh = try await store.useNonce("nonce-000000000001", keyID: "p", timestamp: 1000, forgetBefore: 0)
        XCTAssertFalse(fresh, "a replayed nonce")

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

    /// The service on `store`: publisher operations, refusals, files with ETags, telemetry, a device.
    static func service(_ store: ReleaseStore, _ test: XCTestCase) async throws {
        let publisher = Publisher()
        let running = try await RunningReleaseService.start(ReleaseService(store: store, configuration: publisher.configuration))
        do {
            try await exercise(running.baseURL, publisher, test)
        } catch {
            await running.stop()
            throw error
        }
        await running.stop()
    }

    private static func exercise(_ url: URL, _ publisher: Publisher, _ test: XCTestCase) async throws {
        let client = publisher.client(url)
        try await publisher.release(1, to: "production", via: url)
        let v2 = try await publisher.release(2, to: "production", rollout: 1000, via: url)

        // Public files, with ETags and 304.
        let (status, body) = try await blocking { try client.request("GET", "/channels/production.json", body: Data(), signed: false) }
        XCTAssertEqual(status, 200)
        let signed = try SignedReleaseChannel(fileData: body)
        XCTAssertEqual(signed.channel.sequence, 2)
        XCTAssertEqual(signed.channel.releases.map(\.releaseID), ["fix-1", "fix-2"])
        let notModified = try await blocking { () -> Int in
            var request = URLRequest(url: url.appendingPathComponent("channels/production.json"))
            request.setValue("\"\(signed.digest)\"", forHTTPHeaderField: "If-None-Match")
            return try PublisherClientProbe.status(request)
        }
        XCTAssertEqual(notModified, 304)

        // Refusals: unsigned, replayed, stale, tampered, not newer, unknown patch, untrusted release key.
        let document = try PatchSigner(key: publisher.releaseKey).sign(
            try ChannelEdit.rollout(releaseID: "fix-2", rollout: 5000).apply(to: signed.channel, appID: publisher.appID, channel: "production", now: Date()))
        let put = document.fileData()
        let unsigned = try await blocking { try client.request("PUT", "/api/channels/production", body: put, signed: false).0 }
        XCTAssertEqual(unsigned, 401)
        let headers = try PublisherSignature.headers(method: "PUT", path: "/api/channels/production", body: put, key: publisher.publisherKey)
        let answer1 = try await blocking { try PublisherClientProbe.send("PUT", url, "/api/channels/production", put, headers) }
        XCTAssertEqual(answer1, 200)
        let answer2 = try await blocking { try PublisherClientProbe.send("PUT", url, "/api/channels/production", put, headers) }
        XCTAssertEqual(answer2, 409, "replayed request")
        let stale = try PublisherSignature.headers(method: "PUT", path: "/api/channels/production", body: put, key: publisher.publisherKey,
                                                   now: Date().addingTimeInterval(-3600))
        let answer3 = try await blocking { try PublisherClientProbe.send("PUT", url, "/api/channels/production", put, stale) }
        XCTAssertEqual(answer3, 401, "stale timestamp")
        let tampered = try PublisherSignature.headers(method: "PUT", path: "/api/channels/production", body: Data("x".utf8), key: publisher.publisherKey)
        let answer4 = try await blocking { try PublisherClientProbe.send("PUT", url, "/api/channels/production", put, tampered) }
        XCTAssertEqual(answer4, 401, "body not the signed one")
        let stranger = SigningKey.generate(id: "publisher-1")
        let forged = try PublisherSignature.headers(method: "PUT", path: "/api/channels/production", body: put, key: stranger)
        let answer5 = try await blocking { try PublisherClientProbe.send("PUT", url, "/api/channels/production", put, forged) }
        XCTAssertEqual(answer5, 401, "same key id, other key")
        do {
            try await blocking { try client.putChannel(document) }
            XCTFail("the same sequence again must be refused")
        } catch let failure as PublisherClient.Failure { XCTAssertEqual(failure.status, 409) }
        var unknownPatch = document.channel
        unknownPatch.sequence += 1
        unknownPatch.releases.append(.init(releaseID: "ghost", patchID: "shop-fixes", version: 9, digest: String(repeating: "0", count: 64), file: "patches/ghost.json"))
        let ghost = try PatchSigner(key: publisher.releaseKey).sign(unknownPatch)
        do {
            try await blocking { try client.putChannel(ghost) }
            XCTFail("a release naming a patch the service doesn't hold must be refused")
        } catch let failure as PublisherClient.Failure { XCTAssertEqual(failure.status, 422) }
        var otherKey = document.channel
        otherKey.sequence += 1
        let untrusted = try PatchSigner(key: SigningKey.generate(id: "release-1")).sign(otherKey)
        do {
            try await blocking { try client.putChannel(untrusted) }
            XCTFail("a document the release key didn't sign must be refused")
        } catch let failure as PublisherClient.Failure { XCTAssertEqual(failure.status, 422) }

        // The revocation list: uploaded by the publisher, served to devices, never rolled back.
        let list2 = try PatchSigner(key: publisher.releaseKey).sign(RevocationList(sequence: 2, issued: Date(), keyID: "", entries: [.init(patchID: "old-experiment")]))
        let list1 = try PatchSigner(key: publisher.releaseKey).sign(RevocationList(sequence: 1, issued: Date(), keyID: ""))
        try await blocking { try client.putRevocationList(list2.fileData()) }
        do {
            try await blocking { try client.putRevocationList(list1.fileData()) }
            XCTFail("an older revocation list must be refused")
        } catch let failure as PublisherClient.Failure { XCTAssertEqual(failure.status, 409) }
        let served = try await blocking { try client.revocationList() }
        XCTAssertEqual(served, list2.fileData())

        // A device following production over the service (revocation list included); its telemetry shows up in the status.
        let device = DeviceProfile(deviceID: (0...).lazy.map { "dev-\($0)" }.first { RolloutBucket.bucket(deviceID: $0, releaseID: v2.releaseID) < 5000 }!)
        let root = try temporaryDirectory(test)
        let events: [ReleaseEvent] = try await blocking {
            var config = ReleaseLoader.Configuration(baseURL: url, appID: publisher.appID, appVersion: "1.4.0", channel: "production",
                                                     device: device, trustStore: TrustStore(keys: [publisher.releaseKey.trustedKey]),
                                                     stateDirectory: root.appendingPathComponent("device"))
            config.allowsInsecureHTTP = true
            config.retryPolicy = RetryPolicy(maxAttempts: 1)
            var telemetry = TelemetryReporter.Configuration(collectorURL: url.appendingPathComponent("telemetry"), appID: publisher.appID,
                                                            appVersion: "1.4.0", channel: "production", directory: nil)
            telemetry.allowsInsecureHTTP = true
            let reporter = try TelemetryReporter(configuration: telemetry)
            let loader = try ReleaseLoader(configuration: config, applier: DeviceApplier(), telemetry: reporter)
            let events = loader.update()
            XCTAssertTrue(reporter.flush(timeout: 15))
            return events
        }
        XCTAssertTrue(events.contains { if case .applied("fix-2", _, _, .network) = $0 { return true } else { return false } }, "\(events)")
        XCTAssertTrue(events.contains(.revocationListUpdated(sequence: 2)), "\(events)")
        let report = try await blocking { try client.status() }
        let production = try XCTUnwrap(report.first { $0.channel == "production" })
        XCTAssertEqual(production.releases.first { $0.releaseID == "fix-2" }?.applied, 1)
        XCTAssertEqual(production.releases.first { $0.releaseID == "fix-2" }?.rollout, 5000)

        // Telemetry that names what the service doesn't host is refused with a reason and stores nothing.
        func refusal(_ batch: TelemetryBatch) async throws -> (Int, String?) {
            let body = try JSONEncoder().encode(batch)
            let (status, answer) = try await blocking { try client.request("POST", "/telemetry", body: body, signed: false) }
            return (status, (try? JSONDecoder().decode([String: String].self, from: answer))?["reason"])
        }
        let event = TelemetryEvent(kind: .applied, releaseID: "fix-2", patchID: "shop-fixes", version: 2, bucket: 1, time: Date())
        var made = event
        made.releaseID = "made-up"
        let junk: [(TelemetryBatch, Int, String)] = [
            (TelemetryBatch(appID: "com.example.other", appVersion: "1", channel: "production", dropped: 0, events: [event]), 422, "wrong-app"),
            (TelemetryBatch(appID: publisher.appID, appVersion: "1", channel: "made-up", dropped: 0, events: [event]), 422, "unknown-channel"),
            (TelemetryBatch(appID: publisher.appID, appVersion: "1", channel: "production", dropped: 0, events: [event, made]), 422, "unknown-release"),
            (TelemetryBatch(appID: publisher.appID, appVersion: "1", channel: "production", dropped: 0, events: Array(repeating: event, count: 1001)), 422, "too-many-events"),
        ]
        for (batch, status, reason) in junk {
            let (got, gotReason) = try await refusal(batch)
            XCTAssertEqual(got, status, reason)
            XCTAssertEqual(gotReason, reason)
        }
        let notJSON = try await blocking { try client.request("POST", "/telemetry", body: Data("{".utf8), signed: false) }
        XCTAssertEqual(notJSON.0, 400)
        XCTAssertEqual((try? JSONDecoder().decode([String: String].self, from: notJSON.1))?["reason"], "malformed")
        let after = try await blocking { try client.status() }
        XCTAssertEqual(after, report, "nothing refused was counted")

        // Limits: an oversized telemetry body is refused without being stored.
        let huge = Data(repeating: UInt8(ascii: " "), count: 300 << 10)
        let tooLarge = try await blocking { try client.request("POST", "/telemetry", body: huge, signed: false).0 }
        XCTAssertEqual(tooLarge, 413)
    }
}

/// Plain requests with chosen headers (what an attacker would send).
enum PublisherClientProbe {
    static func send(_ method: String, _ base: URL, _ path: String, _ body: Data, _ headers: [String: String]) throws -> Int {
        var request = URLRequest(url: URL(string: path, relativeTo: base)!.absoluteURL, timeoutInterval: 15)
        request.httpMethod = method
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return try status(request)
    }

    static func status(_ request: URLRequest) throws -> Int {
        let done = DispatchSemaphore(value: 0)
        let box = StatusBox()
        let task = URLSession.shared.dataTask(with: request) { _, response, error in
            box.set((response as? HTTPURLResponse)?.statusCode, error)
            done.signal()
        }
        task.resume()
        guard done.wait(timeout: .now() + 20) == .success else { task.cancel(); throw PublisherClient.Failure(status: 0, description: "timeout") }
        return try box.get()
    }

    final class StatusBox: @unchecked Sendable {
        private let lock = NSLock()
        private var status: Int?
        private var error: Error?
        func set(_ s: Int?, _ e: Error?) { lock.withLock { status = s; error = e } }
        func get() throws -> Int {
            try lock.withLock {
                if let status { return status }
                throw error ?? PublisherClient.Failure(status: 0, description: "no response")
            }
        }
    }
}
