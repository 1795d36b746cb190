import Foundation
import PatchUpdater

/// Sends a development session's reports to the server, one small GET each
/// (`/_dev/report?session=…&r=<base64url JSON>`: the QA server takes no request bodies), in order,
/// one at a time. The session token comes on the event stream (the server credits a report to the
/// device whose stream handed out the token); until one arrives, reports wait. The queue is bounded: when full, log lines go first, and the number dropped is
/// reported once there is room. While the stream is down, reports wait (bounded the same way).
final class DevReportSender: @unchecked Sendable {
    private let baseURL: URL
    private let device: String
    private let maxQueued: Int
    private let transport: Transport
    private let lock = NSLock()
    private var queue: [(report: DevReport, droppable: Bool)] = []
    private var dropped = 0
    private var sending = false
    private var paused = true
    private var stopped = true
    private var sessionToken: String?
    /// A pong is on its way; `pendingNonce` is the latest ping that came meanwhile.
    private var pongInFlight = false
    private var pendingNonce: String?

    /// Each request ends after this long; its answer is read up to `answerBytes`.
    static let requestTimeout: TimeInterval = 5
    static let answerBytes: Int64 = 4096

    init(baseURL: URL, device: String, maxQueued: Int, transport: Transport) {
        self.baseURL = baseURL
        self.device = device
        self.maxQueued = max(2, maxQueued)
        self.transport = transport
    }

    /// GETs `url` through the device's transport; the status, nil when there was no answer.
    private func get(_ url: URL, then: @escaping @Sendable (Int?) -> Void) {
        let transport = self.transport
        Task.detached {
            let answer = try? await transport.send(TransportRequest(url: url), maxLength: Self.answerBytes,
                                                   deadline: Date().addingTimeInterval(Self.requestTimeout))
            then(answer?.status)
        }
    }

    /// Queues a report; `droppable` ones (log lines) are the first to go when the queue is full.
    func send(_ report: DevReport, droppable: Bool = false) {
        lock.withLock {
            guard !stopped else { return }
            if queue.count >= maxQueued {
                if let i = queue.firstIndex(where: { $0.droppable }) {
                    queue.remove(at: i)
                } else if droppable {
                    dropped += 1
                    return
                } else {
                    queue.removeFirst()
                }
                dropped += 1
            }
            queue.append((report, droppable))
        }
        pump()
    }

    /// The stream is down: its token is void; reports wait for the next one.
    func pause() { lock.withLock { paused = true; sessionToken = nil } }

    /// Sends again, with the token of the stream now open.
    func resume(session token: String) {
        lock.withLock { paused = false; sessionToken = token }
        pump()
    }

    /// Answers a ping on the stream at once (not queued behind reports): the server closes a
    /// stream whose pings go unanswered. One answer at a time; pings arriving meanwhile are
    /// answered once, with the latest nonce (the server takes any recent one), so a stream
    /// flooding pings gets a few answers, not one request per ping.
    func pong(_ nonce: String) {
        let now: Bool = lock.withLock {
            if pongInFlight { pendingNonce = nonce; return false }
            pongInFlight = true
            return true
        }
        if now { sendPong(nonce) }
    }

    private func sendPong(_ nonce: String) {
        guard let token = lock.withLock({ sessionToken }) else {
            return lock.withLock { pongInFlight = false; pendingNonce = nil }
        }
        var components = URLComponents(url: baseURL.appendingPathComponent(DevelopmentSession.pongPath), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "session", value: token), URLQueryItem(name: "nonce", value: nonce)]
        get(components.url!) { [weak self] _ in
            guard let self else { return }
            let next: String? = self.lock.withLock {
                defer { self.pendingNonce = nil }
                if self.pendingNonce == nil { self.pongInFlight = false }
                return self.pendingNonce
            }
            if let next { self.sendPong(next) }
        }
    }

    /// Drops what is queued and takes nothing more until `begin()`.
    func stop() {
        lock.withLock { stopped = true; paused = true; queue = []; dropped = 0 }
    }

    /// Takes reports again (a session started after a stop); they wait for `resume()`.
    func begin() {
        lock.withLock { stopped = false }
    }

    private func pump() {
        let next: (DevReport, String)? = lock.withLock {
            guard !sending, !paused, !stopped, let token = sessionToken else { return nil }
            if dropped > 0 {
                defer { dropped = 0 }
                return (DevReport(kind: .dropped, version: nil, message: "\(dropped) report\(dropped == 1 ? "" : "s") dropped (queue full)"), token)
            }
            guard !queue.isEmpty else { return nil }
            return (queue.removeFirst().report, token)
        }
        guard let (next, token) = next else { return }
        lock.withLock { sending = true }
        var components = URLComponents(url: baseURL.appendingPathComponent(DevelopmentSession.reportPath), resolvingAgainstBaseURL: false)!
        let payload = next.encoded().base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        components.queryItems = [URLQueryItem(name: "session", value: token), URLQueryItem(name: "r", value: payload)]
        get(components.url!) { [weak self] status in
            guard let self else { return }
            let ok = status == 204
            self.lock.withLock {
                self.sending = false
                // Not delivered (server gone): put it back and wait for the stream to return.
                if !ok, !self.stopped {
                    self.queue.insert((next, false), at: 0)
                    if self.queue.count > self.maxQueued { self.queue.removeLast(); self.dropped += 1 }
                    self.paused = true
                }
            }
            if ok { self.pump() }
        }
    }
}
