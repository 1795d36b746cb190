import Foundation
import HTTPTestSupport
import PatchDelivery
import PatchFormat
import PatchService
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The release service on the open internet: every test is a hostile client on 127.0.0.1 with
/// real sockets, and each defence has a test that fails without it. Timeouts and the connection
/// cap are shortened through `ReleaseService.Configuration.limits`.
final class ReleaseServiceHardeningTests: XCTestCase {
    /// A service on a fresh SQLite store, with release 1 in production; stopped at teardown.
    func startService(_ adjust: (inout ReleaseService.Configuration) -> Void = { _ in }) async throws -> (RunningReleaseService, Publisher) {
        let publisher = try Publisher(self)
        let store = try await SQLiteReleaseStore.open(path: try temporaryDirectory(self).appendingPathComponent("releases.sqlite").path)
        var configuration = publisher.configuration()
        adjust(&configuration)
        let running = try await RunningReleaseService.start(ReleaseService(store: store, configuration: configuration))
        addTeardownBlock {
            await running.stop()
            try? await store.close()
        }
        try await publisher.release(1, to: "production", via: running.baseURL)
        return (running, publisher)
    }

    static let timestampPath = "/apps/com.example.shop/metadata/timestamp.json"

    func send(_ port: Int, _ request: String) throws -> RawHTTPConnection {
        let connection = try RawHTTPConnection(port: UInt16(port))
        connection.send(request)
        return connection
    }

    /// A device's fetch of the timestamp (what every refresh starts with), over a connection of its own.
    func fetchChannel(_ port: Int) throws -> RawHTTPConnection.Response {
        try send(port, "GET /apps/com.example.shop/metadata/timestamp.json HTTP/1.1\r\nHost: x\r\n\r\n").readResponse(timeout: 15)
    }

    // MARK: - Connections

    /// Idle connections fill the cap four times over; a device still fetches the timestamp and a
    /// publisher still uploads a release: each takes the place of the longest-idle one.
    func testIdleConnectionsAtTheCapLockOutNeitherDevicesNorPublishers() async throws {
        let (service, publisher) = try await startService { $0.limits.maxConnections = 16 }
        let port = service.port
        let flood = try IdleConnectionFlood(port: UInt16(port), count: 64)
        defer { flood.close() }
        XCTAssertTrue(eventually { flood.closedByServer >= 64 - 16 }, "\(flood.closedByServer) shed")

        let fetched = try await blocking { try self.fetchChannel(port) }
        XCTAssertEqual(fetched.status, 200)
        XCTAssertNoThrow(try Metadata<Timestamp>(data: fetched.body))

        try await publisher.release(2, to: "production", via: service.baseURL)
        let served = try await blocking { try self.fetchChannel(port) }
        XCTAssertEqual(try Metadata<Timestamp>(data: served.body).signed.common.version, 2, "the upload was taken in")
    }

    func testAnIdleConnectionIsClosedAfterTheIdleTimeout() async throws {
        let (service, _) = try await startService { $0.limits.idleTimeout = 0.4 }
        let port = service.port
        try await blocking {
            let silent = try RawHTTPConnection(port: UInt16(port))
            XCTAssertTrue(silent.waitForClose(timeout: 3), "a connection that never sends is closed")
            let keepAlive = try self.send(port, "GET /apps/com.example.shop/metadata/timestamp.json HTTP/1.1\r\nHost: x\r\n\r\n")
            XCTAssertEqual(try keepAlive.readResponse().status, 200)
            let idleFrom = Date()
            XCTAssertTrue(keepAlive.waitForClose(timeout: 3), "a keep-alive connection is closed once idle")
            XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(idleFrom), 0.3)
        }
    }

    // MARK: - Telemetry

    /// A telemetry POST with `body` over a connection of its own; the status and the refusal's reason.
    static func postTelemetry(_ port: Int, _ body: String) throws -> (status: Int, reason: String?, retryAfter: String?) {
        let connection = try RawHTTPConnection(port: UInt16(port))
        connection.send("POST /telemetry HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        let response = try connection.readResponse()
        let reason = (try? JSONDecoder().decode([String: String].self, from: response.body))?["reason"]
        return (response.status, reason, response.header("Retry-After"))
    }

    /// A batch for a release nobody published, on a channel that doesn't exist.
    static func junkBatch(_ n: Int) -> String {
        let time = Int(Date().timeIntervalSince1970)
        return #"{"appID":"com.example.shop","appVersion":"1.0","channel":"ch-\#(n)","dropped":0,"events":[{"kind":"applied","releaseID":"r-\#(n)","patchID":"p","version":1,"bucket":0,"time":\#(time)}]}"#
    }

    /// One address gets a burst, then 429 with Retry-After and the reason `rate-limited`, before
    /// its body is read; other routes are not limited.
    func testTelemetryIsRateLimitedPerClientAddress() async throws {
        let (service, _) = try await startService { $0.limits.rateLimits = [.init("POST", "/telemetry", perSecond: 0.5, burst: 5)] }
        let port = service.port
        try await blocking {
            let answers = try (0..<8).map { try Self.postTelemetry(port, Self.junkBatch($0)) }
            XCTAssertEqual(answers.prefix(5).map(\.status), [422, 422, 422, 422, 422])
            XCTAssertEqual(answers.prefix(5).map(\.reason), Array(repeating: "unknown-channel", count: 5))
            XCTAssertEqual(answers.suffix(3).map(\.status), [429, 429, 429])
            XCTAssertEqual(answers.suffix(3).map(\.reason), Array(repeating: "rate-limited", count: 3))
            XCTAssertEqual(answers.last?.retryAfter, "2")
            XCTAssertEqual(try self.fetchChannel(port).status, 200, "fetching is not telemetry")
        }
    }

    /// A device whose batch the service refuses for good (it names a release that isn't in the
    /// channel) drops it and goes on: its later events arrive, the refused ones count as dropped.
    func testADeviceDropsABatchTheServiceRefusesAndItsNextEventsArrive() async throws {
        let (service, publisher) = try await startService()
        let url = service.baseURL
        let (delivered, stats) = try await blocking { () -> (Bool, TelemetryReporter.Stats) in
            var configuration = TelemetryReporter.Configuration(collectorURL: url.appendingPathComponent("telemetry"), appID: publisher.appID,
                                                                appVersion: "1.4.0", channel: "production", directory: nil)
            configuration.allowsInsecureHTTP = true
            configuration.batchSize = 2
            let reporter = try TelemetryReporter(configuration: configuration)
            reporter.record(TelemetryEvent(kind: .applied, releaseID: "withdrawn", patchID: "shop-fixes", version: 9, bucket: 1, time: Date()))
            reporter.record(TelemetryEvent(kind: .applied, releaseID: "withdrawn", patchID: "shop-fixes", version: 9, bucket: 2, time: Date()))
            _ = reporter.flush(timeout: 10)
            reporter.record(TelemetryEvent(kind: .applied, releaseID: "fix-1", patchID: "shop-fixes", version: 1, bucket: 3, time: Date()))
            let delivered = reporter.flush(timeout: 10)
            return (delivered, reporter.currentStats)
        }
        XCTAssertTrue(delivered)
        XCTAssertEqual(stats.refused, 2)
        XCTAssertEqual(stats.sent, 1)
        XCTAssertEqual(stats.queued, 0)
        let status: [PatchService.ChannelStatus] = try await publisher.status(url)
        let production = status.first { $0.channel == "production" }
        XCTAssertEqual(production?.releases.first { $0.releaseID == "fix-1" }?.applied, 1)
    }

    // MARK: - Request heads

    func testOversizedAndSlowRequestHeadsAreRefused() async throws {
        let (service, _) = try await startService { $0.limits.headTimeout = 0.5 }
        let port = service.port
        try await blocking {
            let longLine = try self.send(port, "GET /" + String(repeating: "a", count: 9000))
            XCTAssertTrue(longLine.waitForClose(timeout: 3), "closed at once, not waiting for the rest")
            XCTAssertTrue(longLine.received.hasPrefix("HTTP/1.1 414 "), longLine.received)

            let bigHeader = try self.send(port, "GET /apps/com.example.shop/metadata/timestamp.json HTTP/1.1\r\nHost: x\r\nX-Pad: " + String(repeating: "b", count: 9000) + "\r\n\r\n")
            XCTAssertTrue(bigHeader.waitForClose(timeout: 3))
            XCTAssertTrue(bigHeader.received.hasPrefix("HTTP/1.1 431 "), bigHeader.received)

            let many = try self.send(port, "GET /apps/com.example.shop/metadata/timestamp.json HTTP/1.1\r\nHost: x\r\n" + (0..<150).map { "X-H\($0): 1\r\n" }.joined() + "\r\n")
            XCTAssertTrue(many.waitForClose(timeout: 3))
            XCTAssertTrue(many.received.hasPrefix("HTTP/1.1 431 "), many.received)

            let drip = try self.send(port, "GET /apps/com.example.shop/metadata/timestamp.json HTTP/1.1\r\nX-Drip: ")
            let started = Date()
            var closed = false
            for _ in 0..<40 where !closed {  // one byte every 100 ms, at most 4 s
                closed = drip.waitForClose(timeout: 0.1)
                if !closed { drip.send("z") }
            }
            XCTAssertTrue(closed, "still open after 4 s of dripping")
            XCTAssertLessThan(Date().timeIntervalSince(started), 2.5)
            XCTAssertTrue(drip.received.hasPrefix("HTTP/1.1 408 "), drip.received)

            let fits = try self.send(port, "GET /apps/com.example.shop/metadata/timestamp.json HTTP/1.1\r\nHost: x\r\nX-Pad: " + String(repeating: "c", count: 7000) + "\r\n\r\n")
            XCTAssertEqual(try fits.readResponse().status, 200, "a head just under the limit is served")
        }
    }

    // MARK: - Bodies

    /// A declared body over the route's limit is answered 413 before a byte of it is read, on
    /// routes that take bodies and on those that don't (which would otherwise read and discard it).
    func testBodiesOverTheRouteLimitAreRefusedBeforeTheyAreRead() async throws {
        let (service, _) = try await startService()
        let port = service.port
        try await blocking {
            for (head, limit) in [("POST /telemetry", 256 << 10), ("POST /apps/com.example.shop/upload", 32 << 20),
                                  ("GET \(Self.timestampPath)", 16 << 10)] {
                let connection = try self.send(port, "\(head) HTTP/1.1\r\nHost: x\r\nContent-Length: \(limit + 1)\r\n\r\n")
                let response = try connection.readResponse(timeout: 3)
                XCTAssertEqual(response.status, 413, head)
                XCTAssertEqual(response.text, "request body too large: this route takes at most \(limit) bytes\n")
                XCTAssertTrue(connection.waitForClose(timeout: 3), head)
            }
            // Chunked, without a declared length: cut where it passes the limit.
            let chunked = try self.send(port, "GET /apps/com.example.shop/metadata/timestamp.json HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            let chunk = String(repeating: "z", count: 4096)
            for _ in 0..<16 { chunked.send("1000\r\n\(chunk)\r\n") }  // 64 KB, four times the limit; no last chunk
            XCTAssertTrue(chunked.waitForClose(timeout: 3), "still open after 64 KB of body")

            XCTAssertEqual(try self.fetchChannel(port).status, 200)
        }
    }

    func testABodyDrippedPastTheBodyDeadlineIsCut() async throws {
        let (service, _) = try await startService { $0.limits.bodyTimeout = 0.5 }
        let port = service.port
        try await blocking {
            let drip = try self.send(port, "POST /telemetry HTTP/1.1\r\nHost: x\r\nContent-Length: 200\r\n\r\n")
            let started = Date()
            var closed = false
            for _ in 0..<40 where !closed {  // one byte every 100 ms, at most 4 s
                closed = drip.waitForClose(timeout: 0.1)
                if !closed { drip.send("{") }
            }
            XCTAssertTrue(closed, "still open after 4 s of dripping a body")
            XCTAssertLessThan(Date().timeIntervalSince(started), 2.5)
        }
    }
}

/// The figure the issue asks for: `patchserver` in a process of its own under a 1,024-descriptor
/// limit, 2,000 idle connections held open against it; a device fetches the timestamp and a
/// publisher uploads a release, each timed.
final class ReleaseServiceLoadTests: XCTestCase {
    static var patchserver: URL { productsDirectory.appendingPathComponent("patchserver") }

    /// `patchserver` on SQLite in `root`, hosting `publisher`'s repository (its root, the online keys).
    static func start(_ publisher: Publisher, root: URL, openFileLimit: Int?) throws -> ServerProcess {
        let files = try publisher.serviceFiles(in: root.appendingPathComponent("service"))
        return try ServerProcess(executable: patchserver, arguments: [
            root.appendingPathComponent("db").path, "--app-id", publisher.appID, "--root", files.root,
            "--online-key"] + files.onlineKeys + ["--port", "0",
        ], scratch: root, openFileLimit: openFileLimit)
    }

    func testTwoThousandIdleConnectionsUnderA1024DescriptorLimit() async throws {
        try XCTSkipUnless(ServerProcess.canMeasure, ServerProcess.measurementUnavailable)
        guard IdleConnectionFlood.raiseOpenFileLimit(to: 2000 + 256) else {
            throw XCTSkip("this process may not open 2,256 descriptors (ulimit -Hn)")
        }
        let publisher = try Publisher(self)
        let root = try temporaryDirectory(self)
        let server = try Self.start(publisher, root: root, openFileLimit: 1024)
        defer { server.stop() }
        let base = URL(string: "http://127.0.0.1:\(server.port)/")!
        try await publisher.release(1, to: "production", via: base)
        let port = server.port

        let flood = try IdleConnectionFlood(port: port, count: 2000)
        defer { flood.close() }
        XCTAssertEqual(flood.descriptors.count, 2000)
        usleep(1_000_000)
        let cpuBefore = try XCTUnwrap(server.cpuSeconds)

        let (fetch, fetchSeconds) = try await blocking { () -> (RawHTTPConnection.Response, TimeInterval) in
            let started = Date()
            let connection = try RawHTTPConnection(port: port)
            connection.send("GET /apps/com.example.shop/metadata/timestamp.json HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try connection.readResponse(timeout: 30)
            return (response, Date().timeIntervalSince(started))
        }
        XCTAssertEqual(fetch.status, 200, "the device's fetch; log:\n\(server.log.suffix(2000))")

        let uploadStarted = Date()
        try await publisher.release(2, to: "production", via: base)
        let uploadSeconds = Date().timeIntervalSince(uploadStarted)
        let cpuUsed = try XCTUnwrap(server.cpuSeconds) - cpuBefore
        print("2000 idle connections, ulimit -n 1024: timestamp fetch \(String(format: "%.2f", fetchSeconds)) s, release upload \(String(format: "%.2f", uploadSeconds)) s, "
              + "\(flood.closedByServer) idle connections shed, \(server.openDescriptors) descriptors open, \(String(format: "%.2f", cpuUsed)) CPU s meanwhile")
        XCTAssertLessThan(fetchSeconds, 10)
        XCTAssertLessThan(uploadSeconds, 10)
        XCTAssertLessThan(server.openDescriptors, 1024)
        XCTAssertTrue(server.process.isRunning)
    }

    /// 10,000 telemetry requests for made-up channels and releases from one address: a burst is
    /// refused as unknown, the rest rate-limited, and the database doesn't grow by a byte.
    func testTenThousandJunkTelemetryRequestsStoreNothing() async throws {
        let publisher = try Publisher(self)
        let root = try temporaryDirectory(self)
        let server = try Self.start(publisher, root: root, openFileLimit: nil)
        defer { server.stop() }
        try await publisher.release(1, to: "production", via: URL(string: "http://127.0.0.1:\(server.port)/")!)
        let db = root.appendingPathComponent("db")
        func databaseBytes() throws -> Int {
            try FileManager.default.contentsOfDirectory(atPath: db.path).reduce(0) { sum, name in
                sum + ((try FileManager.default.attributesOfItem(atPath: db.appendingPathComponent(name).path)[.size] as? Int) ?? 0)
            }
        }
        let before = try databaseBytes()
        let port = Int(server.port)
        let started = Date()
        let statuses = try await blocking { () -> [Int: Int] in
            var statuses: [Int: Int] = [:]
            for n in 0..<10_000 { statuses[try ReleaseServiceHardeningTests.postTelemetry(port, ReleaseServiceHardeningTests.junkBatch(n)).status, default: 0] += 1 }
            return statuses
        }
        let seconds = Date().timeIntervalSince(started)
        let after = try databaseBytes()
        print("10,000 junk telemetry requests in \(String(format: "%.1f", seconds)) s: \(statuses.sorted { $0.key < $1.key }.map { "\($0.value)×\($0.key)" }.joined(separator: ", ")); database \(before) → \(after) bytes")
        XCTAssertEqual(Set(statuses.keys), [422, 429])
        XCTAssertLessThanOrEqual(statuses[422] ?? 0, 30 + Int(seconds * 2) + 2, "a burst of 30, then two a second")
        XCTAssertEqual(after, before)
        let status: [PatchService.ChannelStatus] = try await publisher.status(URL(string: "http://127.0.0.1:\(port)/")!)
        let releases = status.flatMap { $0.releases }
        XCTAssertEqual(releases.map { $0.releaseID }, ["fix-1"])
        XCTAssertEqual(releases.map { $0.applied }, [0])
    }
}
