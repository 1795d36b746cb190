import Hummingbird
import NIOCore
import NIOHTTPTypes
import ServerDefences

/// Behind the HTTP decoder, before the application sees a request: the per-route limits of
/// `ServerLimits`. Checks, in this order: the client address's rate on the route
/// (`rateLimits`, 429 `rate-limited`), then the declared body size (`bodyLimits`, 413), and holds
/// every body to its route's limit whether or not the route reads it. Also tells
/// `RequestHeadLimiter` (in front of the decoder) where each request ends and when its response
/// has been written.
///
/// A declared length over the limit is answered 413 here, before the application sees the request,
/// and the connection closes: Hummingbird would otherwise read and discard a body the route
/// refused, however long. A chunked body that runs past the limit closes the connection (the
/// route has its bytes up to the limit and may already be answering).
final class RouteLimiter: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let limits: ServerLimits
    /// One per entry of `limits.rateLimits`, shared by every connection.
    private let rateLimiters: [ClientRateLimiter]
    private let onRefusal: (String) -> Void
    private var limit = 0
    private var received = 0
    /// The current request was refused: drop the rest of it.
    private var refused = false

    init(limits: ServerLimits, rateLimiters: [ClientRateLimiter], onRefusal: @escaping (String) -> Void) {
        self.limits = limits
        self.rateLimiters = rateLimiters
        self.onRefusal = onRefusal
    }

    /// The shared buckets for `limits.rateLimits`, in its order.
    static func rateLimiters(for limits: ServerLimits) -> [ClientRateLimiter] {
        limits.rateLimits.map { ClientRateLimiter(perSecond: $0.perSecond, burst: $0.burst) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch part {
        case .head(let head):
            refused = false
            received = 0
            let method = head.method.rawValue, path = head.path ?? ""
            if let index = limits.rateLimits.firstIndex(where: { $0.matches(method: method, path: path) }),
               !rateLimiters[index].allow(context.channel.remoteAddress) {
                refused = true
                let retry = rateLimiters[index].retryAfterSeconds
                answer(context, status: .tooManyRequests, contentType: "application/json", extra: [.retryAfter: String(retry)],
                       body: "{\"reason\":\"rate-limited\",\"message\":\"too many requests from this address; retry in \(retry) s\"}\n")
                return
            }
            limit = limits.bodyLimit(method: method, path: path)
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

    /// 413, then the connection closes.
    private func refuse(_ context: ChannelHandlerContext, _ reason: String) {
        onRefusal(reason)
        answer(context, status: .contentTooLarge, contentType: "text/plain; charset=utf-8",
               body: "request body too large: this route takes at most \(limit) bytes\n")
    }

    /// Answers in place of the application and closes the connection (the head limiter drops
    /// whatever the client still sends): the request's body is never read.
    private func answer(_ context: ChannelHandlerContext, status: HTTPResponse.Status, contentType: String,
                        extra: HTTPFields = [:], body: String) {
        var fields: HTTPFields = [.contentType: contentType, .contentLength: String(body.utf8.count), .connection: "close"]
        fields.append(contentsOf: extra)
        let head = HTTPResponse(status: status, headerFields: fields)
        context.triggerUserOutboundEvent(RequestHeadLimiter.Event.closing, promise: nil)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(string: body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolatedUnsafeUnchecked().whenComplete { _ in
            context.close(mode: .output, promise: nil)
        }
    }
}
