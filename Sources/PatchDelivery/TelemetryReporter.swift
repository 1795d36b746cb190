import Foundation
import PatchSupport
import PatchUpdater

/// Sends release telemetry to a collector: opt-in (an app creates one only if the user agreed),
/// batched, retried with exponential back-off, bounded everywhere, and never in the app's way.
///
/// - `record(_:)` only appends under a lock and wakes a background queue: launch never waits on
///   the network or the disk.
/// - The queue holds at most `maxEvents` events and `maxSpoolBytes` of encoded events; past
///   either, the oldest are dropped and counted (`stats.dropped`, and `dropped` in the next batch).
/// - The queue is mirrored to `telemetry-spool.json` in `directory` (atomic writes, a bounded read at
///   start), so events survive a relaunch, and the file obeys the same byte cap.
/// - One request at a time, each ended after `requestTimeout`; a failure waits
///   `initialBackoff · 2ⁿ` (at most `maxBackoff`) before the next try.
public final class TelemetryReporter: @unchecked Sendable {
    public struct Configuration: Sendable {
        public var collectorURL: URL
        public var appID: String
        public var appVersion: String
        public var channel: String
        /// Where the spool file lives; nil keeps events in memory only.
        public var directory: URL?
        /// Events per request.
        public var batchSize = 50
        /// A partial batch is sent this long after its first event.
        public var flushInterval: TimeInterval = 30
        public var maxEvents = 1000
        public var maxSpoolBytes = 256 << 10
        public var requestTimeout: TimeInterval = 10
        public var initialBackoff: TimeInterval = 2
        public var maxBackoff: TimeInterval = 600
        public var allowsInsecureHTTP = false

        public init(collectorURL: URL, appID: String, appVersion: String, channel: String, directory: URL?) {
            self.collectorURL = collectorURL
            self.appID = appID
            self.appVersion = appVersion
            self.channel = channel
            self.directory = directory
        }
    }

    /// Counters, for the app's diagnostics and for tests.
    public struct Stats: Equatable, Sendable {
        public var queued = 0
        public var queuedBytes = 0
        public var sent = 0
        public var dropped = 0
        public var failedAttempts = 0
        /// Events in batches the collector refused for good (a 4xx other than 408 and 429: an
        /// unknown release, another app): dropped, not retried, and counted as dropped in the next batch.
        public var refused = 0
    }

    public let configuration: Configuration
    private let transport: TelemetryTransport
    private let queue = DispatchQueue(label: "PatchDelivery.Telemetry", qos: .utility)
    /// The queue, its counts and the sending schedule: `pendingBytes` is the sum over `pending`,
    /// `droppedSinceSent` what the next batch reports, so they change together.
    fileprivate struct State {
        var pending: [(seq: Int, event: TelemetryEvent, bytes: Int)] = []
        var nextSeq = 0
        var pendingBytes = 0
        var droppedSinceSent = 0
        var stats = Stats()
        var dirty = false
        var workScheduled = false
        var timerScheduled = false
        var backoffUntil: DispatchTime?
        var consecutiveFailures = 0
    }
    private let state: LockedValue<State>
    private let spoolURL: URL?

    private struct Spool: Codable {
        var dropped: Int
        var events: [TelemetryEvent]
    }

    /// - Throws: `PatchClientError.configuration` for `http://` without `allowsInsecureHTTP`.
    public init(configuration: Configuration, transport: TelemetryTransport? = nil) throws {
        let scheme = configuration.collectorURL.scheme?.lowercased()
        guard scheme == "https" || (scheme == "http" && configuration.allowsInsecureHTTP) else {
            throw PatchClientError.configuration("telemetry collector \(configuration.collectorURL.absoluteString) is not https:// (http:// only with allowsInsecureHTTP)")
        }
        self.configuration = configuration
        self.transport = transport ?? HTTPTelemetryTransport(timeout: configuration.requestTimeout)
        spoolURL = configuration.directory?.appendingPathComponent("telemetry-spool.json")
        if let spoolURL, let data = try? BoundedFile.contents(of: spoolURL, limit: Int64(configuration.maxSpoolBytes)),
           let spool = try? JSONDecoder().decode(Spool.self, from: data) {
            var restored = State()
            restored.droppedSinceSent = spool.dropped
            for event in spool.events { restored.append(event, limits: configuration) }
            state = LockedValue(restored)
            if !restored.pending.isEmpty { schedule(after: 0) }
        } else {
            state = LockedValue(State())
        }
    }

    /// Queues an event; returns at once (see the type's documentation).
    public func record(_ event: TelemetryEvent) {
        let sendNow: Bool = state.withLock { state in
            state.append(event, limits: configuration)
            return state.pending.count >= configuration.batchSize
        }
        schedule(after: sendNow ? 0 : configuration.flushInterval)
    }

    public var currentStats: Stats {
        state.withLock { state in
            var s = state.stats
            s.queued = state.pending.count
            s.queuedBytes = state.pendingBytes
            return s
        }
    }

    /// Tries to send everything queued now (ignoring `flushInterval` and the back-off) and waits at
    /// most `timeout` seconds. Returns whether the queue was emptied. For an app going to the
    /// background, and for tests.
    @discardableResult
    public func flush(timeout: TimeInterval) -> Bool {
        let done = DispatchSemaphore(value: 0)
        let end = DispatchTime.now() + timeout
        queue.async {
            self.state.withLock { state in state.backoffUntil = nil }
            while DispatchTime.now() < end, self.sendOne(force: true) {}
            self.persistIfDirty()
            done.signal()
        }
        guard done.wait(timeout: end) == .success else { return false }
        return state.withLock { state in state.pending.isEmpty }
    }

    /// Room for the spool's envelope (`{"dropped":…,"events":[…]}`) within `maxSpoolBytes`.
    fileprivate static let spoolOverhead = 64

    // MARK: - Background work (on `queue`)

    private func schedule(after delay: TimeInterval) {
        let run: Bool = state.withLock { state in
            if delay == 0 {
                if state.workScheduled { return false }
                state.workScheduled = true
                return true
            }
            if state.timerScheduled || state.workScheduled { return false }
            state.timerScheduled = true
            return true
        }
        guard run else { return }
        queue.asyncAfter(deadline: .now() + delay) { [weak self] in
            guard let self else { return }
            self.state.withLock { state in if delay == 0 { state.workScheduled = false } else { state.timerScheduled = false } }
            self.persistIfDirty()
            while self.sendOne(force: false) {}
            self.persistIfDirty()
        }
    }

    /// Sends one batch if there is one and no back-off is running; true when another may follow at once.
    private func sendOne(force: Bool) -> Bool {
        let taken: (batch: TelemetryBatch, count: Int, lastSeq: Int)? = state.withLock { state in
            guard !state.pending.isEmpty else { return nil }
            if !force, let until = state.backoffUntil, DispatchTime.now() < until { return nil }
            let slice = state.pending.prefix(configuration.batchSize)
            return (TelemetryBatch(appID: configuration.appID, appVersion: configuration.appVersion, channel: configuration.channel,
                                   dropped: state.droppedSinceSent, events: slice.map(\.event)), slice.count, slice.last!.seq)
        }
        guard let taken, let body = try? JSONEncoder().encode(taken.batch) else { return false }
        let delivery = transport.deliver(body, to: configuration.collectorURL)
        return state.withLock { state in
            if delivery == .refused {
                // Retrying can't help, and would hold every later event behind this batch.
                while let first = state.pending.first, first.seq <= taken.lastSeq {
                    state.pendingBytes -= state.pending.removeFirst().bytes
                }
                state.stats.refused += taken.count
                state.droppedSinceSent += taken.count
                state.consecutiveFailures = 0
                state.backoffUntil = nil
                state.dirty = true
                return !state.pending.isEmpty
            }
            if delivery == .accepted {
                // Events dropped meanwhile came off the front; remove only what is still there of this batch.
                while let first = state.pending.first, first.seq <= taken.lastSeq {
                    state.pendingBytes -= state.pending.removeFirst().bytes
                }
                state.stats.sent += taken.count
                state.droppedSinceSent = max(0, state.droppedSinceSent - taken.batch.dropped)
                state.consecutiveFailures = 0
                state.backoffUntil = nil
                state.dirty = true
                return !state.pending.isEmpty
            }
            state.stats.failedAttempts += 1
            state.consecutiveFailures += 1
            let delay = min(configuration.maxBackoff, configuration.initialBackoff * pow(2, Double(min(state.consecutiveFailures - 1, 30))))
            state.backoffUntil = .now() + delay
            if !force {
                queue.asyncAfter(deadline: .now() + delay) { [weak self] in
                    guard let self else { return }
                    while self.sendOne(force: false) {}
                    self.persistIfDirty()
                }
            }
            return false
        }
    }

    private func persistIfDirty() {
        guard let spoolURL else { return }
        let spool: Spool? = state.withLock { state in
            guard state.dirty else { return nil }
            state.dirty = false
            return Spool(dropped: state.droppedSinceSent, events: state.pending.map(\.event))
        }
        guard let spool, let data = try? JSONEncoder().encode(spool) else { return }
        try? AtomicFile.write(data, to: spoolURL)
    }
}

/// How a batch reaches the collector; swapped in tests.
public protocol TelemetryTransport: Sendable {
    /// Sends one batch; true when the collector accepted it (2xx). Must end within its own timeout.
    func send(_ body: Data, to url: URL) -> Bool
    /// Sends one batch and says whether it was accepted, refused for good or may be retried.
    func deliver(_ body: Data, to url: URL) -> TelemetryDelivery
}

/// What became of one batch.
public enum TelemetryDelivery: Sendable, Equatable {
    case accepted
    /// The collector won't take it, now or later (a 4xx other than 408 and 429).
    case refused
    /// Not delivered (no answer, 5xx, 408, 429): tried again after a back-off.
    case failed
}

extension TelemetryTransport {
    public func deliver(_ body: Data, to url: URL) -> TelemetryDelivery {
        send(body, to: url) ? .accepted : .failed
    }
}

/// POSTs a batch through the device's `Transport` (AsyncHTTPClient, as the updater): the request
/// ends after `timeout`, at most 4 KB of the answer is read (the status is all that counts), no
/// redirect is followed. `deliver` blocks its caller (the reporter's own queue) until then.
public final class HTTPTelemetryTransport: TelemetryTransport, @unchecked Sendable {
    private let timeout: TimeInterval
    private let transport: Transport

    public init(timeout: TimeInterval, transport: Transport = HTTPTransport.shared) {
        self.timeout = timeout
        self.transport = transport
    }

    public func send(_ body: Data, to url: URL) -> Bool {
        deliver(body, to: url) == .accepted
    }

    public func deliver(_ body: Data, to url: URL) -> TelemetryDelivery {
        let (transport, timeout) = (self.transport, self.timeout)
        let deadline = Date().addingTimeInterval(timeout)
        let status = BlockingWait.run(until: deadline.addingTimeInterval(1)) {
            try? await transport.post(url, body: body, maxLength: 4096, deadline: deadline).status
        } ?? nil
        switch status {
        case (200..<300)?: return .accepted
        case 408?, 429?: return .failed
        case (400..<500)?: return .refused
        default: return .failed
        }
    }
}

extension TelemetryReporter.State {
    /// Appends and trims to both caps, dropping the oldest.
    mutating func append(_ event: TelemetryEvent, limits: TelemetryReporter.Configuration) {
        let bytes = (try? JSONEncoder().encode(event).count) ?? TelemetryEvent.maxDetailLength * 2
        nextSeq += 1
        pending.append((nextSeq, event, bytes + 1))
        pendingBytes += bytes + 1
        while !pending.isEmpty && (pending.count > limits.maxEvents || pendingBytes + TelemetryReporter.spoolOverhead > limits.maxSpoolBytes) {
            pendingBytes -= pending.removeFirst().bytes
            stats.dropped += 1
            droppedSinceSent += 1
        }
        dirty = true
    }
}
