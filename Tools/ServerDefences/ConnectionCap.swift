import Foundation
import NIOCore
import PatchSupport

/// The connections open at once, capped, so a client opening connections in a loop can't take
/// every file descriptor. At the cap, a new connection takes the place of the one idle the
/// longest (no request in progress, or only part of a head): an attacker holding idle connections
/// loses the oldest of them to each real client. Only when every connection is in the middle of a
/// request (its head complete, its response not yet written) is the new one refused, with a 503
/// (`CapacityRefusal`). Also what a stopping server closes.
///
/// Connections report whether they're busy through `setBusy` (`RequestHeadLimiter` does).
public final class ConnectionCap: @unchecked Sendable {
    public let limit: Int
    /// The open connections and how many were shed, under one lock.
    private struct State {
        var open: [ObjectIdentifier: Entry] = [:]
        var shed = 0
    }
    private let state = LockedValue(State())

    fileprivate struct Entry {
        var channel: Channel
        /// Since when the connection has had nothing in progress; nil while it's busy.
        var idleSince: NIODeadline?
    }

    public init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// What `admit` decided.
    public enum Admission: Equatable {
        /// Counted in; there was room.
        case admitted
        /// Counted in in place of the longest-idle connection, which is being closed.
        case admittedByShedding
        /// Every slot is busy with a request: answer 503.
        case refused
    }

    /// Counts `channel` in (idle, from now) unless the cap is reached and no connection is idle;
    /// it's counted out when it closes.
    public func admit(_ channel: Channel) -> Admission {
        let id = ObjectIdentifier(channel)
        let (admission, victim) = state.withLock { state -> (Admission, Channel?) in
            var victim: Channel?
            if state.open.count >= limit {
                // The longest idle goes; O(limit), only while the cap is reached.
                guard let oldest = state.open.filter({ $0.value.idleSince != nil })
                    .min(by: { $0.value.idleSince! < $1.value.idleSince! }) else { return (.refused, nil) }
                victim = oldest.value.channel
                state.open[oldest.key] = nil
                state.shed += 1
            }
            state.open[id] = Entry(channel: channel, idleSince: .now())
            return (victim == nil ? .admitted : .admittedByShedding, victim)
        }
        victim?.close(promise: nil)
        if admission != .refused {
            channel.closeFuture.whenComplete { _ in
                self.state.withLock { state in
                    if state.open[id]?.channel === channel { state.open[id] = nil }
                }
            }
        }
        return admission
    }

    /// Marks a connection busy (a request in progress: never shed) or idle from now.
    public func setBusy(_ channel: Channel, _ busy: Bool) {
        let id = ObjectIdentifier(channel)
        state.withLock { state in
            guard state.open[id]?.channel === channel else { return }
            if busy {
                state.open[id]?.idleSince = nil
            } else if state.open[id]?.idleSince == nil {
                state.open[id]?.idleSince = .now()
            }
        }
    }

    /// Connections open now.
    public var count: Int { state.withLock { state in state.open.count } }

    /// Idle connections closed so far to make room for new ones.
    public var shedCount: Int { state.withLock { state in state.shed } }

    /// Asks every open connection to finish: an idle one closes now, one in the middle of a
    /// request closes once its response is written.
    public func quiesceAll() {
        let channels = state.withLock { state in state.open.values.map(\.channel) }
        for channel in channels { channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent()) }
    }

    /// Closes every open connection (their handlers see the close as usual).
    public func closeAll() {
        let channels = state.withLock { state in state.open.values.map(\.channel) }
        for channel in channels { channel.close(promise: nil) }
    }
}
