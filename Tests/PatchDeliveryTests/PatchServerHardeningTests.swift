import Crypto
import Foundation
import HTTPTestSupport
import PatchDevServer
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The QA server left running on a shared network: every test is a hostile client on 127.0.0.1
/// with real sockets, and each defence has a test that fails without it. Timeouts are shortened
/// through `PatchServer.Limits`; every loop is bounded in count and time.
final class PatchServerHardeningTests: XCTestCase {
    var root: URL!
    var www: URL!

    override func setUpWithError() throws {
        root = try makeTemporaryDirectory(self)
        www = root.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try Data("the patch".utf8).write(to: www.appendingPathComponent("patch.json"))
        try Data("secret".utf8).write(to: root.appendingPathComponent("secret.key"))
    }

    /// A started server on `www` whose log lines are kept; stopped at teardown.
    func startServer(_ limits: PatchServer.Limits = PatchServer.Limits(), log: PatchServerTests.Lines? = nil) throws -> (PatchServer, UInt16) {
        let server = PatchServer(directory: www, limits: limits, log: log.map { lines in { lines.add($0) } })
        let port = try server.start()
        addTeardownBlock { server.stop(gracePeriod: 0.1) }
        return (server, port)
    }

    func get(_ port: UInt16, _ target: String, method: String = "GET", headers: String = "") throws -> RawHTTPConnection.Response {
        let connection = try RawHTTPConnection(port: port)
        connection.send("\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(headers)\r\n")
        return try connection.readResponse(bodyless: method == "HEAD")
    }

    // MARK: - Request heads

    func testOversizedRequestLineIsAnswered414AndClosed() throws {
        let log = PatchServerTests.Lines()
        let (_, port) = try startServer(log: log)
        let connection = try RawHTTPConnection(port: port)
        connection.send("GET /" + String(repeating: "a", count: 9000))  // no line end yet
        XCTAssertTrue(connection.waitForClose(timeout: 3), "closed at once, not waiting for the rest")
        XCTAssertTrue(connection.received.hasPrefix("HTTP/1.1 414 "), connection.received)
        XCTAssertTrue(log.all.contains("- - 414 (request line over 8192 bytes)"), "\(log.all)")
    }

    func testOversizedHeadersAreAnswered431AndClosed_ButAHeadJustUnderTheCapIsServed() throws {
        let (_, port) = try startServer()
        let connection = try RawHTTPConnection(port: port)
        connection.send("GET /patch.json HTTP/1.1\r\nHost: x\r\nX-Pad: " + String(repeating: "b", count: 9000) + "\r\n\r\n")
        XCTAssertTrue(connection.waitForClose(timeout: 3))
        XCTAssertTrue(connection.received.hasPrefix("HTTP/1.1 431 "), connection.received)

        let fits = try get(port, "/patch.json", headers: "X-Pad: " + String(repeating: "c", count: 7000) + "\r\n")
        XCTAssertEqual(fits.status, 200)
        XCTAssertEqual(fits.text, "the patch")
    }

    func testManyHeadersAreAnswered431() throws {
        let (_, port) = try startServer()
        let connection = try RawHTTPConnection(port: port)
        let headers = (0..<150).map { "X-H\($0): 1\r\n" }.joined()  // ~1.6 KB: small, but too many
        connection.send("GET /patch.json HTTP/1.1\r\nHost: x\r\n" + headers + "\r\n")
        XCTAssertTrue(connection.waitForClose(timeout: 3))
        XCTAssertTrue(connection.received.hasPrefix("HTTP/1.1 431 "), connection.received)
    }

    func testASlowDripIsClosedAtTheHeadDeadline() throws {
        let (_, port) = try startServer(PatchServer.Limits(headTimeout: 0.5, idleTimeout: 30))
        let connection = try RawHTTPConnection(port: port)
        let started = Date()
        connection.send("GET /patch.json HTTP/1.1\r\nX-Drip: ")
        // One byte every 100 ms keeps the connection busy reading; at most 40 bytes (4 s).
        var closed = false
        for _ in 0..<40 where !closed {
            closed = connection.waitForClose(timeout: 0.1)
            if !closed { connection.send("z") }
        }
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertTrue(closed, "still open after 4 s of dripping")
        XCTAssertLessThan(elapsed, 2.0)
        XCTAssertGreaterThanOrEqual(elapsed, 0.4)
        XCTAssertTrue(connection.received.hasPrefix("HTTP/1.1 408 "), connection.received)
    }

    func testIdleKeepAliveConnectionsAreClosedAfterTheTimeout() throws {
        let (server, port) = try startServer(PatchServer.Limits(headTimeout: 5, idleTimeout: 0.4))
        let connection = try RawHTTPConnection(port: port)
        for _ in 0..<2 {  // keep-alive: two requests on one connection
            connection.send("GET /patch.json HTTP/1.1\r\nHost: x\r\n\r\n")
            XCTAssertEqual(try connection.readResponse().text, "the patch")
        }
        let idleFrom = Date()
        XCTAssertTrue(connection.waitForClose(timeout: 3), "idle connection closed")
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(idleFrom), 0.3)

        let silent = try RawHTTPConnection(port: port)  // never sends a byte
        XCTAssertTrue(silent.waitForClose(timeout: 3))
        XCTAssertTrue(eventually { server.openConnections == 0 })
    }

    func testARequestWithABodyIsAnsweredAndClosed() throws {
        let (_, port) = try startServer()
        let connection = try RawHTTPConnection(port: port)
        connection.send("POST /patch.json HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
        XCTAssertEqual(try connection.readResponse().status, 405)
        XCTAssertTrue(connection.waitForClose(timeout: 3))
    }

    /// Seeded random abuse, connection after connection: garbage bytes, heads cut off mid-line,
    /// pipelined requests, bodies, NULs and huge tokens. The server answers or closes each one and
    /// still serves a plain GET afterwards.
    func testAHostileMixOfConnectionsLeavesTheServerServing() throws {
        let (server, port) = try startServer(PatchServer.Limits(headTimeout: 0.2, idleTimeout: 0.2))
        var rng = SeededGenerator(state: 0xBAD_5EED)
        let shapes: [(inout SeededGenerator) -> [UInt8]] = [
            { rng in (0..<Int.random(in: 1...600, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) } },
            { rng in Array("GET /patch.json HTTP/1.1\r\nHost: x\r\nX-".utf8) + Array(repeating: UInt8(ascii: "a"), count: Int.random(in: 0...200, using: &rng)) },
            { _ in Array("GET /patch.json HTTP/1.1\r\nHost: x\r\n\r\nGET /sub/../patch.json HTTP/1.1\r\nHost: x\r\n\r\nGET /.git HTTP/1.1\r\n\r\n".utf8) },
            { rng in Array("POST / HTTP/1.1\r\nContent-Length: \(Int.random(in: 0...1_000_000, using: &rng))\r\n\r\n".utf8) },
            { _ in Array("GET /pat\u{0}ch.json HTTP/1.1\r\n\r\n".utf8) },
            { rng in Array("GET /".utf8) + Array(repeating: UInt8(ascii: "%"), count: Int.random(in: 1...9000, using: &rng)) + Array(" HTTP/1.1\r\n\r\n".utf8) },
            { _ in Array("\r\n\r\n\r\n".utf8) },
            { rng in Array("GET /patch.json HTTP/1.\(Int.random(in: 0...9, using: &rng))\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n".utf8) },
        ]
        let rounds = 240
        for round in 0..<rounds {
            let connection = try RawHTTPConnection(port: port)
            let bytes = shapes[round % shapes.count](&rng)
            _ = connection.send(bytes)
            // Most clients hang up at once; every fourth waits (bounded) for the server to answer or close.
            if round % 4 == 1 { XCTAssertTrue(connection.waitForClose(timeout: 3), "round \(round) left open") }
            connection.close()
        }
        XCTAssertEqual(try get(port, "/patch.json").text, "the patch")
        XCTAssertTrue(eventually { server.openConnections <= 1 }, "every hostile connection was let go")
    }

    // MARK: - Connections and descriptors

    /// At the cap, a new client takes the place of the connection idle the longest: clients that
    /// hold idle connections can't lock out one that sends a request.
    func testAtTheCapTheLongestIdleConnectionMakesRoom() throws {
        let log = PatchServerTests.Lines()
        let (server, port) = try startServer(PatchServer.Limits(maxConnections: 4, idleTimeout: 30), log: log)
        var held: [RawHTTPConnection] = []
        for _ in 0..<4 {
            held.append(try RawHTTPConnection(port: port))
            XCTAssertTrue(eventually { server.openConnections == held.count })
        }
        XCTAssertEqual(try get(port, "/patch.json").text, "the patch", "served while four idle connections fill the cap")
        XCTAssertTrue(held[0].waitForClose(timeout: 3), "the oldest idle connection made room")
        XCTAssertFalse(held[1].waitForClose(timeout: 0.2), "the others stay")
        XCTAssertTrue(log.all.contains("closed the longest-idle connection (4 connections open)"), "\(log.all)")
        withExtendedLifetime(held) {}
    }

    /// When every connection is in the middle of a response, one more is answered 503 and closed;
    /// once one finishes, the server accepts again.
    func testWhenEveryConnectionIsBusyOneMoreIsAnswered503() throws {
        try Data(count: 32 << 20).write(to: www.appendingPathComponent("big.bin"))
        let (server, port) = try startServer(PatchServer.Limits(maxConnections: 2, idleTimeout: 30, sendTimeout: 30))
        var busy = try (0..<2).map { _ in try RawHTTPConnection(port: port) }
        busy.forEach { $0.send("GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n") }  // and never read
        XCTAssertTrue(eventually { server.openConnections == 2 })
        usleep(200_000)

        let refused = try RawHTTPConnection(port: port)
        XCTAssertTrue(refused.waitForClose(timeout: 3), "one past the cap is closed at once")
        XCTAssertTrue(refused.received.hasPrefix("HTTP/1.1 503 "), refused.received)

        busy.removeLast().close()
        XCTAssertTrue(eventually { server.openConnections == 1 })
        XCTAssertEqual(try get(port, "/patch.json").text, "the patch", "accepting again once a connection closes")
        withExtendedLifetime(busy) {}
    }

    func testStopClosesIdleConnectionsWithoutWaitingForTheGracePeriod() throws {
        let server = PatchServer(directory: www, log: nil)
        let port = try server.start()
        let idle = try RawHTTPConnection(port: port)
        idle.send("GET /patch.json HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(try idle.readResponse().text, "the patch")  // and the connection stays open
        let started = Date()
        server.stop(gracePeriod: 5)
        XCTAssertLessThan(Date().timeIntervalSince(started), 1.0, "an idle keep-alive connection held stop()")
        XCTAssertTrue(idle.waitForClose(timeout: 1))
    }

    /// A real shortage: the server runs with `ulimit -n 40`, the test opens 80 connections.
    func testRunningOutOfFileDescriptorsIsSurvived() throws {
        try XCTSkipUnless(ServerProcess.canMeasure, ServerProcess.measurementUnavailable)
        let serve = try ServerProcess.serve(www, scratch: root, openFileLimit: 40)
        defer { serve.stop() }
        XCTAssertEqual(try get(serve.port, "/patch.json").status, 200)

        var flood: [RawHTTPConnection] = []
        for _ in 0..<80 { flood.append(try RawHTTPConnection(port: serve.port)) }  // the backlog takes them all
        XCTAssertTrue(eventually { serve.log.contains("accept failed (Too many open files)") }, serve.log)
        XCTAssertTrue(eventually { serve.openDescriptors >= 38 }, "\(serve.openDescriptors) descriptors")

        // While starved it waits between attempts instead of spinning on accept().
        let cpuBefore = try XCTUnwrap(serve.cpuSeconds)
        usleep(1_000_000)
        let cpuUsed = try XCTUnwrap(serve.cpuSeconds) - cpuBefore
        XCTAssertLessThan(cpuUsed, 0.3, "CPU seconds used in one second of descriptor exhaustion")
        XCTAssertTrue(serve.process.isRunning)

        flood.forEach { $0.close() }
        flood = []
        var status = 0
        for _ in 0..<50 where status != 200 {  // at most ~5 s
            status = (try? get(serve.port, "/patch.json").status) ?? 0
            if status != 200 { usleep(100_000) }
        }
        XCTAssertEqual(status, 200, "serving again once descriptors are free; log:\n\(serve.log.suffix(2000))")
    }

    // MARK: - Paths

    func testSymlinksOutOfTheFolderAreRefused() throws {
        let (_, port) = try startServer()
        let fm = FileManager.default
        try fm.createSymbolicLink(atPath: www.appendingPathComponent("link.json").path, withDestinationPath: "../secret.key")
        try fm.createSymbolicLink(atPath: www.appendingPathComponent("absolute.json").path,
                                  withDestinationPath: root.appendingPathComponent("secret.key").path)
        try fm.createSymbolicLink(atPath: www.appendingPathComponent("up").path, withDestinationPath: root.path)
        try fm.createSymbolicLink(atPath: www.appendingPathComponent("sub/inside.json").path, withDestinationPath: "../patch.json")
        for target in ["/link.json", "/absolute.json", "/up/secret.key"] {
            let reply = try get(port, target)
            XCTAssertEqual(reply.status, 404, target)
            XCTAssertNotEqual(reply.text, "secret", target)
        }
        XCTAssertEqual(try get(port, "/sub/inside.json").text, "the patch", "a symlink that stays inside is fine")
        XCTAssertEqual(try get(port, "/up/www/patch.json").text, "the patch", "judged by where it resolves")
    }

    func testDotfilesAreRefused() throws {
        let (_, port) = try startServer()
        try FileManager.default.createDirectory(at: www.appendingPathComponent(".git"), withIntermediateDirectories: true)
        try Data("hidden".utf8).write(to: www.appendingPathComponent(".env"))
        try Data("hidden".utf8).write(to: www.appendingPathComponent(".git/config"))
        try FileManager.default.createSymbolicLink(atPath: www.appendingPathComponent("visible.json").path, withDestinationPath: ".env")
        for target in ["/.env", "/%2eenv", "/%2Eenv", "/.git/config", "/sub/../.env", "/visible.json"] {
            let reply = try get(port, target)
            XCTAssertEqual(reply.status, 404, target)
            XCTAssertNotEqual(reply.text, "hidden", target)
        }
    }

    func testTraversalAndMalformedTargetsAreRefused() throws {
        let (_, port) = try startServer()
        let refused: [(String, Int)] = [
            ("/../secret.key", 404), ("/%2e%2e/secret.key", 404), ("/sub/%2E%2E/%2E%2E/secret.key", 404),
            ("/sub/..%2f..%2fsecret.key", 404), ("/..%5csecret.key", 404), ("//../secret.key", 404),
            ("/patch.json%00.png", 404), ("/%00", 404), ("/./patch.json", 404),
            ("http://127.0.0.1/../secret.key", 400), ("secret.key", 400), ("/bad%zzescape", 400), ("/%", 400),
        ]
        for (target, status) in refused {
            let reply = try get(port, target)
            XCTAssertEqual(reply.status, status, target)
            XCTAssertNotEqual(reply.text, "secret", target)
        }
        XCTAssertEqual(try get(port, "//patch.json?x=1").text, "the patch", "empty components and a query are harmless")
        XCTAssertEqual(try get(port, "/sub/../../secret.key").status, 404)
    }

    // MARK: - Files

    func testHEADAnd304KeepTheConnectionUsable() throws {
        let (_, port) = try startServer()
        let connection = try RawHTTPConnection(port: port)
        connection.send("HEAD /patch.json HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try connection.readResponse(bodyless: true)
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.header("Content-Length"), "9")
        let etag = try XCTUnwrap(head.header("ETag"))
        XCTAssertEqual(etag, expectedETag(SHA256.hash(data: Data("the patch".utf8))))

        connection.send("GET /patch.json HTTP/1.1\r\nHost: x\r\nIf-None-Match: \(etag)\r\n\r\n")
        let notModified = try connection.readResponse(bodyless: true)
        XCTAssertEqual(notModified.status, 304)
        XCTAssertEqual(notModified.header("ETag"), etag)

        connection.send("GET /patch.json HTTP/1.1\r\nHost: x\r\n\r\n")
        let full = try connection.readResponse()
        XCTAssertEqual(full.text, "the patch", "no stray body bytes after HEAD or 304")
    }

    /// 64 MB through a `patchctl serve` child: the body and its ETag are right, and the server's
    /// peak memory grows by far less than the file.
    func testALargeFileIsStreamedNotHeldInMemory() throws {
        try XCTSkipUnless(ServerProcess.canMeasure, ServerProcess.measurementUnavailable)
        let size = 64 << 20
        var file = Data(count: size)
        file.withUnsafeMutableBytes { bytes in
            var state: UInt64 = 0x9E37_79B9_7F4A_7C15
            for i in stride(from: 0, to: size, by: 8) {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                bytes.storeBytes(of: state, toByteOffset: i, as: UInt64.self)
            }
        }
        let digest = SHA256.hash(data: file)
        try file.write(to: www.appendingPathComponent("big.bin"))
        file = Data()

        let serve = try ServerProcess.serve(www, scratch: root)
        defer { serve.stop() }
        XCTAssertEqual(try get(serve.port, "/patch.json").status, 200)  // warmed up
        let peakBefore = try XCTUnwrap(serve.memoryKB("VmHWM"))

        let reply = try RawHTTPConnection(port: serve.port)
        reply.send("GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try reply.readResponse(timeout: 60)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.bodyLength, size)
        XCTAssertEqual(response.bodySHA256, digest)
        XCTAssertEqual(response.header("ETag"), expectedETag(digest))

        let grown = try XCTUnwrap(serve.memoryKB("VmHWM")) - peakBefore
        XCTAssertLessThan(grown, 16 * 1024, "peak memory grew by \(grown) kB while serving 64 MB")
        print("serving 64 MB: server peak memory \(peakBefore) kB before, +\(grown) kB")

        let again = try get(serve.port, "/big.bin", headers: "If-None-Match: \(expectedETag(digest))\r\n")
        XCTAssertEqual(again.status, 304)
    }

    func testAClientThatStopsReadingIsClosedAfterTheSendTimeout() throws {
        // 32 MB: far more than the socket buffers on both sides hold, so the server must wait.
        try Data(count: 32 << 20).write(to: www.appendingPathComponent("big.bin"))
        let (server, port) = try startServer(PatchServer.Limits(idleTimeout: 30, sendTimeout: 0.5))
        let connection = try RawHTTPConnection(port: port)
        connection.send("GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertTrue(eventually { server.openConnections == 1 })
        let started = Date()
        XCTAssertTrue(eventually(5) { server.openConnections == 0 }, "a client that never reads is closed")
        XCTAssertLessThan(Date().timeIntervalSince(started), 3)
        withExtendedLifetime(connection) {}
    }

    func testASlowButSteadyReaderIsNotCutOff() throws {
        let size = 16 << 20
        try Data(count: size).write(to: www.appendingPathComponent("big.bin"))
        let (_, port) = try startServer(PatchServer.Limits(idleTimeout: 30, sendTimeout: 1.5))
        let connection = try RawHTTPConnection(port: port)
        connection.send("GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
        // A pause of 0.25 s per MB: 4 s in all, well past the send timeout, but always progressing.
        let started = Date()
        let response = try connection.readResponse(timeout: 20, throttle: (every: 1 << 20, pause: 0.25))
        XCTAssertGreaterThan(Date().timeIntervalSince(started), 2.0)
        XCTAssertEqual(response.bodyLength, size)
        XCTAssertEqual(response.bodySHA256, SHA256.hash(data: Data(count: size)))
    }

    // MARK: - Logs

    func testRequestTextIsEscapedInTheLog() throws {
        let log = PatchServerTests.Lines()
        let (server, port) = try startServer(log: log)
        XCTAssertEqual(try get(port, "/x%0d%0aGET%20/forged%20200%1b%5b31m").status, 404)
        let line = try XCTUnwrap(log.all.last)
        XCTAssertEqual(line, "GET /x\\u{d}\\u{a}GET /forged 200\\u{1b}[31m 404")
        XCTAssertEqual(server.requests.last?.path, "/x\r\nGET /forged 200\u{1b}[31m", "the record keeps the real path")

        let malformed = try RawHTTPConnection(port: port)
        malformed.send("GET /patch.json HTTP/1.1\r\nNo colon \u{1b}[31m here\r\n\r\n")
        XCTAssertTrue(malformed.waitForClose(timeout: 3))
        XCTAssertTrue(malformed.received.hasPrefix("HTTP/1.1 400 "), malformed.received)
        XCTAssertTrue(eventually { log.all.contains { $0.hasPrefix("- - 400 (malformed request: ") } }, "\(log.all)")
        XCTAssertFalse(log.all.joined().contains("\u{1b}"), "nothing raw from the request reaches the log")
    }
}
