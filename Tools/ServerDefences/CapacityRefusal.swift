import NIOCore

/// The whole pipeline of a connection over the cap (every other connection busy with a request):
/// answers 503 as soon as it's active, closes its output, and closes outright when the client
/// closes or after a second, whichever comes first. Whatever the client sends is dropped.
public final class CapacityRefusal: ChannelInboundHandler, RemovableChannelHandler {
    public typealias InboundIn = ByteBuffer

    public init() {}

    public func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { refuse(context) }
    }

    public func channelActive(context: ChannelHandlerContext) {
        refuse(context)
        context.fireChannelActive()
    }

    private var refused = false

    private func refuse(_ context: ChannelHandlerContext) {
        guard !refused else { return }
        refused = true
        let body = "too many connections, try again later\n"
        let text = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + "Content-Length: \(body.utf8.count)\r\nRetry-After: 1\r\nConnection: close\r\n\r\n" + body
        context.writeAndFlush(NIOAny(context.channel.allocator.buffer(string: text))).assumeIsolatedUnsafeUnchecked()
            .whenComplete { _ in context.close(mode: .output, promise: nil) }
        context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: .seconds(1)) {
            context.close(promise: nil)
        }
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Dropped: the client gets no more than the 503.
    }

    public func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The client's half-close (ChannelEvent.inputClosed) ends it at once.
        if case ChannelEvent.inputClosed = event { context.close(promise: nil) }
        context.fireUserInboundEventTriggered(event)
    }
}
