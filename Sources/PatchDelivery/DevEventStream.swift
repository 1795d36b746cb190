import Foundation
import PatchUpdater
import PatchSupport

/// One server-sent-events connection (`text/event-stream`) through the device's `Transport`,
/// parsed as bytes arrive (`EventStreamParser`: linear, bounded) with back-pressure: the next
/// bytes are read from the connection only once the last ones are parsed, over http and https
/// alike. Bounded: more than `maxEventBytes` or too many lines without a complete event cut the
/// connection, and so does silence longer than `silenceTimeout` (the server sends heartbeats).
/// Calls `onClose` once, whatever ends it (the server, the network, `cancel()`).
final class EventStream: @unchecked Sendable {
    private struct Refused: Error, CustomStringConvertible { var description: String }

    private let url: URL
    private let transport: Transport
    private let silenceTimeout: TimeInterval
    private let onOpen: () -> Void
    private let onEvent: (_ name: String, _ data: String) -> Void
    private let onClose: (String) -> Void
    /// The parser, the running task and whether the stream closed: `close` cancels the task it
    /// finds and no later `start` keeps one.
    private struct State {
        var parser: EventStreamParser
        var task: Task<Void, Never>?
        var closed = false
    }
    private let state: LockedValue<State>

    init(url: URL, transport: Transport, maxEventBytes: Int, silenceTimeout: TimeInterval, onOpen: @escaping () -> Void,
         onEvent: @escaping (String, String) -> Void, onClose: @escaping (String) -> Void) {
        self.url = url
        self.transport = transport
        state = LockedValue(State(parser: EventStreamParser(maxEventBytes: maxEventBytes)))
        self.silenceTimeout = silenceTimeout
        self.onOpen = onOpen
        self.onEvent = onEvent
        self.onClose = onClose
    }

    func start() {
        let task = Task.detached { [self] in
            let why: String
            do {
                try await transport.stream(TransportRequest(url: url, headers: [("accept", "text/event-stream")]),
                                           silenceTimeout: silenceTimeout,
                                           onOpen: { [self] status in
                                               guard status == 200 else { throw Refused(description: "HTTP \(status)") }
                                               onOpen()
                                           },
                                           onChunk: { [self] bytes in try deliver(bytes) })
                why = "the server ended the stream"
            } catch {
                why = describe(error)
            }
            close(why)
        }
        let cancelled = state.withLock { state -> Bool in
            state.task = task
            return state.closed
        }
        if cancelled { task.cancel() }
    }

    func cancel() { close("cancelled") }

    /// Parses one piece of the body and hands on the events it completes (outside the lock).
    private func deliver(_ bytes: UnsafeRawBufferPointer) throws {
        var events: [(String, String)] = []
        try state.withLock { try $0.parser.feed(bytes) { name, data in events.append((name, data)) } }
        for (name, data) in events { onEvent(name, data) }
    }

    private func describe(_ error: Error) -> String {
        switch error {
        case TransportError.timedOut: return "no data for \(silenceTimeout) s"
        case is CancellationError: return "cancelled"
        case let error as TransportError: return LogSafe.escape(error.description)
        default: return LogSafe.escape("\(error)")
        }
    }

    /// Ends the connection once; later calls do nothing.
    private func close(_ why: String) {
        let task: Task<Void, Never>?? = state.withLock { state in
            guard !state.closed else { return nil }
            state.closed = true
            defer { state.task = nil }
            return .some(state.task)
        }
        guard let task else { return }
        task?.cancel()
        onClose(why)
    }
}
