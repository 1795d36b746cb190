import Foundation
import NIOCore
import NIOHTTP1
import ServerDefences

/// Sits before `StaticFileResponder` when the server has a `DevChannel`: answers the requests
/// under `/_dev/` (the event stream, reports) and passes every other request on untouched.
/// A request with a body is passed on too (the file responder answers and closes it).
final class DevChannelResponder: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let channel: DevChannel
    private let server: PatchServer
    private var intercepted: HTTPRequestHead?
    private var passing = false
    private var streaming = false
    private var heartbeat: RepeatedTask?

    init(channel: DevChannel, server: PatchServer) {
        self.channel = channel
        self.server = server
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch part {
        case .head(let head):
            if !streaming, head.uri.hasPrefix(DevChannel.pathPrefix), !StaticFileResponder.hasBody(head) {
                intercepted = head
                passing = false
            } else {
                passing = true
                context.fireChannelRead(data)
            }
        case .body:
            if passing { context.fireChannelRead(data) }
        case .end:
            if passing {
                passing = false
                context.fireChannelRead(data)
            } else if let head = intercepted {
                intercepted = nil
                respond(context, head)
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        heartbeat?.cancel()
        heartbeat = nil
        if streaming { channel.unsubscribe(ObjectIdentifier(self)) }
        context.fireChannelInactive()
    }

    private func respond(_ context: ChannelHandlerContext, _ head: HTTPRequestHead) {
        let components = URLComponents(string: head.uri)
        let path = components?.path ?? ""
        let query = Dictionary((components?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
        let device = query["device"] ?? ""
        let record = { (status: HTTPResponseStatus) in
            self.server.record(PatchServer.Request(method: head.method.rawValue, path: path, status: Int(status.code), ifNoneMatch: nil))
        }
        guard head.method == .GET else {
            record(.methodNotAllowed)
            return send(context, head, .methodNotAllowed, "only GET\n")
        }
        let session = query["session"] ?? ""
        switch path {
        case DevChannel.eventsPath:
            guard DevChannel.isValidDevice(device) else {
                record(.badRequest)
                return send(context, head, .badRequest, "device must be 1-64 letters, digits, '.', '_' or '-'\n")
            }
            openStream(context, head, device: device, record: record)
        case DevChannel.reportPath:
            guard let text = query["r"], text.utf8.count <= (channel.limits.maxReportBytes * 4 / 3 + 4),
                  let data = DevChannel.decodeBase64URL(text), data.count <= channel.limits.maxReportBytes else {
                record(.payloadTooLarge)
                return send(context, head, .payloadTooLarge, "a report is at most \(channel.limits.maxReportBytes) bytes, base64url\n")
            }
            guard channel.report(token: session, data) else {
                record(.forbidden)
                return send(context, head, .forbidden, "reports need the session token of a connected device's stream\n")
            }
            send(context, head, .noContent, nil)
        case DevChannel.pongPath:
            guard channel.pong(token: session, nonce: query["nonce"] ?? "") else {
                record(.forbidden)
                return send(context, head, .forbidden, "no such session or ping\n")
            }
            send(context, head, .noContent, nil)
        default:
            record(.notFound)
            send(context, head, .notFound, "not found\n")
        }
    }

    private func openStream(_ context: ChannelHandlerContext, _ head: HTTPRequestHead, device: String,
                            record: (HTTPResponseStatus) -> Void) {
        let loop = context.eventLoop
        let write = { (text: String) in
            // A client that stops reading fills the socket: drop it rather than queue without end.
            guard context.channel.isActive else { return }
            guard context.channel.isWritable else { return context.close(promise: nil) }
            let buffer = context.channel.allocator.buffer(string: text)
            context.writeAndFlush(self.wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        let sink = DevChannel.Sink(device: device,
                                   send: { text in loop.execute { write(text) } },
                                   close: { loop.execute { context.close(promise: nil) } })
        let (admitted, opening) = channel.subscribe(ObjectIdentifier(self), sink)
        guard admitted else {
            record(.serviceUnavailable)
            return send(context, head, .serviceUnavailable, "\(channel.limits.maxDevices) devices connected\n")
        }
        streaming = true
        record(.ok)
        let headers = HTTPHeaders([("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")])
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .ok, headers: headers))), promise: nil)
        write("retry: 1000\n\n" + opening)
        let interval = TimeAmount.interval(channel.limits.heartbeat)
        let id = ObjectIdentifier(self), devChannel = channel
        heartbeat = loop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
            // A client that doesn't answer pings isn't reading (or isn't a device): its slot goes.
            guard let ping = devChannel.ping(id) else { return context.close(promise: nil) }
            write(ping)
        }
    }

    private func send(_ context: ChannelHandlerContext, _ head: HTTPRequestHead, _ status: HTTPResponseStatus, _ text: String?) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Length", value: String(text?.utf8.count ?? 0))
        if text != nil { headers.add(name: "Content-Type", value: "text/plain; charset=utf-8") }
        let keepAlive = head.isKeepAlive
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
        if let text { context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: text)))), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolatedUnsafeUnchecked().whenComplete { result in
            if keepAlive, case .success = result {
                context.triggerUserOutboundEvent(RequestHeadLimiter.Event.responseComplete, promise: nil)
            } else {
                context.close(promise: nil)
            }
        }
    }
}
