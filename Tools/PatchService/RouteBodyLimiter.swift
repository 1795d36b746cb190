import Hummingbird
import NIOCore
import NIOHTTPTypes
import ServerDefences

/// Behind the HTTP decoder: holds every request body to its route's limit (`ServerLimits.bodyLimits`)
/// whether or not the route reads it, and tells `RequestHeadLimiter` (in front of the decoder)
/// where each request ends and when its response has been written.
///
/// A declared length over the limit is answered 413 here, before the application sees the request,
/// and the connection closes: Hummingbird would otherwise read and discard a body the route
/// refused, however long. A chunked body that runs past the limit closes the connection (the
/// route has its bytes up to the limit and may already be answering).
final class RouteBodyLimiter: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let limits: ServerLimits
    private let onRefusal: (String) -> Void
    private var limit = 0
    private var received = 0
    /// The current request was refused: drop the rest of it.
    private var refused = false

    init(limits: ServerLimits, onRefusal: @escaping (String) -> Void) {
        self.limits = limits
        self.onRefusal = onRefusal
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch part {
        case .head(let head):
            refused = false
            received = 0
            limit = limits.bodyLimit(method: head.method.rawValue, path: head.path ?? "")
            let declared = head.headerFields[.contentLength].flatMap { Int($0) }
            if let declared, declared > limit {
                refused = true
                refuse(context, "\(head.method.rawValue) \(head.path ?? "") with a body of \(declared) bytes, over the route's \(limit)")
                return
            }
            context.fireChannelRead(data)
        case .body(let buffer):
            guard !refused else { return }
            received += buffer.readableBytes
            guard received <= limit else {
                refused = true
                onRefusal("a body over the route's \(limit) bytes: closed")
                context.close(promise: nil)
                return
            }
            context.fireChannelRead(data)
        case .end:
            guard !refused else { return }
            context.triggerUserOutboundEvent(RequestHeadLimiter.Event.requestComplete, promise: nil)
            context.fireChannelRead(data)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        let written = promise ?? context.eventLoop.makePromise()
        written.futureResult.assumeIsolatedUnsafeUnchecked().whenSuccess {
            context.triggerUserOutboundEvent(RequestHeadLimiter.Event.responseComplete, promise: nil)
        }
        context.write(data, promise: written)
    }

    /// 413, then the connection closes (the head limiter drops whatever the client still sends).
    private func refuse(_ context: ChannelHandlerContext, _ reason: String) {
        onRefusal(reason)
        let body = "request body too large: this route takes at most \(limit) bytes\n"
        let head = HTTPResponse(status: .contentTooLarge, headerFields: [
            .contentType: "text/plain; charset=utf-8", .contentLength: String(body.utf8.count), .connection: "close",
        ])
        context.triggerUserOutboundEvent(RequestHeadLimiter.Event.closing, promise: nil)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(string: body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolatedUnsafeUnchecked().whenComplete { _ in
            context.close(mode: .output, promise: nil)
        }
    }
}
