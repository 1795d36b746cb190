import Foundation
@testable import PatchDelivery
import XCTest

/// Endless data and slow retrieval (TUF): a server that sends too much, too slowly or nothing at
/// all costs the device a bounded amount of memory and time, and a clear event.
final class BoundedDownloadTests: XCTestCase {
    func hostileServer() throws -> HostileServer {
        let server = try HostileServer()
        addTeardownBlock { server.stop() }
        return server
    }

    func loader(_ server: HostileServer, files: [String], timeout: TimeInterval = 5, deadline: TimeInterval = 30) throws -> PatchLoader {
        let dir = try makeTemporaryDirectory(self)
        var config = PatchLoader.Configuration(
            baseURL: server.baseURL, appID: "com.example.shop", appVersion: "1.4.0",
            trustStore: TrustStore(keys: [SigningKey.generate(id: "k").trustedKey]), stateDirectory: dir,
            patchFiles: files.enumerated().map { .init($1, patchID: "p\($0)") }, revocationListFile: nil)
        config.allowsInsecureHTTP = true
        config.retryPolicy = .none
        config.maxDownloadBytes = 64 << 10
        config.timeout = timeout
        config.updateDeadline = deadline
        return try PatchLoader(configuration: config, applier: RecordingApplier())
    }

    func testAnEndlessBodyIsCancelledAtTheLimit() throws {
        let server = try hostileServer()
        XCTAssertEqual(try loader(server, files: ["endless"]).update(),
                       [.fetchFailed(file: "endless", message: "the response passed the 65536-byte limit; the transfer was cancelled")])
        server.stop()
        // The client stopped reading: the server got rid of far less than it was willing to send.
        XCTAssertLessThan(server.sent("/endless"), 32 << 20, "bytes the server managed to send")
    }

    func testAnAnnouncedLengthOverTheLimitIsRefusedBeforeTheBody() throws {
        let server = try hostileServer()
        XCTAssertEqual(try loader(server, files: ["huge-length"]).update(),
                       [.fetchFailed(file: "huge-length", message: "the server announced 1073741824 bytes, more than the 65536-byte limit")])
        server.stop()
        XCTAssertLessThan(server.sent("/huge-length"), 32 << 20)
    }

    func testASlowDripEndsAtTheRequestTimeoutHoweverOftenBytesArrive() throws {
        let server = try hostileServer()
        XCTAssertEqual(try loader(server, files: ["drip"], timeout: 1).update(),
                       [.fetchFailed(file: "drip", message: "timed out after 1.0 s")])
        XCTAssertGreaterThan(server.sent("/drip"), 0, "bytes kept arriving")
    }

    func testASilentServerCannotHoldTheUpdatePastItsDeadline() throws {
        let server = try hostileServer()
        // Each request alone could wait 60 s; the whole update may take 1 s.
        let events = try loader(server, files: ["silent", "other"], timeout: 60, deadline: 1).update()
        XCTAssertEqual(events, [
            .fetchFailed(file: "silent", message: "stopped at the update's 1 s deadline"),
            .fetchFailed(file: "other", message: "not attempted: the update's 1 s deadline had passed"),
        ])
        XCTAssertEqual(server.requests("/other"), 0)
    }

    func testLyingContentLengthsEndInAClearFailureOrARefusal() throws {
        let server = try hostileServer()
        let short = try loader(server, files: ["short-length"]).update()
        guard case .fetchFailed("short-length", _)? = short.first, short.count == 1 else { return XCTFail("\(short)") }
        // Fewer bytes than announced are never taken for the file; more than announced are not read.
        let long = try loader(server, files: ["long-length"]).update()
        XCTAssertEqual(long.count, 1, "\(long)")
        XCTAssertLessThan(server.sent("/long-length"), 32 << 20)
    }

    func testAHostileETagIsNeitherStoredNorSentBack() throws {
        let server = try hostileServer()
        let dir = try makeTemporaryDirectory(self)
        let key = SigningKey.generate(id: "k")
        let patch = try PatchSigner(key: key).sign(patchID: "p0", version: 1, appID: "com.example.shop", appVersions: .any,
                                                   created: Date(), expires: nil, scripts: [("fix.js", "var fixed = 1;\n")])
        server.hostileETagBody = try patch.fileData()
        var config = PatchLoader.Configuration(
            baseURL: server.baseURL, appID: "com.example.shop", appVersion: "1.4.0",
            trustStore: TrustStore(keys: [key.trustedKey]), stateDirectory: dir,
            patchFiles: [.init("hostile-etag", patchID: "p0")], revocationListFile: nil)
        config.allowsInsecureHTTP = true
        config.retryPolicy = .none
        XCTAssertEqual(try PatchLoader(configuration: config, applier: RecordingApplier()).update().first,
                       .applied(patchID: "p0", version: 1, source: .network))
        let state = try String(contentsOf: dir.appendingPathComponent("state.json"), encoding: .utf8)
        XCTAssertFalse(state.contains("[31m"), "the ETag went into the state file")
        XCTAssertNil(PatchFetcher.usableETag("\"a\u{1b}\""))
        XCTAssertNil(PatchFetcher.usableETag(String(repeating: "a", count: 257)))
        XCTAssertEqual(PatchFetcher.usableETag("W/\"abc-123\""), "W/\"abc-123\"")
    }

    func testARedirectLoopIsCutShort() throws {
        let server = try hostileServer()
        XCTAssertEqual(try loader(server, files: ["redirect"]).update(),
                       [.fetchFailed(file: "redirect", message: "more than 5 redirects")])
        XCTAssertEqual(server.requests("/redirect"), 6, "the first request and 5 redirects followed")
    }
}
