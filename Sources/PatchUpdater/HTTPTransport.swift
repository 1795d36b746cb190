import AsyncHTTPClient
import Foundation
import NIOCore

/// The one place the updater's network stack is chosen: AsyncHTTPClient (SwiftNIO) on every
/// platform. URLSession was measured unfit on Linux: after a task is cancelled its delegate
/// keeps receiving data, so an endless response grows memory past any cut. AsyncHTTPClient's
/// streamed body has back-pressure: bytes are read from the socket only as the loop below asks
/// for them, and leaving the loop closes the connection.
public struct HTTPTransport: Transport {
    /// The transport for the whole process: one client, never shut down (AsyncHTTPClient requires
    /// a client to be shut down before it is released; one per process avoids that).
    public static let shared = HTTPTransport()

    private let client: HTTPClient

    private init() {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .follow(max: 3, allowCycles: false)
        configuration.decompression = .disabled
        configuration.timeout = .init(connect: .seconds(15), read: .seconds(30))
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    public func fetch(_ url: URL, maxLength: Int64, deadline: Date) async throws -> Data {
        let response = try await send(url, deadline: deadline) { $0.method = .GET }
        let name = url.absoluteString
        guard response.status.code == 200 else { throw TransportError.status(Int(response.status.code), url: name) }
        if let announced = response.headers.first(name: "content-length").flatMap(Int64.init), announced > maxLength {
            throw TransportError.tooLarge(url: name, maxLength: maxLength)
        }
        return try await read(response, from: name, maxLength: maxLength, deadline: deadline)
    }

    /// POSTs `body` to `url` (the publisher's upload to the release service) and returns the
    /// status and at most `maxLength` bytes of the answer, by `deadline`.
    public func post(_ url: URL, body: Data, contentType: String = "application/json", maxLength: Int64 = 64 << 10,
                     deadline: Date) async throws -> (status: Int, body: Data) {
        let response = try await send(url, deadline: deadline) { request in
            request.method = .POST
            request.headers.add(name: "content-type", value: contentType)
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        return (Int(response.status.code), try await read(response, from: url.absoluteString, maxLength: maxLength, deadline: deadline))
    }

    /// Sends the request `prepare` makes for `url` (http or https only), with what is left until `deadline`.
    private func send(_ url: URL, deadline: Date, _ prepare: (inout HTTPClientRequest) -> Void) async throws -> HTTPClientResponse {
        let name = url.absoluteString
        guard url.scheme == "http" || url.scheme == "https" else {
            throw TransportError.failed(url: name, reason: "only http and https URLs are fetched")
        }
        let remaining = deadline.timeIntervalSinceNow
        guard remaining > 0 else { throw TransportError.timedOut(url: name) }
        var request = HTTPClientRequest(url: name)
        prepare(&request)
        do {
            return try await client.execute(request, timeout: .milliseconds(Int64(remaining * 1000)))
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
