import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One GET over plain HTTP (`http://`, a QA server on the local network) whose response body is
/// read on a thread of its own, one socket read at a time, each handed to `onBody` before the next
/// read: a server sending faster than the device parses fills the TCP window and waits, instead
/// of piling received chunks up in memory (URLSession reads ahead without bound). Chunked and
/// plain bodies; the head is bounded; silence longer than `silenceTimeout` ends it.
final class PlainHTTPStreamReader: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible { var description: String }

    private let url: URL
    private let accept: String
    private let silenceTimeout: TimeInterval
    private let lock = NSLock()
    private var fd: Int32 = -1
    private var cancelled = false

    static let maxHeadBytes = 16 * 1024
    static let readSize = 64 * 1024

    init(url: URL, accept: String, silenceTimeout: TimeInterval) {
        self.url = url
        self.accept = accept
        self.silenceTimeout = silenceTimeout
    }

    /// Runs the request on a new thread: `onOpen` once a 200 head is read, `onBody` for each piece
    /// of the body (throw to stop), `onEnd` once with why it ended.
    func start(onOpen: @escaping () -> Void, onBody: @escaping (UnsafeRawBufferPointer) throws -> Void,
               onEnd: @escaping (String) -> Void) {
        let thread = Thread { [self] in
            let why: String
            do {
                try run(onOpen: onOpen, onBody: onBody)
                why = "the server ended the stream"
            } catch {
                why = "\(error)"
            }
            lock.withLock {
                if fd >= 0 { _ = systemClose(fd) }
                fd = -1
            }
            onEnd(why)
        }
        thread.name = "PatchDelivery.PlainHTTPStreamReader"
        thread.start()
    }

    /// Ends the reading (from any thread): the socket is shut down, which wakes the reader.
    func cancel() {
        lock.withLock {
            cancelled = true
            if fd >= 0 { _ = shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    private func run(onOpen: () -> Void, onBody: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let host = url.host, url.scheme == "http" else { throw Failure(description: "not an http:// URL") }
        let port = url.port ?? 80
        let socket = try connect(host: host, port: port)
        let ok = lock.withLock { () -> Bool in
            guard !cancelled else { return false }
            fd = socket
            return true
        }
        guard ok else { _ = systemClose(socket); throw Failure(description: "cancelled") }
        var target = url.path.isEmpty ? "/" : url.path
        if let query = url.query { target += "?" + query }
        let hostHeader = url.port.map { "\(host):\($0)" } ?? host
        try send(socket, "GET \(target) HTTP/1.1\r\nHost: \(hostHeader)\r\nAccept: \(accept)\r\nCache-Control: no-cache\r\n\r\n")

        var buffer = [UInt8](repeating: 0, count: Self.readSize)
        var head: [UInt8] = []
        var rest: ArraySlice<UInt8> = []
        while true {
            let count = try read(socket, &buffer)
            guard count > 0 else { throw Failure(description: "the server closed before answering") }
            head.append(contentsOf: buffer[0..<count])
            if let end = Self.headEnd(head) {
                rest = head[end...]
                head.removeSubrange(end...)
                break
            }
            guard head.count <= Self.maxHeadBytes else { throw Failure(description: "a response head over \(Self.maxHeadBytes) bytes") }
        }
        let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
        let status = lines.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        guard status == 200 else { throw Failure(description: "HTTP \(status)") }
        let chunked = lines.dropFirst().contains { line in
            let parts = line.split(separator: ":", maxSplits: 1)
            return parts.count == 2 && parts[0].lowercased() == "transfer-encoding" && parts[1].lowercased().contains("chunked")
        }
        onOpen()
        var decoder = chunked ? ChunkedDecoder() : nil
        func deliver(_ bytes: UnsafeRawBufferPointer) throws {
            if decoder != nil { try decoder!.decode(bytes, onBody) } else { try onBody(bytes) }
        }
        try Array(rest).withUnsafeBytes { try deliver($0) }
        while decoder?.finished != true {
            let count = try read(socket, &buffer)
            guard count > 0 else { return }
            try buffer.withUnsafeBytes { try deliver(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        }
    }

    /// The index just past "\r\n\r\n", if the head is complete.
    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 3..<bytes.count where bytes[i] == 10 && bytes[i - 1] == 13 && bytes[i - 2] == 10 && bytes[i - 3] == 13 {
            return i + 1
        }
        return nil
    }

    private func connect(host: String, port: Int) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
            throw Failure(description: "cannot resolve \(LogSafe.escape(host))")
        }
        defer { freeaddrinfo(list) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            entry = info.pointee.ai_next
            let socket = Self.makeSocket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            guard socket >= 0 else { continue }
            var timeout = timeval(tv_sec: .init(silenceTimeout), tv_usec: .init(silenceTimeout.truncatingRemainder(dividingBy: 1) * 1e6))
            setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            if systemConnect(socket, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return socket }
            _ = systemClose(socket)
        }
        throw Failure(description: "cannot connect to \(LogSafe.escape(host))")
    }

    /// Waits (at most `silenceTimeout`) for bytes and reads them; 0 at the end of the stream.
    private func read(_ socket: Int32, _ buffer: inout [UInt8]) throws -> Int {
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&descriptor, 1, Int32(silenceTimeout * 1000))
            if ready < 0 && errno == EINTR { continue }
            if lock.withLock({ cancelled }) { throw Failure(description: "cancelled") }
            guard ready > 0 else { throw Failure(description: "no data for \(silenceTimeout) s") }
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw Failure(description: "the connection was lost") }
            return count
        }
    }

    private func send(_ socket: Int32, _ text: String) throws {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { systemSend(socket, $0.baseAddress, $0.count) }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { throw Failure(description: "the connection was lost") }
            offset += sent
        }
    }

    private static func makeSocket(_ family: Int32, _ type: Int32, _ proto: Int32) -> Int32 {
        socket(family, type, proto)
    }
}

/// HTTP/1.1 chunked transfer coding, decoded as bytes arrive (sizes bounded, extensions ignored).
struct ChunkedDecoder {
    private enum State { case size, sizeExtension, sizeLF, data, dataCR, dataLF, trailer }
    private var state = State.size
    private var size = 0
    private var sizeDigits = 0
    private var trailerLine = 0
    private(set) var finished = false

    mutating func decode(_ bytes: UnsafeRawBufferPointer, _ onBody: (UnsafeRawBufferPointer) throws -> Void) throws {
        var i = 0
        while i < bytes.count && !finished {
            let byte = bytes[i]
            switch state {
            case .size, .sizeExtension:
                i += 1
                if byte == 13 { state = .sizeLF; continue }
                if byte == 10 { try endOfSize(); continue }
                if state == .sizeExtension || byte == UInt8(ascii: ";") { state = .sizeExtension; continue }
                guard let digit = Self.hex(byte), sizeDigits < 8 else { throw PlainHTTPStreamReader.Failure(description: "a malformed chunk size") }
                size = size * 16 + digit
                sizeDigits += 1
            case .sizeLF:
                i += 1
                guard byte == 10 else { throw PlainHTTPStreamReader.Failure(description: "a malformed chunk size") }
                try endOfSize()
            case .data:
                let take = min(size, bytes.count - i)
                try onBody(UnsafeRawBufferPointer(rebasing: bytes[i..<(i + take)]))
                i += take
                size -= take
                if size == 0 { state = .dataCR }
            case .dataCR:
                i += 1
                if byte == 13 { state = .dataLF } else if byte == 10 { state = .size } else {
                    throw PlainHTTPStreamReader.Failure(description: "a malformed chunk end")
                }
            case .dataLF:
                i += 1
                guard byte == 10 else { throw PlainHTTPStreamReader.Failure(description: "a malformed chunk end") }
                state = .size
            case .trailer:
                i += 1
                if byte == 10 {
                    if trailerLine == 0 { finished = true }
                    trailerLine = 0
                } else if byte != 13 {
                    trailerLine += 1
                }
            }
        }
    }

    private mutating func endOfSize() throws {
        guard sizeDigits > 0 else { throw PlainHTTPStreamReader.Failure(description: "a malformed chunk size") }
        state = size == 0 ? .trailer : .data
        sizeDigits = 0
    }

    private static func hex(_ byte: UInt8) -> Int? {
        switch byte {
        case 0x30...0x39: return Int(byte - 0x30)
        case 0x41...0x46: return Int(byte - 0x41 + 10)
        case 0x61...0x66: return Int(byte - 0x61 + 10)
        default: return nil
        }
    }
}

private func systemClose(_ fd: Int32) -> Int32 { close(fd) }
private func systemConnect(_ fd: Int32, _ address: UnsafePointer<sockaddr>!, _ length: socklen_t) -> Int32 { connect(fd, address, length) }
private func systemSend(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    return Glibc.send(fd, buffer, count, Int32(MSG_NOSIGNAL))
    #else
    return Darwin.send(fd, buffer, count, 0)
    #endif
}
