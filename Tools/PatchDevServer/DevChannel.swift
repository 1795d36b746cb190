import Foundation
import NIOCore
import PatchSupport

/// The development server's live channel (`patchctl dev`), on the same server as `serve`:
/// - `GET /_dev/events?device=NAME`: a server-sent-events stream; first a `session` event whose
///   data is this connection's token, then the current version, each new one as it is published,
///   and every `heartbeat` seconds a `ping` event whose data is a fresh nonce;
/// - `GET /_dev/pong?session=TOKEN&nonce=N`: the device answers a ping (204);
/// - `GET /_dev/report?session=TOKEN&r=<base64url>`: one report from a device (204), credited to
///   the device that opened the stream the token came on. Reports ride in the request head
///   because the server takes no request bodies; the head caps bound them.
/// Bounded: at most `maxDevices` streams (503 beyond). A device slot is held only by a client
/// that reads: a stream whose client leaves `maxUnansweredPings` pings in a row unanswered (it
/// never read them, however small), or whose socket stops taking writes, is closed and left to
/// reconnect. Reports without the token of a connected stream are refused (403), so nobody can
/// speak for a device; reports over `maxReportBytes` are refused (413). This type knows nothing
/// of patches: it moves opaque single-line event data out and report bytes in.
public final class DevChannel: @unchecked Sendable {
    /// Path prefix the channel answers under (the static files keep every other path).
    public static let pathPrefix = "/_dev/"
    static let eventsPath = "/_dev/events"
    static let reportPath = "/_dev/report"
    static let pongPath = "/_dev/pong"

    public struct Limits: Sendable {
        public var maxDevices = 32
        /// Largest decoded report.
        public var maxReportBytes = 4096
        /// Largest event data (one line).
        public var maxEventBytes = 4 << 20
        /// Seconds between heartbeats (pings) on a stream (devices treat long silence as a dead server).
        public var heartbeat: TimeInterval = 5
        /// Pings in a row a device may leave unanswered before its stream is closed.
        public var maxUnansweredPings = 3
        public init() {}
    }

    /// A stream to one device, as the responder registered it.
    struct Sink {
        let device: String
        let send: (String) -> Void
        let close: () -> Void
    }

    /// A connected stream: its sink, its token, the pings it hasn't answered.
    private struct Session {
        var sink: Sink
        var token: String
        var nonces: [String] = []
        var unanswered = 0
    }

    public let limits: Limits
    private let onReport: @Sendable (_ device: String, _ report: Data) -> Void
    private let onDevice: @Sendable (_ device: String, _ connected: Bool) -> Void
    /// The connected devices, their tokens (one per session, pointing back to it) and the latest
    /// announcement a new device gets: one lock, so a token never outlives its session.
    private struct State {
        var sinks: [ObjectIdentifier: Session] = [:]
        var tokens: [String: ObjectIdentifier] = [:]
        var latest: String?
    }
    private let state = LockedValue(State())

    /// - Parameters:
    ///   - onReport: each report's bytes with the device name it came with (on a server thread).
    ///   - onDevice: a device's stream opened (true) or closed (false).
    public init(limits: Limits = Limits(),
                onReport: @escaping @Sendable (String, Data) -> Void,
                onDevice: @escaping @Sendable (String, Bool) -> Void = { _, _ in }) {
        self.limits = limits
        self.onReport = onReport
        self.onDevice = onDevice
    }

    /// An event that can't be sent.
    public enum EventError: Error, Equatable, CustomStringConvertible {
        /// A line break in the event name, id or data (each must be one line of the stream).
        case lineBreak
        /// Data larger than `Limits.maxEventBytes`.
        case tooLarge(Int)

        public var description: String {
            switch self {
            case .lineBreak: return "an event's name, id and data must each be one line"
            case .tooLarge(let size): return "event data of \(size) bytes is over the limit"
            }
        }
    }

    /// Sends an event to every connected device and keeps it as the current one (sent to each
    /// device that connects later). Returns the number of devices it went to.
    @discardableResult
    public func publish(event: String, id: String? = nil, data: String) throws -> Int {
        let breaks = { (text: String) in text.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) }
        guard !breaks(event), !breaks(id ?? ""), !breaks(data) else { throw EventError.lineBreak }
        guard data.utf8.count <= limits.maxEventBytes else { throw EventError.tooLarge(data.utf8.count) }
        var text = "event: \(event)\n"
        if let id { text += "id: \(id)\n" }
        text += "data: \(data)\n\n"
        let targets: [Sink] = state.withLock { state in
            state.latest = text
            return state.sinks.values.map(\.sink)
        }
        for sink in targets { sink.send(text) }
        return targets.count
    }

    /// The devices connected now, sorted (a name twice when two devices share it).
    public var connectedDevices: [String] { state.withLock { state in state.sinks.values.map(\.sink.device).sorted() } }

    /// Disconnects every device (they reconnect on their own).
    public func disconnectAll() {
        let all = state.withLock { state in state.sinks.values.map(\.sink) }
        for sink in all { sink.close() }
    }

    // MARK: - Called by the responder

    /// Registers a stream unless `maxDevices` are connected; returns what to send first: the
    /// session event with the stream's token, then the current version.
    func subscribe(_ id: ObjectIdentifier, _ sink: Sink) -> (admitted: Bool, opening: String) {
        let token = Self.randomToken()
        let result: (Bool, String) = state.withLock { state in
            guard state.sinks.count < limits.maxDevices else { return (false, "") }
            state.sinks[id] = Session(sink: sink, token: token)
            state.tokens[token] = id
            return (true, "event: session\ndata: \(token)\n\n" + (state.latest ?? ""))
        }
        if result.0 { onDevice(sink.device, true) }
        return result
    }

    func unsubscribe(_ id: ObjectIdentifier) {
        guard let session = state.withLock({ state -> Session? in
            guard let session = state.sinks.removeValue(forKey: id) else { return nil }
            state.tokens[session.token] = nil
            return session
        }) else { return }
        onDevice(session.sink.device, false)
    }

    /// The next ping for a stream, or nil when it has left `maxUnansweredPings` unanswered: close it.
    func ping(_ id: ObjectIdentifier) -> String? {
        let nonce = Self.randomToken()
        return state.withLock { state in
            guard var session = state.sinks[id], session.unanswered < limits.maxUnansweredPings else { return nil }
            session.unanswered += 1
            session.nonces = Array((session.nonces + [nonce]).suffix(limits.maxUnansweredPings))
            state.sinks[id] = session
            return "event: ping\ndata: \(nonce)\n\n"
        }
    }

    /// A device's answer to a ping; false if the token or nonce is not one this server handed out.
    func pong(token: String, nonce: String) -> Bool {
        state.withLock { state in
            guard let id = state.tokens[token], var session = state.sinks[id], session.nonces.contains(nonce) else { return false }
            session.unanswered = 0
            session.nonces = []
            state.sinks[id] = session
            return true
        }
    }

    /// A report on the session `token`; false (nothing delivered) unless that stream is connected.
    func report(token: String, _ data: Data) -> Bool {
        guard let device = state.withLock({ state in state.tokens[token].flatMap { state.sinks[$0]?.sink.device } }) else { return false }
        onReport(device, data)
        return true
    }

    /// 128 random bits, base64url.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// A device name: 1-64 letters, digits, `.`, `_`, `-`.
    static func isValidDevice(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count) && name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }

    /// base64url without padding (what devices send).
    static func decodeBase64URL(_ text: String) -> Data? {
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while s.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s)
    }
}
