import Foundation
import PatchUpdater
import PatchSupport

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
    /// The queue and what decides when it moves, changed together.
    private struct State {
        var queue: [(report: DevReport, droppable: Bool)] = []
        var dropped = 0
        var sending = false
        var paused = true
        var stopped = true
        var sessionToken: String?
        /// A pong is on its way; `pendingNonce` is the latest ping that came meanwhile.
        var pongInFlight = false
        var pendingNonce: String?
    }
    private let state = LockedValue(State())

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
        state.withLock { state in
            guard !state.stopped else { return }
            if state.queue.count >= maxQueued {
                if let i = state.queue.firstIndex(where: { $0.droppable }) {
                    state.queue.remove(at: i)
                } else if droppable {
                    state.dropped += 1
                    return
                } else {
                    state.queue.removeFirst()
                }
                state.dropped += 1
            }
            state.queue.append((report, droppable))
        }
        pump()
    }

    /// The stream is down: its token is void; reports wait for the next one.
    func pause() { state.withLock { state in state.paused = true; state.sessionToken = nil } }

    /// Sends again, with the token of the stream now open.
    func resume(session token: String) {
        state.withLock { state in state.paused = false; state.sessionToken = token }
        pump()
    }

    /// Answers a ping on the stream at once (not queued behind reports): the server closes a
    /// stream whose pings go unanswered. One answer at a time; pings arriving meanwhile are
    /// answered once, with the latest nonce (the server takes any recent one), so a stream
    /// flooding pings gets a few answers, not one request per ping.
    func pong(_ nonce: String) {
        let now: Bool = state.withLock { state in
            if state.pongInFlight { state.pendingNonce = nonce; return false }
            state.pongInFlight = true
            return true
        }
        if now { sendPong(nonce) }
    }

    private func sendPong(_ nonce: String) {
        guard let token = state.withLock({ state in state.sessionToken }) else {
            return state.withLock { state in state.pongInFlight = false; state.pendingNonce = nil }
        }
        var components = URLComponents(url: baseURL.appendingPathComponent(DevelopmentSession.pongPath), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "session", value: token), URLQueryItem(name: "nonce", value: nonce)]
        get(components.url!) { [weak self] _ in
            guard let self else { return }
            let next: String? = state.withLock { state in
                defer { state.pendingNonce = nil }
                if state.pendingNonce == nil { state.pongInFlight = false }
                return state.pendingNonce
            }
            if let next { self.sendPong(next) }
        }
    }

    /// Drops what is queued and takes nothing more until `begin()`.
    func stop() {
        state.withLock { state in state.stopped = true; state.paused = true; state.queue = []; state.dropped = 0 }
    }

    /// Takes reports again (a session started after a stop); they wait for `resume()`.
    func begin() {
        state.withLock { state in state.stopped = false }
    }

    private func pump() {
        let next: (DevReport, String)? = state.withLock { state in
            guard !state.sending, !state.paused, !state.stopped, let token = state.sessionToken else { return nil }
            if state.dropped > 0 {
                defer { state.dropped = 0 }
                return (DevReport(kind: .dropped, version: nil, message: "\(state.dropped) report\(state.dropped == 1 ? "" : "s") dropped (queue full)"), token)
            }
            guard !state.queue.isEmpty else { return nil }
            return (state.queue.removeFirst().report, token)
        }
        guard let (next, token) = next else { return }
        state.withLock { state in state.sending = true }
        var components = URLComponents(url: baseURL.appendingPathComponent(DevelopmentSession.reportPath), resolvingAgainstBaseURL: false)!
        let payload = next.encoded().base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        components.queryItems = [URLQueryItem(name: "session", value: token), URLQueryItem(name: "r", value: payload)]
        get(components.url!) { [weak self] status in
            guard let self else { return }
            let ok = status == 204
            state.withLock { state in
                state.sending = false
                // Not delivered (server gone): put it back and wait for the stream to return.
                if !ok, !state.stopped {
                    state.queue.insert((next, false), at: 0)
                    if state.queue.count > self.maxQueued { state.queue.removeLast(); state.dropped += 1 }
                    state.paused = true
                }
            }
            if ok { self.pump() }
        }
    }
}
