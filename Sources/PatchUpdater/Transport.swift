import Foundation

/// How the device reaches its servers: the updater's repository reads (`fetch`), and the
/// requests and streams the rest of the device sends through the same network stack (`send`:
/// telemetry, development reports; `stream`: the development event stream). Implementations must
/// stop reading as soon as a response passes its byte limit (an endless response is an attack,
/// spec §5.2.x "endless data"), give up at `deadline`, and read a stream only as fast as its
/// consumer takes it.
///
/// `send` and `stream` have implementations that refuse, for transports that only read a
/// repository (test doubles, mirrors).
public protocol Transport: Sendable {
    /// The body of `url` (status 200), at most `maxLength` bytes.
    func fetch(_ url: URL, maxLength: Int64, deadline: Date) async throws -> Data
    /// Sends `request` without following redirects; the status, whatever it is, and at most
    /// `maxLength` bytes of the answer, by `deadline`.
    func send(_ request: TransportRequest, maxLength: Int64, deadline: Date) async throws -> (status: Int, body: Data)
    /// Sends `request` (no redirects) and hands its answer's body to `onChunk` piece by piece:
    /// the next bytes are read from the connection only after `onChunk` returned (a server that
    /// sends faster than the device parses waits), and a throw from it ends the stream. `onOpen`
    /// gets the status first (a throw from it ends the stream too). Returns when the server ends
    /// the body; throws `TransportError.timedOut` after `silenceTimeout` seconds without a byte,
    /// and ends (throwing `CancellationError`) when the calling task is cancelled.
    func stream(_ request: TransportRequest, silenceTimeout: TimeInterval,
                onOpen: @escaping @Sendable (Int) throws -> Void,
                onChunk: @escaping @Sendable (UnsafeRawBufferPointer) throws -> Void) async throws
}

/// A request `Transport.send` and `Transport.stream` make.
public struct TransportRequest: Sendable {
    public var method: String
    public var url: URL
    public var headers: [(name: String, value: String)]
    public var body: Data?

    public init(method: String = "GET", url: URL, headers: [(name: String, value: String)] = [], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

extension Transport {
    public func send(_ request: TransportRequest, maxLength: Int64, deadline: Date) async throws -> (status: Int, body: Data) {
        throw TransportError.failed(url: request.url.absoluteString, reason: "this transport only reads a repository")
    }

    public func stream(_ request: TransportRequest, silenceTimeout: TimeInterval,
                       onOpen: @escaping @Sendable (Int) throws -> Void,
                       onChunk: @escaping @Sendable (UnsafeRawBufferPointer) throws -> Void) async throws {
        throw TransportError.failed(url: request.url.absoluteString, reason: "this transport only reads a repository")
    }

    /// POSTs `body` (the publisher's upload to the release service, a telemetry batch).
    public func post(_ url: URL, body: Data, contentType: String = "application/json", maxLength: Int64 = 64 << 10,
                     deadline: Date) async throws -> (status: Int, body: Data) {
        try await send(TransportRequest(method: "POST", url: url, headers: [("content-type", contentType)], body: body),
                       maxLength: maxLength, deadline: deadline)
    }
}

/// Why a download failed.
public enum TransportError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The server answered with a status other than 200.
    case status(Int, url: String)
    /// More than `maxLength` bytes arrived (or were announced); the download was cut.
    case tooLarge(url: String, maxLength: Int64)
    /// The deadline passed.
    case timedOut(url: String)
    /// The connection failed or the URL can't be fetched.
    case failed(url: String, reason: String)

    /// 403 and 404: what a repository answers for a file it doesn't have (spec §5.3.3: the end of
    /// the root chain).
    public var isNotFound: Bool {
        if case .status(let code, _) = self { return code == 403 || code == 404 }
        return false
    }

    public var description: String {
        switch self {
        case .status(let code, let url): return "\(url): HTTP status \(code)"
        case .tooLarge(let url, let max): return "\(url): more than \(max) bytes, download cut"
        case .timedOut(let url): return "\(url): timed out"
        case .failed(let url, let reason): return "\(url): \(reason)"
        }
    }
}
