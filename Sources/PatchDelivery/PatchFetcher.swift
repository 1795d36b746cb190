import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging

/// Downloads one file with URLSession: timeout, conditional GET (ETag / If-None-Match),
/// retries with back-off, a size limit, and no redirect to plain HTTP unless allowed.
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

    private let session: URLSession
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
        self.session = URLSession(configuration: configuration,
                                  delegate: RedirectPolicy(allowsInsecureHTTP: allowsInsecureHTTP),
                                  delegateQueue: nil)
        self.timeout = timeout
        self.retryPolicy = retryPolicy
        self.maxBytes = maxBytes
        self.sleep = sleep
        self.logger = logger
    }

    deinit { session.invalidateAndCancel() }

    func fetch(_ url: URL, ifNoneMatch etag: String?) -> Outcome {
        var lastReason = "no attempt made"
        for attempt in 1...retryPolicy.maxAttempts {
            if attempt > 1 {
                let delay = retryPolicy.delay(afterAttempt: attempt - 1)
                logger.info("retrying \(url.absoluteString) in \(delay) s (attempt \(attempt) of \(retryPolicy.maxAttempts)): \(lastReason)")
                sleep(delay)
            }
            switch once(url, etag: etag) {
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

    private func once(_ url: URL, etag: String?) -> Attempt {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        if let etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
        let result = ResultBox()
        let done = DispatchSemaphore(value: 0)
        let task = session.dataTask(with: request) { data, response, error in
            result.set(data, response, error)
            done.signal()
        }
        task.resume()
        // The session enforces the timeout; this only guards against a task that never calls back.
        if done.wait(timeout: .now() + timeout + 5) == .timedOut {
            task.cancel()
            return .retryable("timed out after \(timeout) s")
        }
        let (data, response, error) = result.get()
        if let error {
            return .retryable(error.localizedDescription)
        }
        guard let http = response as? HTTPURLResponse else {
            return .done(.failed("not an HTTP response"))
        }
        switch http.statusCode {
        case 200:
            let body = data ?? Data()
            guard body.count <= maxBytes else {
                return .done(.failed("response is \(body.count) bytes, more than the \(maxBytes)-byte limit"))
            }
            return .done(.fetched(body, etag: http.value(forHTTPHeaderField: "ETag")))
        case 304:
            return .done(.notModified)
        case let status where RetryPolicy.isRetryable(status: status):
            return .retryable("HTTP \(status)")
        case let status:
            return .done(.failed("HTTP \(status) \(HTTPURLResponse.localizedString(forStatusCode: status))"))
        }
    }

    /// The completion handler's values, handed from the session's queue to the waiting thread.
    private final class ResultBox: @unchecked Sendable {
        private let lock = NSLock()
        private var value: (Data?, URLResponse?, Error?) = (nil, nil, nil)
        func set(_ d: Data?, _ r: URLResponse?, _ e: Error?) { lock.lock(); value = (d, r, e); lock.unlock() }
        func get() -> (Data?, URLResponse?, Error?) { lock.lock(); defer { lock.unlock() }; return value }
    }

    /// Follows redirects only to HTTPS (or HTTP when the app opted in): no silent downgrade.
    private final class RedirectPolicy: NSObject, URLSessionTaskDelegate {
        let allowsInsecureHTTP: Bool
        init(allowsInsecureHTTP: Bool) { self.allowsInsecureHTTP = allowsInsecureHTTP }

        func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
            let scheme = request.url?.scheme?.lowercased()
            completionHandler(scheme == "https" || (allowsInsecureHTTP && scheme == "http") ? request : nil)
        }
    }
}
