import Foundation
import HTTPTestSupport

/// An HTTP server on 127.0.0.1 that misbehaves on purpose, one way per path (plain POSIX
/// sockets through `PortableSocket`, so every byte and every pause is under the test's control).
/// Everything it does is bounded in count and time, so a client that fails to defend itself ends
/// a test with a wrong answer rather than a hang:
///
/// - `/silent`: reads the request and never answers (held at most `holdLimit`).
/// - `/drip`: announces 10 000 bytes, then sends one byte every 20 ms (at most `holdLimit`).
/// - `/endless`: a chunked body that never ends (at most `byteLimit` bytes or `holdLimit`).
/// - `/huge-length`: announces 1 GiB, then streams (same bounds as `/endless`).
/// - `/redirect`: answers 302 to itself (at most `redirectLimit` times, then 500).
/// - `/short-length`: announces 10 000 bytes, sends 10 and closes.
/// - `/long-length`: announces 100 bytes, then streams far more (same bounds as `/endless`).
/// - `/hostile-etag`: `hostileETagBody` with a 4 KB ETag full of control characters.
/// - anything else: 404.
///
/// `sent(path)` tells how many body bytes went out on that path: proof that a client stopped reading.
final class HostileServer: @unchecked Sendable {
    let holdLimit: TimeInterval = 10
    let byteLimit = 256 << 20
    let redirectLimit = 50

    private let listener: Int32
    private(set) var port: UInt16 = 0
    private let lock = NSLock()
    private var stopped = false
    private var requestCounts: [String: Int] = [:]
    private var bodyBytes: [String: Int] = [:]
    private let connections = DispatchGroup()
    private var storedETagBody = Data()
    /// What `/hostile-etag` serves (a validly signed patch, say).
    var hostileETagBody: Data {
        get { lock.withLock { storedETagBody } }
        set { lock.withLock { storedETagBody = newValue } }
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    init() throws {
        (listener, port) = try PortableSocket.bindLoopback(listen: 16)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Stops accepting and waits (bounded) for the connection threads to end.
    func stop() {
        lock.withLock { stopped = true }
        PortableSocket.shutdownBoth(listener)
        _ = connections.wait(timeout: .now() + holdLimit + 2)
        PortableSocket.close(listener)
    }

    func requests(_ path: String) -> Int { lock.withLock { requestCounts[path, default: 0] } }
    func sent(_ path: String) -> Int { lock.withLock { bodyBytes[path, default: 0] } }

    private var isStopped: Bool { lock.withLock { stopped } }

    private func acceptLoop() {
        while !isStopped {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let client = PortableSocket.accept(listener)
            guard client >= 0 else { continue }
            connections.enter()
            Thread.detachNewThread { [self] in
                serve(client)
                PortableSocket.close(client)
                connections.leave()
            }
        }
    }

    private func serve(_ client: Int32) {
        // Neither a read nor a write may block for long: a client that stops reading must not hang us.
        PortableSocket.setTimeout(client, SO_RCVTIMEO, seconds: 5)
        PortableSocket.setTimeout(client, SO_SNDTIMEO, seconds: 1)
        guard let path = readRequestPath(client) else { return }
        lock.withLock { requestCounts[path, default: 0] += 1 }
        let started = Date()
        let inTime = { Date().timeIntervalSince(started) < self.holdLimit && !self.isStopped }
        switch path {
        case "/silent":
            // Hold the connection open without a byte until the client gives up (or the bound).
            var byte: UInt8 = 0
            while inTime() {
                var poller = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
                if poll(&poller, 1, 50) > 0 && recv(client, &byte, 1, 0) <= 0 { return }
            }
        case "/drip":
            guard send(client, "HTTP/1.1 200 OK\r\nContent-Length: 10000\r\n\r\n") else { return }
            while inTime(), sendBody(client, path, [UInt8(ascii: " ")]) { usleep(20_000) }
        case "/endless":
            guard send(client, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n") else { return }
            let chunk = Array("10000\r\n".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: 0x10000) + Array("\r\n".utf8)
            // A short pause per 64 KB chunk (at most 64 MB/s): the count then shows when the client let go.
            while inTime(), sent(path) < byteLimit, sendBody(client, path, chunk) { usleep(1000) }
        case "/huge-length":
            guard send(client, "HTTP/1.1 200 OK\r\nContent-Length: \(1 << 30)\r\n\r\n") else { return }
            let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 0x10000)
            while inTime(), sent(path) < byteLimit, sendBody(client, path, chunk) { usleep(1000) }
        case "/redirect":
            if requests(path) > redirectLimit {
                _ = send(client, "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            } else {
                _ = send(client, "HTTP/1.1 302 Found\r\nLocation: /redirect\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            }
        case "/short-length":
            guard send(client, "HTTP/1.1 200 OK\r\nContent-Length: 10000\r\nConnection: close\r\n\r\n") else { return }
            _ = sendBody(client, path, [UInt8](repeating: UInt8(ascii: "x"), count: 10))
        case "/long-length":
            guard send(client, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n") else { return }
            let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 0x10000)
            while inTime(), sent(path) < byteLimit, sendBody(client, path, chunk) { usleep(1000) }
        case "/hostile-etag":
            let etag = "\"" + String(repeating: "a\u{1b}[31m\u{7}", count: 600) + "\""
            let body = [UInt8](hostileETagBody)
            guard send(client, "HTTP/1.1 200 OK\r\nContent-Length: \(body.count)\r\nETag: \(etag)\r\nConnection: close\r\n\r\n") else { return }
            _ = sendBody(client, path, body)
        default:
            _ = send(client, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        }
    }

    /// The path of the request line; reads the head (at most 16 KB).
    private func readRequestPath(_ client: Int32) -> String? {
        var head = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while head.count < 16 << 10, !head.ends(with: Array("\r\n\r\n".utf8)) {
            let n = recv(client, &buffer, buffer.count, 0)
            guard n > 0 else { return nil }
            head += buffer[0..<n]
            if String(decoding: head, as: UTF8.self).contains("\r\n\r\n") { break }
        }
        let line = String(decoding: head, as: UTF8.self).split(separator: "\r\n").first ?? ""
        let parts = line.split(separator: " ")
        return parts.count >= 2 ? String(parts[1]) : nil
    }

    private func send(_ client: Int32, _ text: String) -> Bool {
        writeAll(client, Array(text.utf8))
    }

    private func sendBody(_ client: Int32, _ path: String, _ bytes: [UInt8]) -> Bool {
        guard writeAll(client, bytes) else { return false }
        lock.withLock { bodyBytes[path, default: 0] += bytes.count }
        return true
    }

    /// Writes everything, or false once the client has gone (no SIGPIPE).
    private func writeAll(_ client: Int32, _ bytes: [UInt8]) -> Bool { PortableSocket.sendAll(client, bytes) }
}

private extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}
