import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What one client may cost a server: the one place where the QA server (`patchctl serve`/`dev`)
/// and the release service (`patchserver`) are told their request-head, time, connection and
/// body limits. The defaults suit a server on an open network; tests shorten the timeouts.
public struct ServerLimits: Sendable, Equatable {
    /// Largest request head (request line and headers, with their line ends). A request line
    /// longer than this is answered 414, a longer head 431; either way the connection closes.
    public var maxHeadBytes: Int = 8 * 1024
    /// Most header lines in one request (431 beyond).
    public var maxHeaderCount: Int = 100
    /// Most connections open at once. When a new one arrives at the cap, the connection idle the
    /// longest (no request in progress) is closed to make room; when every connection is in the
    /// middle of a request, the new one is answered 503 and closed.
    public var maxConnections: Int = 256
    /// Seconds from a request's first byte until its head must be complete (slowloris):
    /// past it the client gets 408 and the connection closes.
    public var headTimeout: TimeInterval = 10
    /// Seconds from the end of a request's head until its body must be complete (a body dripped
    /// byte by byte); past it the connection closes.
    public var bodyTimeout: TimeInterval = 60
    /// Seconds an open connection may wait for its next request (keep-alive) before it's closed.
    public var idleTimeout: TimeInterval = 30
    /// Seconds a response may go without progress (a client that stops reading) before its
    /// connection is closed.
    public var sendTimeout: TimeInterval = 30
    /// Seconds between accept attempts while accept fails for want of file descriptors
    /// (EMFILE, ENFILE) or memory: the listening socket is kept and retried, not spun on.
    public var acceptRetryDelay: TimeInterval = 0.5
    /// Largest request body per route, first match wins (servers that take bodies only).
    public var bodyLimits: [RouteBodyLimit] = []
    /// Largest request body on any route not in `bodyLimits`.
    public var defaultBodyLimit: Int = 16 * 1024
    /// Requests per client address on chosen routes (answered 429 beyond; servers that route only).
    public var rateLimits: [RouteRateLimit] = []

    /// How often one client address may call a route: `burst` at once, then `perSecond`.
    public struct RouteRateLimit: Sendable, Equatable {
        public var method: String
        /// The path, or its start when it ends with "/".
        public var path: String
        public var perSecond: Double
        public var burst: Int

        public init(_ method: String, _ path: String, perSecond: Double, burst: Int) {
            self.method = method
            self.path = path
            self.perSecond = perSecond
            self.burst = burst
        }

        public func matches(method: String, path: String) -> Bool {
            method == self.method && ServerLimits.route(self.path, matches: path)
        }
    }

    /// Whether `path` (without its query) is `pattern`, or starts with it when it ends with "/".
    static func route(_ pattern: String, matches path: String) -> Bool {
        let path = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? path
        return pattern.hasSuffix("/") ? path.hasPrefix(pattern) : path == pattern
    }

    /// The largest body a request may carry, by its method and path.
    public struct RouteBodyLimit: Sendable, Equatable {
        /// "POST", "PUT"…
        public var method: String
        /// The path, or its start when it ends with "/".
        public var path: String
        public var maxBytes: Int

        public init(_ method: String, _ path: String, maxBytes: Int) {
            self.method = method
            self.path = path
            self.maxBytes = maxBytes
        }

        public func matches(method: String, path: String) -> Bool {
            method == self.method && ServerLimits.route(self.path, matches: path)
        }
    }

    public init(maxHeadBytes: Int = 8 * 1024, maxHeaderCount: Int = 100, maxConnections: Int = 256,
                headTimeout: TimeInterval = 10, bodyTimeout: TimeInterval = 60, idleTimeout: TimeInterval = 30,
                sendTimeout: TimeInterval = 30, acceptRetryDelay: TimeInterval = 0.5,
                bodyLimits: [RouteBodyLimit] = [], defaultBodyLimit: Int = 16 * 1024, rateLimits: [RouteRateLimit] = []) {
        self.maxHeadBytes = maxHeadBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxConnections = maxConnections
        self.headTimeout = headTimeout
        self.bodyTimeout = bodyTimeout
        self.idleTimeout = idleTimeout
        self.sendTimeout = sendTimeout
        self.acceptRetryDelay = acceptRetryDelay
        self.bodyLimits = bodyLimits
        self.defaultBodyLimit = defaultBodyLimit
        self.rateLimits = rateLimits
    }

    /// The body limit for a request.
    public func bodyLimit(method: String, path: String) -> Int {
        bodyLimits.first { $0.matches(method: method, path: path) }?.maxBytes ?? defaultBodyLimit
    }

    /// The soft limit on open file descriptors of this process (nil if unknown).
    public static var openFileLimit: Int? {
        var limit = rlimit()
        #if canImport(Glibc)
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        #else
        guard getrlimit(RLIMIT_NOFILE, &limit) == 0 else { return nil }
        #endif
        return limit.rlim_cur >= rlim_t(Int.max) ? nil : Int(limit.rlim_cur)
    }

    /// `maxConnections` lowered to fit the descriptors this process may open, keeping `reserve`
    /// for everything else (the listening socket, database files and connections, logs): with the
    /// cap below the descriptor limit, the server sheds idle connections before accept() fails.
    public func fittingOpenFileLimit(reserve: Int = 64) -> ServerLimits {
        guard let available = Self.openFileLimit else { return self }
        var limits = self
        limits.maxConnections = max(1, min(maxConnections, available - reserve))
        return limits
    }
}
