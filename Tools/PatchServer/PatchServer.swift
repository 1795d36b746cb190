import Crypto
import FlyingFox
import Foundation

/// A small HTTP server for QA: serves the files of one directory (signed patches, the revocation
/// list) on loopback, with strong ETags and `304 Not Modified` for `If-None-Match`, and logs every
/// request as `METHOD /path STATUS`.
///
///     let server = PatchServer(directory: patchesDir)        // port 0: any free port
///     let port = try server.start()                          // returns once listening
///     … http://127.0.0.1:\(port)/patch.json …
///     server.stop()
///
/// Files are read on every request, so replacing one is picked up at once. Only GET and HEAD are
/// served; paths may not leave the directory. Built on FlyingFox (HTTP parsing is not ours).
public final class PatchServer: @unchecked Sendable {
    /// One request as the server answered it.
    public struct Request: Equatable, Sendable {
        public var method: String
        public var path: String
        public var status: Int
        /// The If-None-Match header the client sent, if any.
        public var ifNoneMatch: String?
    }

    /// A server that could not start.
    public struct StartError: Error, CustomStringConvertible {
        public var description: String
    }

    public let directory: URL
    public let host: String
    private let requestedPort: UInt16
    private let log: (@Sendable (String) -> Void)?
    private let lock = NSLock()
    private var server: HTTPServer?
    private var runTask: Task<Void, Error>?
    private var boundPort: UInt16?
    private var records: [Request] = []
    private var injectedFailures: [(remaining: Int, status: Int, path: String?)] = []

    /// - Parameters:
    ///   - host: an IPv4 address to listen on; loopback by default.
    ///   - port: 0 picks a free port (see `port` after `start()`).
    ///   - log: receives one line per request; prints to standard output by default.
    public init(directory: URL, host: String = "127.0.0.1", port: UInt16 = 0,
                log: (@Sendable (String) -> Void)? = { line in print(line); fflush(stdout) }) {
        self.directory = directory.standardizedFileURL
        self.host = host
        self.requestedPort = port
        self.log = log
    }

    /// The port the server listens on (nil until started).
    public var port: UInt16? { lock.withLock { boundPort } }

    /// `http://host:port/` once started.
    public var baseURL: URL? { port.map { URL(string: "http://\(host):\($0)/")! } }

    /// Starts listening and returns the bound port. Blocks until the socket listens (or fails).
    @discardableResult
    public func start() throws -> UInt16 {
        if let port { return port }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw StartError(description: "cannot serve \(directory.path): not a directory")
        }
        let address: sockaddr_in
        do { address = try .inet(ip4: host, port: requestedPort) } catch {
            throw StartError(description: "cannot listen on \(host): not an IPv4 address")
        }
        let server = HTTPServer(address: address, timeout: 15, logger: .disabled, handler: Handler(owner: self))
        let outcome = Outcome()
        let runTask = Task { try await server.run() }
        // Whichever comes first: the socket listens, or run() fails (port in use…).
        Task {
            do { try await runTask.value; outcome.finish(.failure(StartError(description: "server stopped while starting"))) } catch {
                outcome.finish(.failure(error))
            }
        }
        let listenTask = Task {
            do {
                try await server.waitUntilListening(timeout: 10)
                guard case let .ip4(_, port)? = await server.listeningAddress else {
                    throw StartError(description: "server listens on an unexpected address")
                }
                outcome.finish(.success(port))
            } catch {
                outcome.finish(.failure(error))
            }
        }
        switch outcome.wait() {
        case .success(let port):
            lock.withLock {
                self.server = server
                self.runTask = runTask
                self.boundPort = port
            }
            return port
        case .failure(let error):
            runTask.cancel()
            listenTask.cancel()
            throw error as? StartError ?? StartError(description: "cannot listen on \(host):\(requestedPort): \(error)")
        }
    }

    /// Stops listening, lets requests in progress finish for up to `gracePeriod` seconds, then
    /// closes every connection; blocks until done. Safe to call twice.
    public func stop(gracePeriod: TimeInterval = 1) {
        let (server, runTask) = lock.withLock { () -> (HTTPServer?, Task<Void, Error>?) in
            defer { self.server = nil; self.runTask = nil; self.boundPort = nil }
            return (self.server, self.runTask)
        }
        guard let server, let runTask else { return }
        let done = DispatchSemaphore(value: 0)
        Task {
            await server.stop(timeout: gracePeriod)
            runTask.cancel()
            _ = try? await runTask.value
            done.signal()
        }
        done.wait()
    }

    /// Every request answered so far, oldest first.
    public var requests: [Request] { lock.withLock { records } }

    /// Forgets the request log.
    public func clearRequests() { lock.withLock { records = [] } }

    /// Answers the next `count` requests (for `path`, or any path) with `status` instead of the
    /// file: for rehearsing outages and the client's retries.
    public func failNextRequests(_ count: Int, status: Int = 503, path: String? = nil) {
        lock.withLock { injectedFailures.append((count, status, path)) }
    }

    // MARK: - Request handling

    private func takeInjectedFailure(for path: String) -> Int? {
        lock.withLock {
            guard let i = injectedFailures.firstIndex(where: { $0.remaining > 0 && ($0.path == nil || $0.path == path) }) else { return nil }
            injectedFailures[i].remaining -= 1
            return injectedFailures[i].status
        }
    }

    fileprivate func respond(to request: HTTPRequest) -> HTTPResponse {
        let path = request.path.removingPercentEncoding ?? request.path
        let ifNoneMatch = request.headers[.ifNoneMatch]
        let response = makeResponse(method: request.method, path: path, ifNoneMatch: ifNoneMatch)
        let record = Request(method: request.method.rawValue, path: path, status: response.statusCode.code, ifNoneMatch: ifNoneMatch)
        lock.withLock { records.append(record) }
        log?("\(record.method) \(record.path) \(record.status)")
        return response
    }

    private func makeResponse(method: HTTPMethod, path: String, ifNoneMatch: String?) -> HTTPResponse {
        if let status = takeInjectedFailure(for: path) {
            return text(HTTPStatusCode(status, phrase: HTTPURLResponsePhrase.phrase(status)), "injected failure\n")
        }
        guard method == .GET || method == .HEAD else {
            var response = text(.methodNotAllowed, "only GET and HEAD\n")
            response.headers[HTTPHeader("Allow")] = "GET, HEAD"
            return response
        }
        guard let file = fileURL(for: path), let data = try? Data(contentsOf: file) else {
            return text(.notFound, "not found\n")
        }
        let etag = Self.etag(of: data)
        var headers: HTTPHeaders = [:]
        headers[.eTag] = etag
        headers[.cacheControl] = "no-cache"
        if let ifNoneMatch, Self.matches(ifNoneMatch, etag: etag) {
            return HTTPResponse(statusCode: .notModified, headers: headers)
        }
        headers[.contentType] = file.pathExtension == "json" ? "application/json" : "application/octet-stream"
        return HTTPResponse(statusCode: .ok, headers: headers, body: method == .HEAD ? Data() : data)
    }

    private func text(_ status: HTTPStatusCode, _ body: String) -> HTTPResponse {
        HTTPResponse(statusCode: status, headers: [.contentType: "text/plain; charset=utf-8"], body: Data(body.utf8))
    }

    /// The regular file `path` names inside the directory, or nil (missing, a directory, or outside).
    private func fileURL(for path: String) -> URL? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        guard !parts.isEmpty, !parts.contains(where: { $0 == ".." || $0 == "." || $0.contains("\0") }) else { return nil }
        let url = parts.reduce(directory) { $0.appendingPathComponent(String($1)) }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else { return nil }
        return url
    }

    /// A strong ETag from the content (not the modification time, which has coarse resolution).
    static func etag(of data: Data) -> String {
        "\"" + SHA256.hash(data: data).prefix(16).map { String(format: "%02x", $0) }.joined() + "\""
    }

    /// RFC 9110 If-None-Match: `*`, or a list of entity tags compared weakly.
    static func matches(_ header: String, etag: String) -> Bool {
        let opaque = { (tag: Substring) -> Substring in tag.hasPrefix("W/") ? tag.dropFirst(2) : tag }
        return header.split(separator: ",").contains { raw in
            let tag = raw.trimmingCharacters(in: .whitespaces)
            return tag == "*" || opaque(Substring(tag)) == opaque(Substring(etag))
        }
    }

    private struct Handler: HTTPHandler {
        let owner: PatchServer
        func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
            owner.respond(to: request)
        }
    }

    /// The first result of starting, handed to the thread waiting in `start()`.
    private final class Outcome: @unchecked Sendable {
        private let lock = NSLock()
        private let semaphore = DispatchSemaphore(value: 0)
        private var result: Result<UInt16, Error>?
        func finish(_ r: Result<UInt16, Error>) {
            lock.lock(); defer { lock.unlock() }
            guard result == nil else { return }
            result = r
            semaphore.signal()
        }
        func wait() -> Result<UInt16, Error> {
            semaphore.wait()
            return lock.withLock { result! }
        }
    }
}

/// Reason phrases for injected statuses.
private enum HTTPURLResponsePhrase {
    static func phrase(_ status: Int) -> String {
        switch status {
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        case 429: return "Too Many Requests"
        case 404: return "Not Found"
        default: return "Error"
        }
    }
}
