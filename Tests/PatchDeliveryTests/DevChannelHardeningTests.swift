import Foundation
import HTTPTestSupport
@testable import PatchDelivery
import PatchDevServer
import PatchUpdater
import XCTest

extension RawHTTPConnection {
    /// Opens `/_dev/events` as `device` and reads the session token the stream starts with.
    func openDevStream(device: String, timeout: TimeInterval = 5) -> String? {
        send("GET /_dev/events?device=\(device) HTTP/1.1\r\nHost: x\r\n\r\n")
        guard waitFor("event: session\ndata: ", timeout: timeout),
              let start = received.range(of: "event: session\ndata: ")?.upperBound else { return nil }
        guard waitFor("\n", timeout: timeout) else { return nil }
        let rest = received[start...]
        guard let end = rest.firstIndex(of: "\n") else { return nil }
        return String(rest[..<end])
    }

    /// The nonces of the pings received so far, oldest first.
    var pingNonces: [String] {
        received.components(separatedBy: "event: ping\ndata: ").dropFirst().compactMap { $0.split(separator: "\n").first.map(String.init) }
    }
}

/// The QA server's live channel (`patchctl dev --host`, reachable from a network): device slots
/// are held only by clients that read, and only a connected device can report, as itself.
final class DevChannelHardeningTests: XCTestCase {
    final class Reports: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [(String, String)] = []
        func add(_ device: String, _ data: Data) { lock.withLock { items.append((device, String(decoding: data, as: UTF8.self))) } }
        var all: [(String, String)] { lock.withLock { items } }
    }

    func start(maxDevices: Int = 32, heartbeat: TimeInterval = 0.1, reports: Reports = Reports()) throws -> (PatchServer, UInt16) {
        var limits = DevChannel.Limits()
        limits.maxDevices = maxDevices
        limits.heartbeat = heartbeat
        let channel = DevChannel(limits: limits, onReport: { reports.add($0, $1) })
        let server = PatchServer(directory: try makeTemporaryDirectory(self), devChannel: channel, log: nil)
        let port = try server.start()
        addTeardownBlock { server.stop(gracePeriod: 0.1) }
        return (server, port)
    }

    func get(_ port: UInt16, _ target: String) throws -> Int {
        let connection = try RawHTTPConnection(port: port)
        connection.send("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n")
        return try connection.readResponse().status
    }

    /// Streams that never read (their pings, however small, go unanswered) lose their slots:
    /// the real device gets in.
    func testStreamsThatDoNotReadLoseTheirSlots() throws {
        let (server, port) = try start(maxDevices: 2)
        let squatters = try (0..<2).map { _ -> RawHTTPConnection in
            let connection = try RawHTTPConnection(port: port)
            connection.send("GET /_dev/events?device=squatter HTTP/1.1\r\nHost: x\r\n\r\n")  // and never read again
            return connection
        }
        XCTAssertTrue(eventually { server.devChannel?.connectedDevices.count == 2 })
        let started = Date()
        XCTAssertTrue(eventually(5) { server.devChannel?.connectedDevices.isEmpty == true }, "squatters still connected")
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
        XCTAssertTrue(squatters.allSatisfy { $0.waitForClose(timeout: 2) })

        let device = try RawHTTPConnection(port: port)
        XCTAssertNotNil(device.openDevStream(device: "qa-pixel"), "the real device is admitted")
    }

    /// A device that answers its pings keeps its stream well past the unanswered limit.
    func testAStreamThatAnswersItsPingsStaysOpen() throws {
        let (server, port) = try start(maxDevices: 1)
        let device = try RawHTTPConnection(port: port)
        let token = try XCTUnwrap(device.openDevStream(device: "qa-pixel"))
        var answered = Set<String>()
        let until = Date().addingTimeInterval(1.5)  // 15 heartbeats
        while Date() < until {
            _ = device.waitFor("event: ping\ndata: \(UUID())", timeout: 0.05)  // reads what came
            for nonce in device.pingNonces where !answered.contains(nonce) {
                answered.insert(nonce)
                XCTAssertEqual(try get(port, "/_dev/pong?session=\(token)&nonce=\(nonce)"), 204)
            }
        }
        XCTAssertGreaterThan(answered.count, 5)
        XCTAssertEqual(server.devChannel?.connectedDevices, ["qa-pixel"])
        XCTAssertEqual(try get(port, "/_dev/pong?session=\(token)&nonce=made-up"), 403)
        XCTAssertEqual(try get(port, "/_dev/events?device=second"), 503, "its slot is taken")
    }

    /// Reports need the token of a connected stream and are credited to that stream's device,
    /// whatever name the request gives.
    func testReportsComeOnlyFromAConnectedDevicesSessionAndNameIt() throws {
        let reports = Reports()
        let (_, port) = try start(heartbeat: 5, reports: reports)
        XCTAssertEqual(try get(port, "/_dev/report?device=qa-pixel&r=djk5IGFwcGxpZWQ"), 403, "no session: refused")
        XCTAssertEqual(try get(port, "/_dev/report?session=forged&device=qa-pixel&r=djk5IGFwcGxpZWQ"), 403)
        let device = try RawHTTPConnection(port: port)
        let token = try XCTUnwrap(device.openDevStream(device: "qa-tablet"))
        XCTAssertEqual(try get(port, "/_dev/report?session=\(token)&device=qa-pixel&r=djk5IGFwcGxpZWQ"), 204)
        XCTAssertEqual(reports.all.map(\.0), ["qa-tablet"], "credited to the stream's device, not the name in the request")
        XCTAssertEqual(reports.all.map(\.1), ["v99 applied"])
        device.close()
        XCTAssertTrue(eventually { (try? self.get(port, "/_dev/report?session=\(token)&r=eA")) == 403 }, "a closed stream's token is void")
    }

    // MARK: - The device's parser

    func feed(_ parser: inout EventStreamParser, _ text: String, repeat count: Int = 1) -> (events: [String], error: String?) {
        var events: [String] = []
        let bytes = Array(text.utf8)
        do {
            for _ in 0..<count {
                try bytes.withUnsafeBytes { try parser.feed($0) { name, data in events.append("\(name)=\(data)") } }
            }
            return (events, nil)
        } catch {
            return (events, "\(error)")
        }
    }

    func testTheParserCountsEveryLineAndByteTowardItsLimits() {
        var parser = EventStreamParser(maxEventBytes: 1000, maxLines: 1_000_000)
        // Empty data lines: 6 bytes each, nothing kept, but counted.
        XCTAssertEqual(feed(&parser, "data:\n", repeat: 10_000).error, "an event over 1000 bytes")
        parser = EventStreamParser(maxEventBytes: 1 << 20, maxLines: 100)
        XCTAssertEqual(feed(&parser, "\n", repeat: 10_000).error, "over 100 lines without an event", "blank lines that dispatch nothing")
        parser = EventStreamParser(maxEventBytes: 1 << 20, maxLines: 100)
        XCTAssertEqual(feed(&parser, ":\n", repeat: 10_000).error, "over 100 lines without an event", "comments")
        parser = EventStreamParser(maxEventBytes: 1000, maxLines: 100)
        XCTAssertEqual(feed(&parser, "x", repeat: 2000).error, "an event over 1000 bytes", "one endless line")
    }

    func testTheParserReadsEventsSplitAnywhereAndResetsItsCountsPerEvent() {
        var parser = EventStreamParser(maxEventBytes: 100, maxLines: 10)
        let stream = "retry: 1000\n\nevent: session\ndata: abc\n\n: comment\r\nevent: patch\ndata: one\ndata: two\n\ndata: plain\n\n"
        var events: [String] = []
        for byte in stream.utf8 { events += feed(&parser, String(decoding: [byte], as: UTF8.self)).events }
        XCTAssertEqual(events, ["session=abc", "patch=one\ntwo", "message=plain"])
        // Many small events in a row are fine: the limits are per event.
        let many = feed(&parser, "event: ping\ndata: n\n\n", repeat: 10_000)
        XCTAssertNil(many.error)
        XCTAssertEqual(many.events.count, 10_000)
    }

    /// A server that sends events as fast as the socket takes them, for `seconds`, counting what
    /// the kernel accepted: with back-pressure, that stays within socket buffers of what the
    /// device has parsed; without, the device's memory takes the difference.
    final class FloodServer: @unchecked Sendable {
        let port: UInt16
        private let listener: Int32
        private let lock = NSLock()
        private var sentBytes = 0
        var sent: Int { lock.withLock { sentBytes } }

        init(seconds: TimeInterval) throws {
            let server = try PortableSocket.bindLoopback(listen: 4)
            listener = server.fd
            port = server.port
            Thread.detachNewThread { [self] in
                let client = PortableSocket.accept(server.fd)
                guard client >= 0 else { return }
                defer { PortableSocket.close(client) }
                var head = [UInt8](repeating: 0, count: 16384)
                _ = recv(client, &head, head.count, 0)
                let event = Array(("event: flood\ndata: " + String(repeating: "x", count: 1000) + "\n\n").utf8)
                let response = Array("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n".utf8)
                _ = response.withUnsafeBytes { PortableSocket.send(client, $0) }
                _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
                let deadline = Date().addingTimeInterval(seconds)
                var batch: [UInt8] = []
                for _ in 0..<64 { batch += event }
                var offset = 0
                while Date() < deadline {
                    var descriptor = pollfd(fd: client, events: Int16(POLLOUT), revents: 0)
                    guard poll(&descriptor, 1, 50) >= 0 else { return }
                    guard descriptor.revents & Int16(POLLOUT) != 0 else { continue }
                    let n = batch[offset...].withUnsafeBytes { PortableSocket.send(client, $0) }
                    if n < 0 { if errno == EAGAIN || errno == EINTR { continue } else { return } }
                    lock.withLock { sentBytes += n }
                    offset = (offset + n) % batch.count
                }
            }
        }

        deinit { PortableSocket.close(listener) }
    }

    /// http:// streams are read with back-pressure: a server flooding events faster than the
    /// device handles them gets no further ahead than the sockets' buffers.
    func testAFloodingServerGetsNoFurtherAheadThanTheDeviceReads() throws {
        let flood = try FloodServer(seconds: 3)
        let parsed = LockedBox(0)
        let closed = DispatchSemaphore(value: 0)
        let stream = EventStream(url: URL(string: "http://127.0.0.1:\(flood.port)/_dev/events?device=d")!,
                                 transport: HTTPTransport.shared, maxEventBytes: 1 << 20,
                                 silenceTimeout: 5, onOpen: {}, onEvent: { _, data in
                                     parsed.value += data.utf8.count + 20
                                     usleep(200)  // the device is slower than the network
                                 }, onClose: { _ in closed.signal() })
        stream.start()
        usleep(3_000_000)
        let ahead = flood.sent - parsed.value
        print("flooding server: \(flood.sent >> 20) MB sent, \(parsed.value >> 20) MB parsed, \(ahead >> 10) kB ahead")
        XCTAssertGreaterThan(parsed.value, 1 << 20, "the stream was read")
        XCTAssertLessThan(ahead, 16 << 20, "the server ran \(ahead >> 20) MB ahead of the parser")
        stream.cancel()
        XCTAssertEqual(closed.wait(timeout: .now() + 5), .success)
    }
}
