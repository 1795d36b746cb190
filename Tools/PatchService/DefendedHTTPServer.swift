import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes
import ServerDefences

/// Hummingbird's HTTP/1 channel with the defences every server here has (`ServerLimits`): before
/// the HTTP decoder, the connection cap and the request-head limiter; after it, the per-route
/// limits (rates per client address, body sizes); and a client that stops reading is closed after `sendTimeout`.
struct DefendedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let http1: HTTP1Channel
    let limits: ServerLimits
    let connections: ConnectionCap
    let logger: Logger

    init(responder: @escaping HTTPChannelHandler.Responder, limits: ServerLimits, connections: ConnectionCap, logger: Logger) {
        self.limits = limits
        self.connections = connections
        self.logger = logger
        let log = logger
        let rateLimiters = RouteLimiter.rateLimiters(for: limits)
        http1 = HTTP1Channel(responder: responder, configuration: .init(
            additionalChannelHandlers: [RouteLimiter(limits: limits, rateLimiters: rateLimiters) { reason in log.notice("413 \(reason)") }],
            idleTimeout: nil,  // RequestHeadLimiter's: it knows a request from an idle connection
            httpDecoderConfiguration: .init(maxHeaderFieldSize: limits.maxHeadBytes, maxHeaderListSize: limits.maxHeadBytes,
                                            maxHeaderFieldCount: limits.maxHeaderCount)))
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let limits = self.limits, connections = self.connections, log = self.logger
        return channel.eventLoop.makeCompletedFuture {
            let pipeline = channel.pipeline.syncOperations
            switch connections.admit(channel) {
            case .refused:
                log.warning("503: \(connections.limit) connections open, all busy")
                // Answers 503 and drops everything else; the HTTP pipeline behind sees nothing.
                try pipeline.addHandler(CapacityRefusal())
                return
            case .admittedByShedding:
                log.debug("closed the longest-idle connection to make room (\(connections.limit) open)")
            case .admitted:
                break
            }
            try channel.syncOptions?.setOption(ChannelOptions.writeBufferWaterMark, value: .init(low: 32 << 10, high: 64 << 10))
            try pipeline.addHandler(StalledReaderGuard(timeout: .interval(limits.sendTimeout)) {
                log.notice("closed a connection that stopped reading its response")
            })
            try pipeline.addHandler(RequestHeadLimiter(limits: limits, connections: connections, acceptsBodies: true) { refusal in
                log.notice("\(refusal.status) \(refusal.reason)")
            })
        }.flatMap {
            self.http1.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// An HTTP/1 server with the defences of `DefendedHTTP1Channel`.
    static func defended(limits: ServerLimits, connections: ConnectionCap, logger: Logger) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            DefendedHTTP1Channel(responder: responder, limits: limits, connections: connections, logger: logger)
        }
    }
}
