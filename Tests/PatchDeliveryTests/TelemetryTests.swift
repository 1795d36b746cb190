import Foundation
import PatchDelivery
import PatchFormat
import XCTest

/// A transport that records batches; it can fail, or hold every send until released.
final class RecordingTransport: TelemetryTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var _batches: [TelemetryBatch] = []
    private var _bodies: [Data] = []
    private var _attempts = 0
    var succeeds: Bool { get { lock.withLock { _succeeds } } set { lock.withLock { _succeeds = newValue } } }
    private var _succeeds = true
    /// When set, each send waits on it (bounded) before answering: a collector that hangs.
    let gate: DispatchSemaphore?

    init(gate: DispatchSemaphore? = nil) { self.gate = gate }

    func send(_ body: Data, to url: URL) -> Bool {
        lock.withLock { _attempts += 1 }
        if let gate { _ = gate.wait(timeout: .now() + 20) }
        return lock.withLock {
            guard _succeeds else { return false }
            _bodies.append(body)
            if let batch = try? JSONDecoder().decode(TelemetryBatch.self, from: body) { _batches.append(batch) }
            return true
        }
    }

    var batches: [TelemetryBatch] { lock.withLock { _batches } }
    var bodies: [Data] { lock.withLock { _bodies } }
    var attempts: Int { lock.withLock { _attempts } }
}

final class TelemetryTests: XCTestCase {
    /// One time for every event: an event made again to compare with must equal the recorded one,
    /// even when a second ticked in between.
    private static let time = Date()

    private func event(_ n: Int, detail: String? = nil) -> TelemetryEvent {
        TelemetryEvent(kind: .applied, releaseID: "fix-\(n % 3)", patchID: "shop-fixes", version: 2, bucket: n % 10_000, detail: detail, time: Self.time)
    }

    private func configuration(_ url: String = "http://127.0.0.1:9/telemetry", directory: URL?) -> TelemetryReporter.Configuration {
        var c = TelemetryReporter.Configuration(collectorURL: URL(string: url)!, appID: "com.example.shop", appVersion: "1.4.0",
                                                channel: "production", directory: directory)
        c.allowsInsecureHTTP = true
        c.flushInterval = 3600   // tests flush explicitly
        c.requestTimeout = 1
        return c
    }

    func testEventsAreSentInBatches() throws {
        let transport = RecordingTransport()
        var c = configuration(directory: try makeTemporaryDirectory(self))
        c.batchSize = 10
        let reporter = try TelemetryReporter(configuration: c, transport: transport)
        for n in 0..<25 { reporter.record(event(n)) }
        XCTAssertTrue(reporter.flush(timeout: 10))
        XCTAssertEqual(transport.batches.flatMap(\.events).count, 25)
        XCTAssertTrue(transport.batches.allSatisfy { $0.events.count <= 10 }, "\(transport.batches.map(\.events.count))")
        XCTAssertEqual(transport.batches.flatMap(\.events), (0..<25).map { event($0) }, "in order, each once")
        XCTAssertEqual(reporter.currentStats.sent, 25)
        XCTAssertEqual(reporter.currentStats.queued, 0)
    }

    func testADeadCollectorCapsMemoryAndDiskDropsTheOldestAndCountsThem() throws {
        let directory = try makeTemporaryDirectory(self)
        var c = configuration(directory: directory)   // port 9 on loopback: connection refused
        c.maxEvents = 100
        c.maxSpoolBytes = 8 << 10
        c.batchSize = 20
        c.initialBackoff = 0.05
        let reporter = try TelemetryReporter(configuration: c)
        let recorded = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            for n in 0..<5000 { reporter.record(self.event(n, detail: "error \(n)")) }
            recorded.signal()
        }
        XCTAssertEqual(recorded.wait(timeout: .now() + 30), .success, "record() must not wait on the collector")
        XCTAssertFalse(reporter.flush(timeout: 10), "nothing can be delivered")
        let stats = reporter.currentStats
        XCTAssertLessThanOrEqual(stats.queued, 100)
        XCTAssertLessThanOrEqual(stats.queuedBytes, 8 << 10)
        XCTAssertEqual(stats.dropped + stats.queued, 5000, "every event is either queued or counted as dropped")
        XCTAssertGreaterThanOrEqual(stats.failedAttempts, 1)
        let spool = directory.appendingPathComponent("telemetry-spool.json")
        let size = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: spool.path)[.size] as? Int)
        XCTAssertLessThanOrEqual(size, 8 << 10, "the spool obeys the byte cap")
        print("dead collector: 5000 recorded, \(stats.queued) queued (\(stats.queuedBytes) bytes, spool \(size) bytes), \(stats.dropped) dropped, \(stats.failedAttempts) attempts")

        // The newest events were kept, and they survive a relaunch; the drops are reported with them.
        let transport = RecordingTransport()
        let next = try TelemetryReporter(configuration: c, transport: transport)
        XCTAssertTrue(next.flush(timeout: 10))
        let delivered = transport.batches.flatMap(\.events)
        XCTAssertEqual(delivered.count, stats.queued)
        XCTAssertEqual(delivered.last, event(4999, detail: "error 4999"))
        XCTAssertEqual(transport.batches.first?.dropped, stats.dropped)
        XCTAssertEqual(transport.batches.dropFirst().map(\.dropped).reduce(0, +), 0, "drops are reported once")
    }

    func testAHungCollectorBlocksNothingAndRequestsEndAtTheirTimeout() throws {
        // The transport holds the background queue; recording goes on regardless.
        let gate = DispatchSemaphore(value: 0)
        let transport = RecordingTransport(gate: gate)
        var c = configuration(directory: nil)
        c.batchSize = 1
        c.maxEvents = 50
        let reporter = try TelemetryReporter(configuration: c, transport: transport)
        reporter.record(event(0))
        let recorded = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            for n in 1...2000 { reporter.record(self.event(n)) }
            recorded.signal()
        }
        XCTAssertEqual(recorded.wait(timeout: .now() + 30), .success, "record() returned while a send was hanging")
        XCTAssertLessThanOrEqual(reporter.currentStats.queued, 50)
        for _ in 0..<200 { gate.signal() }

        // The real HTTP transport against a server that never answers: the send ends at its timeout.
        let hostile = try HostileServer()
        addTeardownBlock { hostile.stop() }
        let http = HTTPTelemetryTransport(timeout: 1)
        let done = DispatchSemaphore(value: 0)
        let result = LockedBox<Bool?>(nil)
        Thread.detachNewThread {
            result.value = http.send(Data("{}".utf8), to: hostile.baseURL.appendingPathComponent("silent"))
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success, "a silent collector can't hold the sender past its timeout")
        XCTAssertEqual(result.value, false)
    }

    func testThePatchClientReportsReleaseEventsWithTheBucketNotTheDeviceID() throws {
        let f = try ChannelFixture(self)
        try f.release("fix-1.js", script: "fix()")
        let transport = RecordingTransport()
        let reporter = try TelemetryReporter(configuration: configuration(directory: nil), transport: transport)
        let deviceID = "private-device-id-1234"
        let client = try PatchClient(configuration: f.configuration(deviceID: deviceID), applier: RecordingApplier(),
                                     transport: f.transport, telemetry: reporter)
        client.update()
        try f.change("fix-1.js") { $0.enabled = false }
        client.update()
        XCTAssertTrue(reporter.flush(timeout: 10))
        let events = transport.batches.flatMap(\.events)
        let bucket = RolloutBucket.bucket(deviceID: deviceID, releaseID: "production/fix-1.js")
        XCTAssertEqual(events.map(\.kind), [.applied, .reverted])
        XCTAssertEqual(events.map(\.bucket), [bucket, bucket])
        XCTAssertEqual(events.map(\.releaseID), ["production/fix-1.js", "production/fix-1.js"])
        XCTAssertEqual(events.last?.detail, "disabled")
        for body in transport.bodies {
            XCTAssertFalse(String(decoding: body, as: UTF8.self).contains(deviceID), "the device id never leaves the device")
        }
    }

    /// A release stopped by a freeze (a stale answer) reaches telemetry as `reverted`, detail `stale`.
    func testAReleaseStoppedByAFreezeIsReportedAsRevertedStale() throws {
        let f = try ChannelFixture(self)
        try f.release("fix-1.js", script: "fix()")
        let transport = RecordingTransport()
        let reporter = try TelemetryReporter(configuration: configuration(directory: nil), transport: transport)
        let clock = TestClock()
        var config = f.configuration()
        config.clock = clock.read
        let client = try PatchClient(configuration: config, applier: RecordingApplier(), transport: f.transport, telemetry: reporter)
        XCTAssertEqual(client.update().applied, ["production/fix-1.js"])
        clock.now = clock.now.addingTimeInterval(2 * 86_400)
        XCTAssertEqual(client.update().reverted, ["production/fix-1.js": .stale])
        XCTAssertTrue(reporter.flush(timeout: 10))
        let events = transport.batches.flatMap(\.events)
        XCTAssertEqual(events.map(\.kind), [.applied, .reverted])
        XCTAssertEqual(events.last?.detail, "stale")
    }

    func testPlainHTTPCollectorNeedsTheFlag() throws {
        var c = configuration(directory: nil)
        c.allowsInsecureHTTP = false
        XCTAssertThrowsError(try TelemetryReporter(configuration: c))
    }
}
