import NIOCore

/// Sits in front of the HTTP decoder and enforces what the decoder doesn't (its limits, 80 KB by
/// default, count header names and values but not the request line, and it has no clock): the
/// raw size and header count of every request head, a deadline for the whole head counted from
/// its first byte (slowloris), how long a connection may wait idle between requests
/// (keep-alive), and closing when the server stops. It reads every byte once, keeping only
/// counters, so a huge or dripped head costs linear time and constant memory.
///
/// A head that breaks a limit is answered at once (414, 431 or 408, `Connection: close`) and the
/// connection is closed: its output first, then the rest once the client is done or after a
/// short linger, so the answer isn't lost to a reset from unread input.
///
/// Bodies: on a server without them (`acceptsBodies` false: the QA server's responder closes any
/// request that has one) every inbound byte belongs to a head. On a server with them, the bytes
/// after a head pass unread until a handler behind the HTTP decoder reports the request's end
/// (`Event.requestComplete`), within `bodyTimeout`; the decoder's own limits guard a request
/// pipelined behind a body in the same read.
///
/// It also tells the `ConnectionCap` whether the connection is busy (a request read or answered)
/// or idle, so the cap sheds idle connections, never busy ones.
public final class RequestHeadLimiter: ChannelDuplexHandler, RemovableChannelHandler {
    public typealias InboundIn = ByteBuffer
    public typealias InboundOut = ByteBuffer
    public typealias OutboundIn = NIOAny
    public typealias OutboundOut = NIOAny

    /// Sent by the handlers behind it (`context.triggerUserOutboundEvent`).
    public enum Event {
        /// A response was written completely: the connection may go idle.
        case responseComplete
        /// The responder closes the connection after its response: ignore whatever follows.
        case closing
        /// The request's body has been read to its end: what follows is the next head.
        case requestComplete
    }

    /// A refused head: the status sent and a reason for the log.
    public typealias Refusal = (status: Int, reason: String)

    private let maxHeadBytes: Int
    private let maxHeaderCount: Int
    private let headTimeout: TimeAmount
    private let idleTimeout: TimeAmount
    private let bodyTimeout: TimeAmount
    private let acceptsBodies: Bool
    private let connections: ConnectionCap?
    private let headTimeoutText: String
    private let bodyTimeoutText: String
    private let onRefusal: (Refusal) -> Void

    /// Bytes of the head being read (0: none started), non-empty lines in it, bytes of its current line.
    private var headBytes = 0
    private var lines = 0
    private var lineLength = 0
    private var headStarted = NIODeadline.now()
    /// Heads passed on whose responses haven't been written yet.
    private var pendingResponses = 0
    private var idleSince = NIODeadline.now()
    private var bodyStarted = NIODeadline.now()
    /// What the connection cap was last told.
    private var reportedBusy = false

    private enum Mode { case reading, body, draining }
    private var mode = Mode.reading
    /// The server is stopping: close as soon as no response is pending.
    private var quiescing = false
    private var drainedBytes = 0

    private enum TimerKind { case none, head, body, idle, linger }
    private var timerKind = TimerKind.none
    private var timer: Scheduled<Void>?

    /// Most bytes read and dropped after a refusal before the connection is closed outright.
    static let maxDrainBytes = 256 * 1024
    /// Longest wait for the client to close after a refusal.
    static let maxLinger = TimeAmount.seconds(1)

    /// - Parameters:
    ///   - connections: told when the connection turns busy or idle (nil: no cap to tell).
    ///   - acceptsBodies: requests may have bodies (see the type's notes).
    ///   - onRefusal: called for each refused head (for the log).
    public init(limits: ServerLimits, connections: ConnectionCap? = nil, acceptsBodies: Bool = false,
                onRefusal: @escaping (Refusal) -> Void) {
        maxHeadBytes = limits.maxHeadBytes
        maxHeaderCount = limits.maxHeaderCount
        headTimeout = .interval(limits.headTimeout)
        idleTimeout = .interval(limits.idleTimeout)
        bodyTimeout = .interval(limits.bodyTimeout)
        self.acceptsBodies = acceptsBodies
        self.connections = connections
        headTimeoutText = "\(limits.headTimeout)"
        bodyTimeoutText = "\(limits.bodyTimeout)"
        self.onRefusal = onRefusal
    }

    public func handlerAdded(context: ChannelHandlerContext) {
        idleSince = .now()
        if context.channel.isActive { rearm(context) }
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimer()
    }

    public func channelActive(context: ChannelHandlerContext) {
        idleSince = .now()
        rearm(context)
        context.fireChannelActive()
    }

    public func channelInactive(context: ChannelHandlerContext) {
        cancelTimer()
        context.fireChannelInactive()
    }

    /// `ChannelShouldQuiesceEvent` (from `stop()`): an idle connection, or one with only part of
    /// a head, closes now; one with a response pending closes once it's written. Not passed on:
    /// NIO's HTTPServerPipelineHandler quiesces too, but then traps (fatalError) when the decoder
    /// reports the cut-off head at close and HTTPServerProtocolErrorHandler answers it.
    public func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is ChannelShouldQuiesceEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        quiescing = true
        if pendingResponses == 0 { close(context) }
    }

    /// Closes at once, ignoring whatever else comes in.
    private func close(_ context: ChannelHandlerContext) {
        mode = .draining
        cancelTimer()
        context.close(promise: nil)
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        reading: while buffer.readableBytes > 0 {
            switch mode {
            case .draining:
                drainedBytes += buffer.readableBytes
                if drainedBytes > Self.maxDrainBytes { context.close(promise: nil) }
                return
            case .body:
                // A body: the decoder behind reads it and reports its end.
                context.fireChannelRead(wrapInboundOut(buffer))
                break reading
            case .reading:
                break
            }
            if headBytes == 0 { headStarted = .now() }
            let (consumed, event) = buffer.withUnsafeReadableBytes { scan($0) }
            let piece = buffer.readSlice(length: consumed)!
            switch event {
            case nil:
                context.fireChannelRead(wrapInboundOut(piece))
            case .headEnd:
                // Counted (and the body expected) before passing on: the request may end and its
                // response complete within this very call.
                pendingResponses += 1
                if acceptsBodies {
                    mode = .body
                    bodyStarted = .now()
                }
                reportBusy(context)
                context.fireChannelRead(wrapInboundOut(piece))
            case .refuse(let status, let reason):
                refuse(context, status: status, reason: reason)
                return
            }
        }
        rearm(context)
    }

    public func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard let event = event as? Event else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        switch event {
        case .requestComplete:
            if mode == .body {
                mode = .reading
                rearm(context)
            }
        case .responseComplete:
            pendingResponses = max(0, pendingResponses - 1)
            if pendingResponses == 0 && quiescing && mode != .body {
                close(context)
            } else {
                if pendingResponses == 0 { idleSince = .now() }
                reportBusy(context)
                rearm(context)
            }
        case .closing:
            // The responder closes once its answer is written; a client that never reads it is
            // closed after the idle timeout all the same.
            mode = .draining
            cancelTimer()
            timerKind = .linger
            timer = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: idleTimeout) {
                context.close(promise: nil)
            }
        }
        promise?.succeed(())
    }

    // MARK: - Scanning

    private enum ScanEvent {
        case headEnd
        case refuse(Int, String)
    }

    /// Reads `bytes` until a head ends or a limit is broken; returns how many bytes it read.
    private func scan(_ bytes: UnsafeRawBufferPointer) -> (Int, ScanEvent?) {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            headBytes += 1
            if byte == UInt8(ascii: "\n") {
                if lineLength == 0 {
                    // An empty line ends the head; before the request line it's tolerated (RFC 9112 §2.2).
                    if lines > 0 {
                        headBytes = 0
                        lines = 0
                        return (index, .headEnd)
                    }
                } else {
                    lines += 1
                    lineLength = 0
                    if lines - 1 > maxHeaderCount {
                        return (index, .refuse(431, "more than \(maxHeaderCount) header lines"))
                    }
                }
            } else if byte != UInt8(ascii: "\r") {
                lineLength += 1
            }
            if headBytes > maxHeadBytes {
                return lines == 0
                    ? (index, .refuse(414, "request line over \(maxHeadBytes) bytes"))
                    : (index, .refuse(431, "request head over \(maxHeadBytes) bytes"))
            }
        }
        return (index, nil)
    }

    // MARK: - Refusing and timers

    private func refuse(_ context: ChannelHandlerContext, status: Int, reason: String) {
        mode = .draining
        cancelTimer()
        onRefusal((status, reason))
        guard pendingResponses == 0 else {
            // An earlier response is still being written: an answer now would land inside it.
            context.close(promise: nil)
            return
        }
        let body = reason + "\n"
        let text = "HTTP/1.1 \(status) \(Self.reasonPhrase(status))\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
        let buffer = context.channel.allocator.buffer(string: text)
        let loopContext = context.eventLoop.assumeIsolatedUnsafeUnchecked()
        context.writeAndFlush(NIOAny(buffer)).assumeIsolatedUnsafeUnchecked().whenComplete { _ in
            // Half-close: the client reads the answer, then its own close (or the linger) ends it.
            context.close(mode: .output, promise: nil)
        }
        timerKind = .linger
        timer = loopContext.scheduleTask(in: min(Self.maxLinger, headTimeout)) {
            context.close(promise: nil)
        }
    }

    /// Keeps exactly the timer the state calls for: the head deadline while a head is being read,
    /// the idle timeout while nothing is, none while a response is pending.
    private func rearm(_ context: ChannelHandlerContext) {
        guard mode != .draining else { return }
        let wanted: TimerKind = mode == .body ? .body : headBytes > 0 ? .head : (pendingResponses == 0 ? .idle : .none)
        guard wanted != timerKind else { return }
        cancelTimer()
        timerKind = wanted
        let loop = context.eventLoop.assumeIsolatedUnsafeUnchecked()
        switch wanted {
        case .head:
            timer = loop.scheduleTask(deadline: headStarted + headTimeout) { [self] in
                timerKind = .none
                refuse(context, status: 408, reason: "request head not complete within \(headTimeoutText) s")
            }
        case .body:
            timer = loop.scheduleTask(deadline: bodyStarted + bodyTimeout) { [self] in
                onRefusal((408, "request body not complete within \(bodyTimeoutText) s"))
                close(context)
            }
        case .idle:
            timer = loop.scheduleTask(deadline: idleSince + idleTimeout) { [self] in
                close(context)
            }
        case .none, .linger:
            break
        }
    }

    /// Tells the cap whether a request is in progress (read or answered): only idle connections are shed.
    private func reportBusy(_ context: ChannelHandlerContext) {
        let busy = pendingResponses > 0 || mode == .body
        guard busy != reportedBusy else { return }
        reportedBusy = busy
        connections?.setBusy(context.channel, busy)
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
        timerKind = .none
    }

    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 408: return "Request Timeout"
        case 414: return "URI Too Long"
        case 431: return "Request Header Fields Too Large"
        default: return "Bad Request"
        }
    }
}

extension TimeAmount {
    /// A duration given in (fractional) seconds, as the public API takes them.
    public static func interval(_ seconds: Double) -> TimeAmount {
        .nanoseconds(Int64((max(0, seconds) * 1_000_000_000).rounded()))
    }
}
