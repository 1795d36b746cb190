import Foundation

/// How often and how patiently a download is retried: exponential back-off between attempts.
/// Retried: transport errors (refused connection, timeout, reset) and HTTP 408, 429, 500, 502, 503, 504.
/// Not retried: other HTTP errors (a 404 stays a 404) and oversized responses.
public struct RetryPolicy: Equatable, Sendable {
    /// Attempts in all, the first one included (1 means no retry).
    public var maxAttempts: Int
    /// The wait after the first failed attempt.
    public var initialDelay: TimeInterval
    /// Each further wait is the previous one times this.
    public var multiplier: Double
    /// No wait is longer than this.
    public var maxDelay: TimeInterval

    public init(maxAttempts: Int = 3, initialDelay: TimeInterval = 0.5, multiplier: Double = 2, maxDelay: TimeInterval = 8) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialDelay = max(0, initialDelay)
        self.multiplier = max(1, multiplier)
        self.maxDelay = max(0, maxDelay)
    }

    /// Three attempts, waiting 0.5 s then 1 s.
    public static let standard = RetryPolicy()
    /// One attempt.
    public static let none = RetryPolicy(maxAttempts: 1)

    /// The wait after failed attempt `attempt` (1-based): `initialDelay × multiplier^(attempt−1)`, capped.
    public func delay(afterAttempt attempt: Int) -> TimeInterval {
        min(maxDelay, initialDelay * pow(multiplier, Double(max(0, attempt - 1))))
    }

    /// The waits between all attempts, in order (`maxAttempts − 1` of them).
    public var delays: [TimeInterval] { (1..<maxAttempts).map(delay(afterAttempt:)) }

    /// HTTP statuses worth another try: the server may be fine a moment later.
    public static func isRetryable(status: Int) -> Bool {
        [408, 429, 500, 502, 503, 504].contains(status)
    }
}
