import NIOCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// On the listening channel: when accept() fails for want of file descriptors (EMFILE, ENFILE)
/// or memory, stops asking the kernel for connections for a moment, then asks again. The
/// listening socket stays open and the waiting connections stay in its backlog.
///
/// NIO's own `AcceptBackoffHandler` is not enough here: after a failed accept the channel still
/// counts a read as pending, keeps its epoll interest, and is woken at once by the same waiting
/// connection, so the server spins at 100% CPU (measured: one core, ~60 000 failed accepts a
/// second). Turning `autoRead` off removes the interest; turning it back on restores it.
public final class AcceptPause: ChannelInboundHandler, RemovableChannelHandler {
    public typealias InboundIn = Channel
    public typealias InboundOut = Channel

    private let delay: TimeAmount
    private let onPause: (IOError) -> Void
    private var paused = false

    public init(delay: TimeAmount, onPause: @escaping (IOError) -> Void) {
        self.delay = delay
        self.onPause = onPause
    }

    public static func isShortage(_ error: IOError) -> Bool {
        [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(error.errnoCode)
    }

    public func errorCaught(context: ChannelHandlerContext, error: Error) {
        guard let ioError = error as? IOError, Self.isShortage(ioError) else {
            context.fireErrorCaught(error)
            return
        }
        guard !paused, let options = context.channel.syncOptions else { return }
        paused = true
        onPause(ioError)
        try? options.setOption(ChannelOptions.autoRead, value: false)
        context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: delay) { [self] in
            paused = false
            try? context.channel.syncOptions?.setOption(ChannelOptions.autoRead, value: true)
        }
    }
}
