import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PatchDevServer
import XCTest

final class PatchServerTests: XCTestCase {
    struct Reply {
        var status: Int
        var etag: String?
        var body: String
    }

    /// One real HTTP request over loopback (no URL cache: every request reaches the server).
    func request(_ url: URL, method: String = "GET", ifNoneMatch: String? = nil) throws -> Reply {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 5)
        request.httpMethod = method
        if let ifNoneMatch { request.setValue(ifNoneMatch, forHTTPHeaderField: "If-None-Match") }
        let config = URLSessionConfiguration.ephemeral
        config.urlCache = nil
        let session = URLSession(configuration: config)
        defer { session.finishTasksAndInvalidate() }
        let done = DispatchSemaphore(value: 0)
        let box = LockedBox<(Data?, URLResponse?, Error?)>((nil, nil, nil))
        session.dataTask(with: request) { box.value = ($0, $1, $2); done.signal() }.resume()
        done.wait()
        let result = box.value
        if let error = result.2 { throw error }
        let http = try XCTUnwrap(result.1 as? HTTPURLResponse)
        return Reply(status: http.statusCode, etag: http.value(forHTTPHeaderField: "ETag"),
                     body: String(decoding: result.0 ?? Data(), as: UTF8.self))
    }

    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func add(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }

    func testServesFilesWithETagsAnd304AndLogsEachRequest() throws {
        let root = try makeTemporaryDirectory(self)
        let dir = root.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try Data("version one".utf8).write(to: dir.appendingPathComponent("patch.json"))
        let log = Lines()
        let server = PatchServer(directory: dir, log: { log.add($0) })
        let port = try server.start()
        defer { server.stop(gracePeriod: 0.1) }
        XCTAssertGreaterThan(port, 0)
        XCTAssertEqual(server.port, port)
        let url = URL(string: "http://127.0.0.1:\(port)/patch.json")!

        let first = try request(url)
        XCTAssertEqual(first.status, 200)
        XCTAssertEqual(first.body, "version one")
        let etag = try XCTUnwrap(first.etag)
        XCTAssertTrue(etag.hasPrefix("\"") && etag.hasSuffix("\""), "a strong, quoted ETag: \(etag)")

        XCTAssertEqual(try request(url, ifNoneMatch: etag).status, 304)
        XCTAssertEqual(try request(url, ifNoneMatch: "W/\(etag)").status, 304, "weak comparison")
        XCTAssertEqual(try request(url, ifNoneMatch: "\"other\", \(etag)").status, 304, "a list of tags")
        XCTAssertEqual(try request(url, ifNoneMatch: "*").status, 304)
        XCTAssertEqual(try request(url, ifNoneMatch: "\"stale\"").status, 200)

        // A replaced file gets a new ETag at once.
        try Data("version two".utf8).write(to: dir.appendingPathComponent("patch.json"))
        let second = try request(url, ifNoneMatch: etag)
        XCTAssertEqual(second.status, 200)
        XCTAssertEqual(second.body, "version two")
        XCTAssertNotEqual(second.etag, etag)

        XCTAssertEqual(try request(url, method: "HEAD").status, 200)
        XCTAssertEqual(try request(url, method: "POST").status, 405)
        XCTAssertEqual(try request(URL(string: "http://127.0.0.1:\(port)/missing.json")!).status, 404)

        XCTAssertEqual(log.all, [
            "GET /patch.json 200", "GET /patch.json 304", "GET /patch.json 304", "GET /patch.json 304",
            "GET /patch.json 304", "GET /patch.json 200", "GET /patch.json 200", "HEAD /patch.json 200",
            "POST /patch.json 405", "GET /missing.json 404",
        ])
        XCTAssertEqual(server.requests.map(\.status), [200, 304, 304, 304, 304, 200, 200, 200, 405, 404])
    }

    func testDoesNotServeOutsideItsDirectory() throws {
        let root = try makeTemporaryDirectory(self)
        let dir = root.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try Data("secret".utf8).write(to: root.appendingPathComponent("secret.key"))
        try Data("nested".utf8).write(to: dir.appendingPathComponent("sub/ok.json"))
        let server = PatchServer(directory: dir, log: nil)
        let port = try server.start()
        defer { server.stop(gracePeriod: 0.1) }
        let base = "http://127.0.0.1:\(port)"
        XCTAssertEqual(try request(URL(string: "\(base)/sub/ok.json")!).body, "nested")
        XCTAssertEqual(try request(URL(string: "\(base)/%2e%2e/secret.key")!).status, 404)
        XCTAssertEqual(try request(URL(string: "\(base)/sub/%2E%2E/%2E%2E/secret.key")!).status, 404)
        XCTAssertEqual(try request(URL(string: "\(base)/sub")!).status, 404, "directories are not listed")
        XCTAssertEqual(try request(URL(string: "\(base)/")!).status, 404)
    }

    func testPortZeroPicksDistinctFreePortsAndABusyPortFailsClearly() throws {
        let dir = try makeTemporaryDirectory(self)
        let a = PatchServer(directory: dir, log: nil), b = PatchServer(directory: dir, log: nil)
        let portA = try a.start(), portB = try b.start()
        defer { a.stop(gracePeriod: 0.1); b.stop(gracePeriod: 0.1) }
        XCTAssertNotEqual(portA, portB)
        XCTAssertEqual(a.baseURL, URL(string: "http://127.0.0.1:\(portA)/"))

        let busy = PatchServer(directory: dir, port: portA, log: nil)
        XCTAssertThrowsError(try busy.start()) { XCTAssertTrue("\($0)".contains("\(portA)"), "\($0)") }
        XCTAssertNil(busy.port)

        XCTAssertThrowsError(try PatchServer(directory: dir.appendingPathComponent("none"), log: nil).start()) {
            XCTAssertTrue("\($0)".hasSuffix("/none: not a directory"), "\($0)")
        }
    }

    func testStopClosesTheSocket() throws {
        let dir = try makeTemporaryDirectory(self)
        try Data("x".utf8).write(to: dir.appendingPathComponent("f"))
        let server = PatchServer(directory: dir, log: nil)
        let port = try server.start()
        let url = URL(string: "http://127.0.0.1:\(port)/f")!
        XCTAssertEqual(try request(url).status, 200)
        server.stop(gracePeriod: 0.1)
        XCTAssertNil(server.port)
        XCTAssertThrowsError(try request(url), "connection refused after stop")
        server.stop()  // twice is fine
    }

    func testInjectedFailures() throws {
        let dir = try makeTemporaryDirectory(self)
        try Data("x".utf8).write(to: dir.appendingPathComponent("f"))
        let server = PatchServer(directory: dir, log: nil)
        let port = try server.start()
        defer { server.stop(gracePeriod: 0.1) }
        server.failNextRequests(2, status: 503, path: "/f")
        let url = URL(string: "http://127.0.0.1:\(port)/f")!
        XCTAssertEqual(try (0..<3).map { _ in try request(url).status }, [503, 503, 200])
    }
}
