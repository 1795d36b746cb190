import Foundation

extension PatchServer {
    /// What one client may cost the server. The defaults suit a QA server left running on a
    /// shared network; tests shorten the timeouts.
    public struct Limits: Sendable, Equatable {
        /// Largest request head (request line and headers, with their line ends). A request line
        /// longer than this is answered 414, a longer head 431; either way the connection closes.
        public var maxHeadBytes: Int = 8 * 1024
        /// Most header lines in one request (431 beyond).
        public var maxHeaderCount: Int = 100
        /// Most connections open at once; one more is answered 503 and closed.
        public var maxConnections: Int = 256
        /// Seconds from a request's first byte until its head must be complete (slowloris):
        /// past it the client gets 408 and the connection closes.
        public var headTimeout: TimeInterval = 10
        /// Seconds an open connection may wait for its next request (keep-alive) before it's closed.
        public var idleTimeout: TimeInterval = 30
        /// Seconds a response may go without progress (a client that stops reading a large file)
        /// before its connection is closed.
        public var sendTimeout: TimeInterval = 30
        /// Seconds between accept attempts while accept fails for want of file descriptors
        /// (EMFILE, ENFILE) or memory: the listening socket is kept and retried, not spun on.
        public var acceptRetryDelay: TimeInterval = 0.5

        public init(maxHeadBytes: Int = 8 * 1024, maxHeaderCount: Int = 100, maxConnections: Int = 256,
                    headTimeout: TimeInterval = 10, idleTimeout: TimeInterval = 30, sendTimeout: TimeInterval = 30,
                    acceptRetryDelay: TimeInterval = 0.5) {
            self.maxHeadBytes = maxHeadBytes
            self.maxHeaderCount = maxHeaderCount
            self.maxConnections = maxConnections
            self.headTimeout = headTimeout
            self.idleTimeout = idleTimeout
        self.sendTimeout = sendTimeout
            self.acceptRetryDelay = acceptRetryDelay
        }
    }
}
