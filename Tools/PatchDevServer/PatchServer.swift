import Foundation
import PatchSupport
import NIOCore
import NIOHTTP1
import NIOPosix
import ServerDefences
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small HTTP server for QA: serves the files of one directory (signed patches, the revocation
/// list) with strong ETags and `304 Not Modified` for `If-None-Match`, and logs every request as
/// `METHOD /path STATUS` (the path escaped: no control characters reach the log).
///
///     let server = PatchServer(directory: patchesDir)        // port 0: any free port
///     let port = try server.start()                          // returns once listening
///     … http://127.0.0.1:\(port)/patch.json …
///     server.stop()
///
/// Files are opened on every request, so replacing one is picked up at once, and streamed from
/// the file, never read whole. Safe to leave running on a shared network (`Limits`): only GET and
/// HEAD; no path outside the directory, even through a symlink, and no dotfile; request heads
/// capped in size, header count and time; idle connections closed; connections capped; and when
/// file descriptors run out, accepting pauses and resumes instead of failing. Built on SwiftNIO.
public final class PatchServer: @unchecked Sendable {
    /// What one client may cost the server (shared with the release service).
    public typealias Limits = ServerLimits

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
    /// What one client may cost the server.
    public let limits: Limits
    /// The live channel of `patchctl dev`, answering under `/_dev/` (nil: files only).
    public let devChannel: DevChannel?
    private let requestedPort: UInt16
    private let log: (@Sendable (String) -> Void)?
    /// What runs, the requests served and the failures still to inject, under one lock.
    private struct State {
        var running: Running?
        var records: [Request] = []
        var injectedFailures: [(remaining: Int, status: Int, path: String?)] = []
    }
    private let state = LockedValue(State())

    /// What a started server holds.
    private struct Running {
        var group: MultiThreadedEventLoopGroup
        var threadPool: NIOThreadPool
        var listener: Channel
        var connections: ConnectionCap
        var port: UInt16
    }

    /// - Parameters:
    ///   - host: an IPv4 address to listen on; loopback by default.
    ///   - port: 0 picks a free port (see `port` after `start()`).
    ///   - limits: sizes, counts and timeouts per client; the defaults suit a shared network.
    ///   - devChannel: the live QA channel to answer under `/_dev/` (`patchctl dev`); none by default.
    ///   - log: receives one line per request; prints to standard output by default.
    public init(directory: URL, host: String = "127.0.0.1", port: UInt16 = 0, limits: Limits = Limits(),
                devChannel: DevChannel? = nil,
                log: (@Sendable (String) -> Void)? = { line in print(line); fflush(stdout) }) {
        self.devChannel = devChannel
        self.directory = directory.standardizedFileURL
        self.host = host
        self.requestedPort = port
        self.limits = limits
        self.log = log
    }

    /// The port the server listens on (nil until started).
    public var port: UInt16? { state.withLock { state in state.running?.port } }

    /// `http://host:port/` once started.
    public var baseURL: URL? { port.map { URL(string: "http://\(host):\($0)/")! } }

    /// Connections open now (at most `limits.maxConnections`).
    public var openConnections: Int { state.withLock { state in state.running?.connections.count ?? 0 } }

    /// Starts listening and returns the bound port. Blocks until the socket listens (or fails).
    @discardableResult
    public func start() throws -> UInt16 {
        if let port { return port }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue,
              let root = ServedPath.realPath(directory.path) else {
            throw StartError(description: "cannot serve \(directory.path): not a directory")
        }
        var ip4 = in_addr()
        guard inet_pton(AF_INET, host, &ip4) == 1 else {
            throw StartError(description: "cannot listen on \(host): not an IPv4 address")
        }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let threadPool = NIOThreadPool(numberOfThreads: 2)
        threadPool.start()
        let connections = ConnectionCap(limit: limits.maxConnections)
        do {
            let listener = try bootstrap(group: group, threadPool: threadPool, root: root, connections: connections)
                .bind(host: host, port: Int(requestedPort)).wait()
            let port = UInt16(listener.localAddress?.port ?? Int(requestedPort))
            state.withLock { state in state.running = Running(group: group, threadPool: threadPool, listener: listener,
                                              connections: connections, port: port) }
            return port
        } catch {
            try? group.syncShutdownGracefully()
            try? threadPool.syncShutdownGracefully()
            throw StartError(description: "cannot listen on \(host):\(requestedPort): \(error)")
        }
    }

    private func bootstrap(group: EventLoopGroup, threadPool: NIOThreadPool, root: String,
                           connections: ConnectionCap) -> ServerBootstrap {
        let limits = self.limits
        return ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .serverChannelInitializer { channel in
                // Out of descriptors (or memory), accept() fails until some are freed: pause
                // accepting for a moment and keep the listening socket, rather than spin or close.
                let pause = AcceptPause(delay: .interval(limits.acceptRetryDelay)) { [weak self] error in
                    self?.logLine("accept failed (\(String(cString: strerror(error.errnoCode)))): retrying in \(limits.acceptRetryDelay) s")
                }
                return channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(pause) }
            }
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    switch connections.admit(channel) {
                    case .refused:
                        self.logLine("- - 503 (\(connections.limit) connections open, all busy)")
                        try pipeline.addHandler(CapacityRefusal())
                        return
                    case .admittedByShedding:
                        self.logLine("closed the longest-idle connection (\(connections.limit) connections open)")
                    case .admitted:
                        break
                    }
                    try pipeline.addHandler(RequestHeadLimiter(limits: limits, connections: connections) { [weak self] refusal in
                        self?.logLine("- - \(refusal.status) (\(refusal.reason))")
                    })
                    // The decoder's own limits (80 KB, 65 534 fields by default) lowered to ours: a
                    // second line behind the limiter, which counts raw bytes and so trips first.
                    var decoderLimits = NIOHTTPDecoderLimitConfiguration()
                    decoderLimits.maxHeaderFieldSize = limits.maxHeadBytes
                    decoderLimits.maxHeaderListSize = limits.maxHeadBytes
                    decoderLimits.maxHeaderFieldCount = limits.maxHeaderCount
                    try pipeline.addHandler(ByteToMessageHandler(HTTPRequestDecoder(
                        leftOverBytesStrategy: .dropBytes, limitConfiguration: decoderLimits)))
                    try pipeline.addHandler(HTTPResponseEncoder())
                    try pipeline.addHandler(HTTPServerPipelineHandler())
                    try pipeline.addHandler(HTTPServerProtocolErrorHandler())
                    if let devChannel = self.devChannel {
                        try pipeline.addHandler(DevChannelResponder(channel: devChannel, server: self))
                    }
                    try pipeline.addHandler(StaticFileResponder(server: self, root: root, threadPool: threadPool))
                }
            }
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
    }

    /// Stops listening, closes idle connections, lets requests in progress finish for up to
    /// `gracePeriod` seconds, then closes every connection; blocks until done. Safe to call twice.
    public func stop(gracePeriod: TimeInterval = 1) {
        guard let running = state.withLock({ state -> Running? in
            defer { state.running = nil }
            return state.running
        }) else { return }
        try? running.listener.close().wait()
        // Event streams never finish a response: end them now (devices reconnect) rather than
        // hold stop() for the whole grace period.
        devChannel?.disconnectAll()
        running.connections.quiesceAll()
        let deadline = Date().addingTimeInterval(max(0, gracePeriod))
        while running.connections.count > 0, Date() < deadline {
            usleep(10_000)
        }
        running.connections.closeAll()
        try? running.group.syncShutdownGracefully()
        try? running.threadPool.syncShutdownGracefully()
    }

    /// Every request answered so far, oldest first.
    public var requests: [Request] { state.withLock { state in state.records } }

    /// Forgets the request log.
    public func clearRequests() { state.withLock { state in state.records = [] } }

    /// Answers the next `count` requests (for `path`, or any path) with `status` instead of the
    /// file: for rehearsing outages and the client's retries.
    public func failNextRequests(_ count: Int, status: Int = 503, path: String? = nil) {
        state.withLock { state in state.injectedFailures.append((count, status, path)) }
    }

    // MARK: - Request records and injected failures (called by the responder)

    func takeInjectedFailure(for path: String) -> Int? {
        state.withLock { state in
            guard let i = state.injectedFailures.firstIndex(where: { $0.remaining > 0 && ($0.path == nil || $0.path == path) }) else { return nil }
            state.injectedFailures[i].remaining -= 1
            return state.injectedFailures[i].status
        }
    }

    /// Logs a line the server wrote itself (no text from a request in it).
    func logLine(_ line: String) {
        log?(line)
    }

    /// Keeps `request` and logs it, escaped.
    func record(_ request: Request) {
        state.withLock { state in state.records.append(request) }
        log?("\(LogSafe.escape(request.method, limit: 300)) \(LogSafe.escape(request.path, limit: 300)) \(request.status)")
    }
}
