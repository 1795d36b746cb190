import Foundation
import NIOCore

/// The development server's live channel (`patchctl dev`), on the same server as `serve`:
/// - `GET /_dev/events?device=NAME`: a server-sent-events stream; the current version is sent at
///   once, each new one as it is published, and a heartbeat comment every `heartbeat` seconds;
/// - `GET /_dev/report?device=NAME&r=<base64url>`: one report from a device (204). Reports ride
///   in the request head because the server takes no request bodies; the head caps bound them.
/// Bounded: at most `maxDevices` streams (503 beyond), a stream whose client doesn't keep up
/// (its socket stops taking writes) is closed and left to reconnect, reports over
/// `maxReportBytes` are refused (413). This type knows nothing of patches: it moves opaque
/// single-line event data out and report bytes in.
public final class DevChannel: @unchecked Sendable {
    /// Path prefix the channel answers under (the static files keep every other path).
    public static let pathPrefix = "/_dev/"
    static let eventsPath = "/_dev/events"
    static let reportPath = "/_dev/report"

    public struct Limits: Sendable {
        public var maxDevices = 32
        /// Largest decoded report.
        public var maxReportBytes = 4096
        /// Largest event data (one line).
        public var maxEventBytes = 4 << 20
        /// Seconds between heartbeats on an idle stream (devices treat long silence as a dead server).
        public var heartbeat: TimeInterval = 5
        public init() {}
    }

    /// A stream to one device, as the responder registered it.
    struct Sink {
        let device: String
        let send: (String) -> Void
        let close: () -> Void
    }

    public let limits: Limits
    private let onReport: @Sendable (_ device: String, _ report: Data) -> Void
    private let onDevice: @Sendable (_ device: String, _ connected: Bool) -> Void
    private let lock = NSLock()
    private var sinks: [ObjectIdentifier: Sink] = [:]
    private var latest: String?

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
        let targets: [Sink] = lock.withLock {
            latest = text
            return Array(sinks.values)
        }
        for sink in targets { sink.send(text) }
        return targets.count
    }

    /// The devices connected now, sorted (a name twice when two devices share it).
    public var connectedDevices: [String] { lock.withLock { sinks.values.map(\.device).sorted() } }

    /// Disconnects every device (they reconnect on their own).
    public func disconnectAll() {
        let all = lock.withLock { Array(sinks.values) }
        for sink in all { sink.close() }
    }

    // MARK: - Called by the responder

    /// Registers a stream unless `maxDevices` are connected; returns the current event to send first.
    func subscribe(_ id: ObjectIdentifier, _ sink: Sink) -> (admitted: Bool, current: String?) {
        let result: (Bool, String?) = lock.withLock {
            guard sinks.count < limits.maxDevices else { return (false, nil) }
            sinks[id] = sink
            return (true, latest)
        }
        if result.0 { onDevice(sink.device, true) }
        return result
    }

    func unsubscribe(_ id: ObjectIdentifier) {
        guard let sink = lock.withLock({ sinks.removeValue(forKey: id) }) else { return }
        onDevice(sink.device, false)
    }

    func report(device: String, _ data: Data) { onReport(device, data) }

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
