import Foundation
import NIOCore

/// The connections open at once, capped: one past the cap is answered 503 and closed, so a client
/// opening connections in a loop can't take every file descriptor. Also what `stop()` closes.
final class ConnectionCap: @unchecked Sendable {
    let limit: Int
    private let lock = NSLock()
    private var open: [ObjectIdentifier: Channel] = [:]

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Counts `channel` in unless the cap is reached; it's counted out when it closes.
    func admit(_ channel: Channel) -> Bool {
        let id = ObjectIdentifier(channel)
        let admitted = lock.withLock { () -> Bool in
            guard open.count < limit else { return false }
            open[id] = channel
            return true
        }
        if admitted {
            channel.closeFuture.whenComplete { _ in self.lock.withLock { self.open[id] = nil } }
        }
        return admitted
    }

    /// Connections open now.
    var count: Int { lock.withLock { open.count } }

    /// Asks every open connection to finish: an idle one closes now, one in the middle of a
    /// request closes once its response is written (NIO's `HTTPServerPipelineHandler` does this).
    func quiesceAll() {
        let channels = lock.withLock { Array(open.values) }
        for channel in channels { channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent()) }
    }

    /// Closes every open connection (their handlers see the close as usual).
    func closeAll() {
        let channels = lock.withLock { Array(open.values) }
        for channel in channels { channel.close(promise: nil) }
    }
}

/// The whole pipeline of a connection over the cap: answers 503 as soon as it's active, closes its
/// output, and closes outright when the client closes or after a second, whichever comes first.
final class CapacityRefusal: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    func channelActive(context: ChannelHandlerContext) {
        let body = "too many connections, try again later\n"
        let text = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + "Content-Length: \(body.utf8.count)\r\nRetry-After: 1\r\nConnection: close\r\n\r\n" + body
        context.writeAndFlush(NIOAny(context.channel.allocator.buffer(string: text))).assumeIsolatedUnsafeUnchecked()
            .whenComplete { _ in context.close(mode: .output, promise: nil) }
        context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: .seconds(1)) {
            context.close(promise: nil)
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Whatever the client sent is dropped: it gets no more than the 503.
    }
}
