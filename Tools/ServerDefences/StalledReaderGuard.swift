import NIOCore

/// Closes a connection whose client stops reading: when the channel stays unwritable (its
/// outbound buffer above the write-buffer high watermark, the socket's send buffer full) for
/// `timeout`, it is closed, so a response can't hold a connection and its memory forever. A slow
/// reader that makes the channel writable again in time restarts the clock.
public final class StalledReaderGuard: ChannelInboundHandler, RemovableChannelHandler {
    public typealias InboundIn = NIOAny
    public typealias InboundOut = NIOAny

    private let timeout: TimeAmount
    private let onStall: () -> Void
    private var timer: Scheduled<Void>?

    public init(timeout: TimeAmount, onStall: @escaping () -> Void = {}) {
        self.timeout = timeout
        self.onStall = onStall
    }

    public func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            timer?.cancel()
            timer = nil
        } else if timer == nil {
            timer = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: timeout) { [self] in
                timer = nil
                onStall()
                context.close(promise: nil)
            }
        }
        context.fireChannelWritabilityChanged()
    }

    public func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }
}
