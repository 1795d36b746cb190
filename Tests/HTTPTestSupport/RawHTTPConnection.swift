import Crypto
import Foundation

/// A client connection to 127.0.0.1 on plain POSIX sockets (`PortableSocket`), so a test controls
/// every byte and every pause (URLSession would normalize paths, add headers and retry). Every
/// read is bounded by a deadline; nothing here can hang a test.
public final class RawHTTPConnection {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// One response as read off the wire. The body is hashed as it arrives; only its first
    /// `keptBodyLimit` bytes are kept, so a 64 MB body doesn't sit in the test's memory either.
    public struct Response {
        public var statusLine: String
        public var headers: [(String, String)]
        public var body: Data
        public var bodyLength: Int
        public var bodySHA256: SHA256.Digest
        public var status: Int { Int(statusLine.split(separator: " ").dropFirst().first ?? "") ?? 0 }
        public func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    public static let keptBodyLimit = 64 * 1024

    public let fd: Int32
    private var pending = Data()

    public init(port: UInt16) throws {
        fd = PortableSocket.tcp()
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        guard PortableSocket.connectLoopback(fd, port: port) == 0 else {
            let message = String(cString: strerror(errno))
            PortableSocket.close(fd)
            throw Failure(description: "connect: \(message)")
        }
        PortableSocket.setTimeout(fd, SO_SNDTIMEO, seconds: 5)
    }

    deinit { close() }

    private var closed = false
    public func close() {
        guard !closed else { return }
        closed = true
        PortableSocket.close(fd)
    }

    /// Sends everything or stops at the first error (the server may close first); true if all went.
    @discardableResult
    public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool { PortableSocket.sendAll(fd, bytes) }

    /// Waits up to `timeout` for bytes; appends them to `pending`. False when the peer closed
    /// (or reset), or nothing came in time — `timedOut` tells which.
    private func fill(until deadline: Date, timedOut: inout Bool) -> Bool {
        let remaining = deadline.timeIntervalSinceNow
        guard remaining > 0 else { timedOut = true; return false }
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, Int32(remaining * 1000) + 1)
        guard ready > 0 else { timedOut = ready == 0; return false }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        pending.append(contentsOf: buffer[0..<count])
        return true
    }

    /// Whether the peer has closed the connection (or reset it) within `timeout` seconds; bytes
    /// that arrive meanwhile are kept for `readResponse`.
    public func waitForClose(timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        var timedOut = false
        while fill(until: deadline, timedOut: &timedOut) {}
        return !timedOut
    }

    /// Waits up to `timeout` until what was received contains `text` (kept for `received`); false
    /// if the peer closed or time ran out first.
    public func waitFor(_ text: String, timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        var timedOut = false
        while !received.contains(text) {
            guard fill(until: deadline, timedOut: &timedOut) else { return false }
        }
        return true
    }

    /// Everything received so far, as text (after `waitForClose`).
    public var received: String { String(decoding: pending, as: UTF8.self) }

    /// Reads one response (head, then a Content-Length body unless `bodyless`: HEAD and 304);
    /// `throttle` pauses for `pause` seconds after each `every` bytes of body, as a slow client.
    public func readResponse(timeout: TimeInterval = 5, bodyless: Bool = false,
                      throttle: (every: Int, pause: TimeInterval)? = nil) throws -> Response {
        let deadline = Date().addingTimeInterval(timeout)
        var timedOut = false
        let separator = Data("\r\n\r\n".utf8)
        var headEnd = pending.range(of: separator)
        while headEnd == nil {
            guard pending.count < 64 * 1024, fill(until: deadline, timedOut: &timedOut) else {
                throw Failure(description: timedOut ? "no response head in time" : "closed before a response head: \(received)")
            }
            headEnd = pending.range(of: separator)
        }
        let head = String(decoding: pending[pending.startIndex..<headEnd!.lowerBound], as: UTF8.self)
        pending.removeSubrange(pending.startIndex..<headEnd!.upperBound)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let headers = lines.compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var response = Response(statusLine: statusLine, headers: headers, body: Data(), bodyLength: 0,
                                bodySHA256: SHA256.hash(data: Data()))
        let length = bodyless ? 0 : Int(response.header("Content-Length") ?? "0") ?? 0
        var hasher = SHA256()
        var remaining = length
        var sinceLastPause = 0
        while remaining > 0 {
            if let throttle, sinceLastPause >= throttle.every {
                usleep(UInt32(throttle.pause * 1_000_000))
                sinceLastPause = 0
            }
            if pending.isEmpty {
                guard fill(until: deadline, timedOut: &timedOut) else {
                    throw Failure(description: "body ended after \(length - remaining) of \(length) bytes")
                }
            }
            let take = min(remaining, pending.count)
            let piece = pending.prefix(take)
            hasher.update(data: piece)
            if response.body.count < Self.keptBodyLimit { response.body.append(piece.prefix(Self.keptBodyLimit - response.body.count)) }
            pending.removeFirst(take)
            remaining -= take
            sinceLastPause += take
        }
        response.bodyLength = length
        response.bodySHA256 = hasher.finalize()
        return response
    }
}

/// The server's ETag for `data`, computed here independently: the first 16 bytes of its SHA-256, quoted.
public func expectedETag(_ digest: SHA256.Digest) -> String {
    "\"" + digest.prefix(16).map { String(format: "%02x", $0) }.joined() + "\""
}
