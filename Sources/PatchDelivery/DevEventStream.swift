import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One server-sent-events connection (`text/event-stream`), read with a URLSession data delegate
/// as bytes arrive. Bounded: a line longer than `maxEventBytes` cuts the connection, and so does
/// silence longer than `silenceTimeout` (the server sends heartbeats). Calls `onClose` once,
/// whatever ends it (the server, the network, `cancel()`).
final class EventStream: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let url: URL
    private let maxEventBytes: Int
    private let silenceTimeout: TimeInterval
    private let onOpen: () -> Void
    private let onEvent: (_ name: String, _ data: String) -> Void
    private let onClose: (String) -> Void
    private let lock = NSLock()
    private var session: URLSession?
    private var task: URLSessionDataTask?
    private var buffer = Data()
    private var eventName = ""
    private var dataLines: [String] = []
    private var lastByte = Date()
    private var closed = false
    private var failure: String?
    private var watchdog: DispatchSourceTimer?

    init(url: URL, maxEventBytes: Int, silenceTimeout: TimeInterval, onOpen: @escaping () -> Void,
         onEvent: @escaping (String, String) -> Void, onClose: @escaping (String) -> Void) {
        self.url = url
        self.maxEventBytes = maxEventBytes
        self.silenceTimeout = silenceTimeout
        self.onOpen = onOpen
        self.onEvent = onEvent
        self.onClose = onClose
    }

    func start() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = silenceTimeout
        // The stream is meant to last; silence, not length, ends it.
        configuration.timeoutIntervalForResource = 7 * 24 * 3600
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: silenceTimeout)
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        let task = session.dataTask(with: request)
        let watchdog = DispatchSource.makeTimerSource(queue: .global())
        let interval = max(0.05, min(1, silenceTimeout / 4))
        watchdog.schedule(deadline: .now() + interval, repeating: interval)
        watchdog.setEventHandler { [weak self] in self?.checkSilence() }
        lock.withLock {
            self.session = session
            self.task = task
            self.lastByte = Date()
            self.watchdog = watchdog
        }
        watchdog.resume()
        task.resume()
    }

    func cancel() { close("cancelled") }

    private func checkSilence() {
        let silent = lock.withLock { Date().timeIntervalSince(lastByte) > silenceTimeout }
        if silent { close("no data for \(silenceTimeout) s") }
    }

    /// Ends the connection once; later calls do nothing.
    private func close(_ why: String) {
        let (task, session, watchdog): (URLSessionDataTask?, URLSession?, DispatchSourceTimer?) = lock.withLock {
            guard !closed else { return (nil, nil, nil) }
            closed = true
            defer { self.task = nil; self.session = nil; self.watchdog = nil }
            return (self.task, self.session, self.watchdog)
        }
        guard let session else { return }
        watchdog?.cancel()
        task?.cancel()
        session.finishTasksAndInvalidate()
        onClose(why)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else {
            lock.withLock { failure = "HTTP \(status)" }
            completionHandler(.cancel)
            return
        }
        lock.withLock { lastByte = Date() }
        completionHandler(.allow)
        onOpen()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        var events: [(String, String)] = []
        let overflow: Bool = lock.withLock {
            lastByte = Date()
            buffer.append(data)
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                var line = buffer[buffer.startIndex..<newline]
                if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                buffer.removeSubrange(buffer.startIndex...newline)
                if let event = take(String(decoding: line, as: UTF8.self)) { events.append(event) }
            }
            buffer = Data(buffer)   // rebase indices after removals
            return buffer.count > maxEventBytes || dataLines.reduce(0, { $0 + $1.utf8.count }) > maxEventBytes
        }
        for (name, data) in events { onEvent(name, data) }
        if overflow { close("an event over \(maxEventBytes) bytes") }
    }

    /// One line of the stream (the text/event-stream format); returns a completed event.
    private func take(_ line: String) -> (String, String)? {
        if line.isEmpty {
            defer { eventName = ""; dataLines = [] }
            guard !dataLines.isEmpty else { return nil }
            return (eventName.isEmpty ? "message" : eventName, dataLines.joined(separator: "\n"))
        }
        if line.hasPrefix(":") { return nil }   // a comment: the heartbeat
        let field: Substring, value: Substring
        if let colon = line.firstIndex(of: ":") {
            field = line[..<colon]
            var rest = line[line.index(after: colon)...]
            if rest.first == " " { rest = rest.dropFirst() }
            value = rest
        } else {
            field = Substring(line)
            value = ""
        }
        switch field {
        case "event": eventName = String(value)
        case "data": dataLines.append(String(value))
        default: break
        }
        return nil
    }

    /// The session's idle timeout (set to `silenceTimeout`) usually notices silence before the
    /// watchdog does; both read the same.
    private func describe(_ error: Error) -> String {
        let ns = error as NSError
        if ns.domain == NSURLErrorDomain {
            switch ns.code {
            case NSURLErrorTimedOut: return "no data for \(silenceTimeout) s"
            case NSURLErrorCannotConnectToHost: return "cannot connect to \(LogSafe.escape(url.host ?? "the server"))"
            case NSURLErrorNetworkConnectionLost: return "the connection was lost"
            default: break
            }
        }
        return LogSafe.escape(ns.localizedDescription)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        let why = lock.withLock { failure } ?? error.map(describe) ?? "the server ended the stream"
        close(why)
    }
}
