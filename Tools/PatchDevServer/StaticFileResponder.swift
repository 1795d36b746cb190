import Foundation
import NIOCore
import NIOHTTP1
import ServerDefences
import NIOPosix

/// Answers each request of one connection: an injected failure if one is due, 405 for anything
/// but GET and HEAD, else the file the path names inside the served folder (`ServedPath`), with
/// its ETag, 304 when `If-None-Match` matches, the body streamed from the file by the kernel
/// (`FileRegion`, sendfile) rather than read into memory. Opening and hashing run on the thread
/// pool, never on the event loop.
///
/// A request with a body is answered and the connection closed: nothing here takes a body, and
/// without bodies every inbound byte is part of a head, which `RequestHeadLimiter` relies on.
final class StaticFileResponder: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let server: PatchServer
    private let root: String
    private let threadPool: NIOThreadPool
    private let sendTimeout: TimeAmount
    private var head: HTTPRequestHead?
    private var closing = false

    /// - Parameter root: the real path of the served folder.
    init(server: PatchServer, root: String, threadPool: NIOThreadPool) {
        self.server = server
        self.sendTimeout = .interval(server.limits.sendTimeout)
        self.root = root
        self.threadPool = threadPool
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        switch unwrapInboundIn(data) {
        case .head(let request):
            if Self.hasBody(request) {
                closing = true
                context.triggerUserOutboundEvent(RequestHeadLimiter.Event.closing, promise: nil)
                respond(context, to: request)
            } else {
                head = request
            }
        case .body:
            break
        case .end:
            if let request = head {
                head = nil
                respond(context, to: request)
            }
        }
    }

    /// Content-Length other than 0, or any Transfer-Encoding.
    static func hasBody(_ request: HTTPRequestHead) -> Bool {
        let lengths = request.headers["content-length"]
        return !request.headers["transfer-encoding"].isEmpty || lengths.contains { $0.trimmingCharacters(in: .whitespaces) != "0" }
    }

    // MARK: - Choosing the answer

    private func respond(_ context: ChannelHandlerContext, to request: HTTPRequestHead) {
        let method = request.method.rawValue
        let ifNoneMatch = request.headers.first(name: "if-none-match")
        let rawPath = ServedPath.pathPart(of: request.uri)
        let path = ServedPath.percentDecoded(rawPath).map { String(decoding: $0, as: UTF8.self) } ?? String(rawPath)
        let keepAlive = request.isKeepAlive && !closing
        let finish = { (status: HTTPResponseStatus) in
            self.server.record(PatchServer.Request(method: method, path: path, status: Int(status.code), ifNoneMatch: ifNoneMatch))
        }

        if let status = server.takeInjectedFailure(for: path) {
            let code = HTTPResponseStatus(statusCode: status)
            finish(code)
            return sendText(context, request, code, "injected failure\n", keepAlive: keepAlive)
        }
        guard request.method == .GET || request.method == .HEAD else {
            finish(.methodNotAllowed)
            return sendText(context, request, .methodNotAllowed, "only GET and HEAD\n", keepAlive: keepAlive,
                            extra: [("Allow", "GET, HEAD")])
        }
        if closing {
            finish(.badRequest)
            return sendText(context, request, .badRequest, "GET and HEAD take no body\n", keepAlive: false)
        }
        do {
            _ = try ServedPath.components(of: request.uri)
        } catch {
            let status = Self.status(for: error)
            finish(status)
            return sendText(context, request, status, Self.message(for: status), keepAlive: keepAlive)
        }

        let root = self.root, uri = request.uri
        let opened = threadPool.runIfActive(eventLoop: context.eventLoop) {
            try ServedFile.open(realPath: try ServedPath.resolve(uri, under: root))
        }
        opened.assumeIsolatedUnsafeUnchecked().whenComplete { result in
            switch result {
            case .failure(let error):
                let status = Self.status(for: error)
                finish(status)
                self.sendText(context, request, status, Self.message(for: status), keepAlive: keepAlive)
            case .success(let file):
                if let ifNoneMatch, EntityTag.matches(ifNoneMatch, etag: file.etag) {
                    try? file.handle.close()
                    finish(.notModified)
                    self.send(context, request, .notModified, headers: Self.fileHeaders(file), body: .none,
                              keepAlive: keepAlive)
                } else {
                    finish(.ok)
                    var headers = Self.fileHeaders(file)
                    headers.add(name: "Content-Length", value: String(file.size))
                    headers.add(name: "Content-Type", value: path.hasSuffix(".json") ? "application/json" : "application/octet-stream")
                    let body: Body = request.method == .HEAD || file.size == 0 ? .none : .file(file)
                    self.send(context, request, .ok, headers: headers, body: body, keepAlive: keepAlive) {
                        try? file.handle.close()
                    }
                }
            }
        }
    }

    private static func fileHeaders(_ file: ServedFile) -> HTTPHeaders {
        HTTPHeaders([("ETag", file.etag), ("Cache-Control", "no-cache")])
    }

    private static func status(for error: Error) -> HTTPResponseStatus {
        switch error {
        case ServedPath.Refusal.malformed: return .badRequest
        case ServedPath.Refusal.forbiddenName, ServedPath.Refusal.notFound, ServedFile.Failure.vanished: return .notFound
        case ServedFile.Failure.exhausted: return .serviceUnavailable
        case is NIOThreadPoolError.ThreadPoolInactive: return .serviceUnavailable
        default: return .internalServerError
        }
    }

    private static func message(for status: HTTPResponseStatus) -> String {
        switch status {
        case .badRequest: return "bad request\n"
        case .notFound: return "not found\n"
        case .serviceUnavailable: return "busy, try again later\n"
        default: return "internal error\n"
        }
    }

    // MARK: - Writing

    private func sendText(_ context: ChannelHandlerContext, _ request: HTTPRequestHead, _ status: HTTPResponseStatus,
                          _ text: String, keepAlive: Bool, extra: [(String, String)] = []) {
        var headers = HTTPHeaders(extra)
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: String(text.utf8.count))
        let body = request.method == .HEAD ? Body.none : .bytes(context.channel.allocator.buffer(string: text))
        send(context, request, status, headers: headers, body: body, keepAlive: keepAlive)
    }

    /// What follows a response head.
    private enum Body {
        case none
        case bytes(ByteBuffer)
        /// Sent by the kernel from the file, `sliceSize` bytes per write.
        case file(ServedFile)
    }

    /// Bytes of a file per write: each completed slice is progress that re-arms the stall timer,
    /// small enough that a slow link (a few kB/s) completes one well within `sendTimeout`.
    static let sliceSize = 64 * 1024

    /// Writes one whole response; then tells the limiter the connection may idle, or closes it.
    /// `done` runs once the response is written or has failed (to close the file). A client that
    /// stops reading holds the connection no longer than `sendTimeout` without progress.
    private func send(_ context: ChannelHandlerContext, _ request: HTTPRequestHead, _ status: HTTPResponseStatus,
                      headers: HTTPHeaders, body: Body, keepAlive: Bool, done: (() -> Void)? = nil) {
        var headers = headers
        if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
        let head = HTTPResponseHead(version: request.version, status: status, headers: headers)
        armStallTimer(context)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        let finish = {
            context.writeAndFlush(self.wrapOutboundOut(.end(nil))).assumeIsolatedUnsafeUnchecked().whenComplete { result in
                self.stallTimer?.cancel()
                self.stallTimer = nil
                done?()
                if keepAlive, case .success = result {
                    context.triggerUserOutboundEvent(RequestHeadLimiter.Event.responseComplete, promise: nil)
                } else {
                    context.close(promise: nil)
                }
            }
        }
        switch body {
        case .none:
            finish()
        case .bytes(let buffer):
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
            finish()
        case .file(let file):
            sendSlices(context, file, from: 0, then: finish, failed: { done?() })
        }
    }

    private func sendSlices(_ context: ChannelHandlerContext, _ file: ServedFile, from offset: Int,
                            then finish: @escaping () -> Void, failed: @escaping () -> Void) {
        let end = min(offset + Self.sliceSize, file.size)
        let slice = FileRegion(fileHandle: file.handle, readerIndex: offset, endIndex: end)
        context.writeAndFlush(wrapOutboundOut(.body(.fileRegion(slice)))).assumeIsolatedUnsafeUnchecked().whenComplete { result in
            guard case .success = result else {
                failed()
                context.close(promise: nil)
                return
            }
            self.armStallTimer(context)
            if end < file.size {
                self.sendSlices(context, file, from: end, then: finish, failed: failed)
            } else {
                finish()
            }
        }
    }

    private var stallTimer: Scheduled<Void>?

    private func armStallTimer(_ context: ChannelHandlerContext) {
        stallTimer?.cancel()
        stallTimer = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: sendTimeout) {
            context.close(promise: nil)
        }
    }

    /// A head the decoder can't read was answered 400 by `HTTPServerProtocolErrorHandler`; it's
    /// logged here (the parser's own words, nothing from the request). Other errors (a reset
    /// connection) just close it.
    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if let parserError = error as? HTTPParserError {
            server.logLine("- - 400 (malformed request: \(parserError))")
        }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        stallTimer?.cancel()
        stallTimer = nil
        context.fireChannelInactive()
    }
}
