import AsyncHTTPClient
import Foundation
import NIOCore
import PatchSupport

/// The one place the device's network stack is chosen: AsyncHTTPClient (SwiftNIO) on every
/// platform, for the updater's reads and for everything else the device sends (telemetry,
/// development reports, the development event stream). URLSession was measured unfit on Linux:
/// after a task is cancelled its delegate keeps receiving data, so an endless response grows
/// memory past any cut, and its delegate reads a stream ahead of its consumer without bound.
/// AsyncHTTPClient's streamed body has back-pressure: bytes are read from the socket only as the
/// loops below ask for them, and leaving a loop closes the connection.
public struct HTTPTransport: Transport {
    /// The transport for the whole process: its clients are never shut down (AsyncHTTPClient
    /// requires a client to be shut down before it is released; one per process avoids that).
    public static let shared = HTTPTransport()

    /// Repository reads: up to 3 redirects (a mirror may move files).
    private let client: HTTPClient
    /// Everything else (`send`, `stream`): no redirect is followed, so a report or a batch goes
    /// only where it was addressed.
    private let direct: HTTPClient

    private init() {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .follow(max: 3, allowCycles: false)
        configuration.decompression = .disabled
        configuration.timeout = .init(connect: .seconds(15), read: .seconds(30))
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        configuration.redirectConfiguration = .disallow
        // A stream's silence is judged by `stream` itself, with each stream's own timeout.
        configuration.timeout = .init(connect: .seconds(15))
        direct = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    public func fetch(_ url: URL, maxLength: Int64, deadline: Date) async throws -> Data {
        let response = try await send(url, on: client, deadline: deadline) { $0.method = .GET }
        let name = url.absoluteString
        guard response.status.code == 200 else { throw TransportError.status(Int(response.status.code), url: name) }
        if let announced = response.headers.first(name: "content-length").flatMap(Int64.init), announced > maxLength {
            throw TransportError.tooLarge(url: name, maxLength: maxLength)
        }
        return try await read(response, from: name, maxLength: maxLength, deadline: deadline)
    }

    public func send(_ request: TransportRequest, maxLength: Int64, deadline: Date) async throws -> (status: Int, body: Data) {
        let response = try await send(request.url, on: direct, deadline: deadline) { Self.prepare(&$0, from: request) }
        return (Int(response.status.code), try await read(response, from: request.url.absoluteString, maxLength: maxLength, deadline: deadline))
    }

    public func stream(_ request: TransportRequest, silenceTimeout: TimeInterval,
                       onOpen: @escaping @Sendable (Int) throws -> Void,
                       onChunk: @escaping @Sendable (UnsafeRawBufferPointer) throws -> Void) async throws {
        let name = request.url.absoluteString
        let silence = SilenceClock()
        // One child task reads the body; the other ends the group after `silenceTimeout` without
        // a byte. Cancelling the reader leaves its loop, which closes the connection.
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                let response = try await self.send(request.url, on: self.direct, deadline: .distantFuture) {
                    Self.prepare(&$0, from: request)
                }
                silence.touch()
                try onOpen(Int(response.status.code))
                do {
                    for try await chunk in response.body {
                        silence.touch()
                        try chunk.withUnsafeReadableBytes { try onChunk($0) }
                    }
                } catch let error as HTTPClientError {
                    throw Self.transportError(error, url: name)
                }
            }
            group.addTask {
                while true {
                    let quiet = silence.secondsSinceLastByte()
                    if quiet >= silenceTimeout { throw TransportError.timedOut(url: name) }
                    let nap = max(0.01, min(silenceTimeout - quiet, silenceTimeout / 4))
                    try await Task.sleep(nanoseconds: UInt64(nap * 1e9))
                }
            }
            // The first to finish decides: the body's end, a failure, or the silence.
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    private static func prepare(_ request: inout HTTPClientRequest, from what: TransportRequest) {
        request.method = .init(rawValue: what.method)
        for (name, value) in what.headers { request.headers.add(name: name, value: value) }
        if let body = what.body { request.body = .bytes(ByteBuffer(bytes: body)) }
    }

    /// Sends the request `prepare` makes for `url` (http or https only) on `client`, with what is
    /// left until `deadline` (`.distantFuture`: none, for a stream whose silence ends it).
    private func send(_ url: URL, on client: HTTPClient, deadline: Date,
                      _ prepare: (inout HTTPClientRequest) -> Void) async throws -> HTTPClientResponse {
        let name = url.absoluteString
        guard url.scheme == "http" || url.scheme == "https" else {
            throw TransportError.failed(url: name, reason: "only http and https URLs are fetched")
        }
        let remaining = deadline.timeIntervalSinceNow
        guard remaining > 0 else { throw TransportError.timedOut(url: name) }
        var request = HTTPClientRequest(url: name)
        prepare(&request)
        let timeout: TimeAmount = deadline == .distantFuture ? .hours(24 * 365) : .milliseconds(Int64(remaining * 1000))
        do {
            return try await client.execute(request, timeout: timeout)
        } catch {
            throw Self.transportError(error, url: name)
        }
    }
    /// The body, cut as bytes arrive once it passes `maxLength` or the deadline passes.
    private func read(_ response: HTTPClientResponse, from name: String, maxLength: Int64, deadline: Date) async throws -> Data {
        var body = Data()
        do {
            for try await chunk in response.body {
                guard Int64(body.count) + Int64(chunk.readableBytes) <= maxLength else {
                    throw TransportError.tooLarge(url: name, maxLength: maxLength)
                }
                body.append(contentsOf: chunk.readableBytesView)
                if Date() >= deadline { throw TransportError.timedOut(url: name) }
            }
        } catch {
            throw Self.transportError(error, url: name)
        }
        return body
    }

    private static func transportError(_ error: Error, url name: String) -> TransportError {
        if let error = error as? TransportError { return error }
        if let error = error as? HTTPClientError, error == .deadlineExceeded || error == .readTimeout { return .timedOut(url: name) }
        return .failed(url: name, reason: "\(error)")
    }
}

/// When a stream last received a byte.
private final class SilenceClock: Sendable {
    private let last = LockedValue(DispatchTime.now().uptimeNanoseconds)

    func touch() {
        let now = DispatchTime.now().uptimeNanoseconds
        last.withLock { $0 = now }
    }

    func secondsSinceLastByte() -> TimeInterval {
        last.withLock { Double(DispatchTime.now().uptimeNanoseconds - $0) / 1e9 }
    }
}
