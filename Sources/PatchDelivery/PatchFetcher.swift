import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging

/// Downloads one file with URLSession, streaming: conditional GET (ETag / If-None-Match),
/// retries with back-off, and bounds on everything a server controls —
/// - size: an announced `Content-Length` over the limit is refused before the body, and the
///   transfer is cancelled as soon as the received bytes pass the limit (memory stays flat
///   against an endless body);
/// - time: each attempt ends after `timeout` seconds start to end (a slow drip doesn't reset it),
///   and no attempt or wait runs past the caller's deadline;
/// - redirects: at most `maxRedirects`, never to plain HTTP unless allowed.
/// Blocks the calling thread until done (the session works on its own queue).
final class PatchFetcher {
    enum Outcome: Equatable {
        /// 200: the body and the server's ETag (if it sent one).
        case fetched(Data, etag: String?)
        /// 304: the copy we hold (whose ETag we sent) is current.
        case notModified
        /// Every attempt failed; the last reason.
        case failed(String)
    }

    static let maxRedirects = 5

    private let session: URLSession
    private let transfers: Transfers
    private let timeout: TimeInterval
    private let retryPolicy: RetryPolicy
    private let maxBytes: Int
    private let sleep: (TimeInterval) -> Void
    private let logger: Logger

    init(timeout: TimeInterval, retryPolicy: RetryPolicy, maxBytes: Int, allowsInsecureHTTP: Bool,
         sleep: @escaping (TimeInterval) -> Void, logger: Logger) {
        let configuration = URLSessionConfiguration.ephemeral
        // Our own ETag handling decides what is fresh; a URL cache would answer 304s for us.
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        transfers = Transfers(maxBytes: maxBytes, allowsInsecureHTTP: allowsInsecureHTTP)
        session = URLSession(configuration: configuration, delegate: transfers, delegateQueue: nil)
        self.timeout = timeout
        self.retryPolicy = retryPolicy
        self.maxBytes = maxBytes
        self.sleep = sleep
        self.logger = logger
    }

    deinit { session.invalidateAndCancel() }

    /// Fetches `url`, retrying as the policy says, but never past `deadline`.
    func fetch(_ url: URL, ifNoneMatch etag: String?, deadline: Deadline) -> Outcome {
        var lastReason = "no attempt made"
        for attempt in 1...retryPolicy.maxAttempts {
            if attempt > 1 {
                let delay = retryPolicy.delay(afterAttempt: attempt - 1)
                guard delay < deadline.remaining else {
                    return .failed("\(lastReason); no time left for attempt \(attempt) within the update's \(deadline.description)")
                }
                logger.info("retrying \(LogSafe.escape(url.absoluteString)) in \(delay) s (attempt \(attempt) of \(retryPolicy.maxAttempts)): \(lastReason)")
                sleep(delay)
            }
            guard !deadline.hasPassed else {
                return .failed(attempt == 1 ? "not attempted: the update's \(deadline.description) had passed"
                                            : "\(lastReason); the update's \(deadline.description) passed")
            }
            switch once(url, etag: etag, deadline: deadline) {
            case .done(let outcome):
                return outcome
            case .retryable(let reason):
                lastReason = reason
            }
        }
        return .failed(retryPolicy.maxAttempts > 1 ? "\(lastReason) (after \(retryPolicy.maxAttempts) attempts)" : lastReason)
    }

    private enum Attempt {
        case done(Outcome)
        case retryable(String)
    }

    private func once(_ url: URL, etag: String?, deadline: Deadline) -> Attempt {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        if let etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
        let task = session.dataTask(with: request)
        let transfer = transfers.begin(task)
        task.resume()
        let cutByDeadline = deadline.remaining < timeout
        let wait = min(timeout, deadline.remaining)
        if transfer.done.wait(timeout: .now() + wait) == .timedOut {
            task.cancel()
            transfers.end(task)
            return cutByDeadline ? .done(.failed("stopped at the update's \(deadline.description)"))
                                 : .retryable("timed out after \(timeout) s")
        }
        transfers.end(task)
        let result = transfer.result()
        if let refusal = result.refusal {
            return .done(.failed(refusal))
        }
        if let error = result.error {
            return .retryable(LogSafe.escape(error.localizedDescription))
        }
        guard let http = result.response as? HTTPURLResponse else {
            return .done(.failed("not an HTTP response"))
        }
        switch http.statusCode {
        case 200:
            return .done(.fetched(result.body, etag: http.value(forHTTPHeaderField: "ETag").flatMap(Self.usableETag)))
        case 304:
            return .done(.notModified)
        case let status where RetryPolicy.isRetryable(status: status):
            return .retryable("HTTP \(status)")
        case let status:
            return .done(.failed("HTTP \(status) \(HTTPURLResponse.localizedString(forStatusCode: status))"))
        }
    }

    /// An ETag worth keeping and sending back: at most 256 characters of visible ASCII (RFC 9110's
    /// entity-tag characters). Anything else from a server is dropped, so it never reaches the
    /// state file or a request header, and the file is simply fetched whole next time.
    static func usableETag(_ text: String) -> String? {
        guard !text.isEmpty, text.utf8.count <= 256, text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else { return nil }
        return text
    }

    /// The session's delegate: collects each task's bytes up to the limit and refuses what is
    /// over it, too many redirects, or a downgrade to plain HTTP.
    private final class Transfers: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        let maxBytes: Int
        let allowsInsecureHTTP: Bool
        private let lock = NSLock()
        private var running: [Int: Transfer] = [:]

        init(maxBytes: Int, allowsInsecureHTTP: Bool) {
            self.maxBytes = maxBytes
            self.allowsInsecureHTTP = allowsInsecureHTTP
        }

        func begin(_ task: URLSessionTask) -> Transfer {
            let transfer = Transfer()
            lock.withLock { running[task.taskIdentifier] = transfer }
            return transfer
        }

        func end(_ task: URLSessionTask) {
            _ = lock.withLock { running.removeValue(forKey: task.taskIdentifier) }
        }

        private func transfer(_ task: URLSessionTask) -> Transfer? {
            lock.withLock { running[task.taskIdentifier] }
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
            let announced = response.expectedContentLength
            if (response as? HTTPURLResponse)?.statusCode == 200, announced > maxBytes {
                transfer(dataTask)?.refuse("the server announced \(announced) bytes, more than the \(maxBytes)-byte limit")
                completionHandler(.cancel)
                return
            }
            transfer(dataTask)?.setResponse(response)
            completionHandler(.allow)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            guard let transfer = transfer(dataTask) else { return }
            if !transfer.append(data, limit: maxBytes) {
                transfer.refuse("the response passed the \(maxBytes)-byte limit; the transfer was cancelled")
                dataTask.cancel()
            }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
            transfer(task)?.finish(error)
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
            guard let transfer = transfer(task) else { return completionHandler(nil) }
            let scheme = request.url?.scheme?.lowercased()
            guard scheme == "https" || (allowsInsecureHTTP && scheme == "http") else {
                transfer.refuse("refused a redirect to \(LogSafe.escape(request.url?.absoluteString ?? "nothing")): HTTPS is required")
                // Not followed: the task ends with the redirect response itself (cancelling here
                // as well crashes FoundationNetworking on Linux).
                return completionHandler(nil)
            }
            guard transfer.countRedirect() <= PatchFetcher.maxRedirects else {
                transfer.refuse("more than \(PatchFetcher.maxRedirects) redirects")
                return completionHandler(nil)
            }
            completionHandler(request)
        }
    }

    /// One attempt's state, written on the session's queue and read by the waiting thread.
    private final class Transfer: @unchecked Sendable {
        let done = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var body = Data()
        private var response: URLResponse?
        private var error: Error?
        private var refusal: String?
        private var redirects = 0
        private var finished = false

        func setResponse(_ r: URLResponse) { lock.withLock { response = r } }

        /// Appends unless that would pass `limit`; false once over it (nothing more is kept).
        func append(_ data: Data, limit: Int) -> Bool {
            lock.withLock {
                guard refusal == nil, body.count + data.count <= limit else { return false }
                body.append(data)
                return true
            }
        }

        func refuse(_ reason: String) {
            lock.withLock { if refusal == nil { refusal = reason; body = Data() } }
        }

        func countRedirect() -> Int { lock.withLock { redirects += 1; return redirects } }

        func finish(_ e: Error?) {
            let first: Bool = lock.withLock {
                defer { finished = true }
                error = e
                return !finished
            }
            if first { done.signal() }
        }

        func result() -> (body: Data, response: URLResponse?, error: Error?, refusal: String?) {
            lock.withLock { (body, response, error, refusal) }
        }
    }
}
