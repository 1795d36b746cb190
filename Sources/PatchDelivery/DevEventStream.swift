import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One server-sent-events connection (`text/event-stream`), read with a URLSession data delegate
/// as bytes arrive and parsed in each callback (`EventStreamParser`: linear, bounded). Bounded:
/// more than `maxEventBytes` or too many lines without a complete event cut the connection, and
/// so does silence longer than `silenceTimeout` (the server sends heartbeats). Calls `onClose`
/// once, whatever ends it (the server, the network, `cancel()`).
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
    private var parser: EventStreamParser
    private var plain: PlainHTTPStreamReader?
    private var lastByte = Date()
    private var closed = false
    private var failure: String?
    private var watchdog: DispatchSourceTimer?

    init(url: URL, maxEventBytes: Int, silenceTimeout: TimeInterval, onOpen: @escaping () -> Void,
         onEvent: @escaping (String, String) -> Void, onClose: @escaping (String) -> Void) {
        self.url = url
        self.maxEventBytes = maxEventBytes
        self.parser = EventStreamParser(maxEventBytes: maxEventBytes)
        self.silenceTimeout = silenceTimeout
        self.onOpen = onOpen
        self.onEvent = onEvent
        self.onClose = onClose
    }

    func start() {
        if url.scheme == "http" { return startPlain() }
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

    /// http:// (a QA server on the local network): read with back-pressure, one socket read parsed
    /// before the next (`PlainHTTPStreamReader`). https:// goes through URLSession, which reads
    /// ahead of the parser without bound; there the parser's speed and limits are the defence.
    private func startPlain() {
        let reader = PlainHTTPStreamReader(url: url, accept: "text/event-stream", silenceTimeout: silenceTimeout)
        lock.withLock { plain = reader }
        reader.start(onOpen: { [weak self] in self?.onOpen() }, onBody: { [weak self] bytes in
            guard let self else { throw PlainHTTPStreamReader.Failure(description: "cancelled") }
            var events: [(String, String)] = []
            try self.lock.withLock { try self.parser.feed(bytes) { name, data in events.append((name, data)) } }
            for (name, data) in events { self.onEvent(name, data) }
        }, onEnd: { [weak self] why in self?.close(why) })
    }

    private func checkSilence() {
        let silent = lock.withLock { Date().timeIntervalSince(lastByte) > silenceTimeout }
        if silent { close("no data for \(silenceTimeout) s") }
    }

    /// Ends the connection once; later calls do nothing.
    private func close(_ why: String) {
        let (task, session, watchdog, plain): (URLSessionDataTask?, URLSession?, DispatchSourceTimer?, PlainHTTPStreamReader?) = lock.withLock {
            guard !closed else { return (nil, nil, nil, nil) }
            closed = true
            defer { self.task = nil; self.session = nil; self.watchdog = nil; self.plain = nil }
            return (self.task, self.session, self.watchdog, self.plain)
        }
        if let plain {
            plain.cancel()
            onClose(why)
            return
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
        let overflow: String? = lock.withLock {
            lastByte = Date()
            do {
                try data.withUnsafeBytes { bytes in try parser.feed(bytes) { name, data in events.append((name, data)) } }
                return nil
            } catch {
                return "\(error)"
            }
        }
        for (name, data) in events { onEvent(name, data) }
        if let overflow { close(overflow) }
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
