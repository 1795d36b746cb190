import Foundation

/// How the updater reaches a repository. Implementations must stop reading as soon as a
/// response passes `maxLength` bytes (an endless response is an attack, spec §5.2.x "endless
/// data") and give up at `deadline`.
public protocol Transport: Sendable {
    /// The body of `url`, at most `maxLength` bytes.
    func fetch(_ url: URL, maxLength: Int64, deadline: Date) async throws -> Data
}

/// Why a download failed.
public enum TransportError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The server answered with a status other than 200.
    case status(Int, url: String)
    /// More than `maxLength` bytes arrived (or were announced); the download was cut.
    case tooLarge(url: String, maxLength: Int64)
    /// The deadline passed.
    case timedOut(url: String)
    /// The connection failed or the URL can't be fetched.
    case failed(url: String, reason: String)

    /// 403 and 404: what a repository answers for a file it doesn't have (spec §5.3.3: the end of
    /// the root chain).
    public var isNotFound: Bool {
        if case .status(let code, _) = self { return code == 403 || code == 404 }
        return false
    }

    public var description: String {
        switch self {
        case .status(let code, let url): return "\(url): HTTP status \(code)"
        case .tooLarge(let url, let max): return "\(url): more than \(max) bytes, download cut"
        case .timedOut(let url): return "\(url): timed out"
        case .failed(let url, let reason): return "\(url): \(reason)"
        }
    }
}
