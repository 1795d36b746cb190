import PatchFormat

/// Why a refresh or download failed. Each case names the role and what was wrong.
public enum UpdaterError: Error, Equatable, CustomStringConvertible, Sendable {
    /// Metadata that doesn't parse or doesn't have the shape the specification defines.
    case malformed(role: String, reason: String)
    /// Fewer than the threshold of the delegator's keys signed it.
    case unsigned(role: String, reason: String)
    /// A version lower than the trusted one (a rollback), or not the one the referring metadata
    /// names.
    case badVersion(role: String, reason: String)
    /// The repository served the version the client already trusts; it is kept (not an error
    /// for the refresh: spec §5.4.3.2).
    case equalVersion(role: String)
    /// Expired metadata (a freeze attack, or a repository nobody re-signed).
    case expired(role: String)
    /// Length or hashes differ from what the referring metadata lists.
    case hashMismatch(role: String, reason: String)
    /// Signed metadata names a length above the configured maximum for `what` (a metadata file
    /// or a target): refused before anything is read or allocated.
    case tooLarge(what: String, length: Int64, limit: Int64)
    /// A role the search needed and snapshot doesn't list, or a delegation that cannot be
    /// followed.
    case missing(role: String, reason: String)
    /// The trusted metadata on disk can't be used (no root, an invalid root).
    case localState(String)
    /// The target file isn't listed by any role trusted for its path.
    case targetNotFound(String)
    /// A target's bytes don't match its metadata.
    case targetMismatch(path: String, reason: String)
    /// The network failed.
    case download(TransportError)
    /// A file could not be written.
    case storage(String)

    public var description: String {
        switch self {
        case .malformed(let role, let reason): return "\(role): malformed: \(reason)"
        case .unsigned(let role, let reason): return "\(role): signature threshold not met: \(reason)"
        case .badVersion(let role, let reason): return "\(role): bad version: \(reason)"
        case .equalVersion(let role): return "\(role): same version as the trusted one"
        case .expired(let role): return "\(role): expired"
        case .hashMismatch(let role, let reason): return "\(role): \(reason)"
        case let .tooLarge(what, length, limit): return "\(what): signed length \(length) is over the \(limit)-byte limit"
        case .missing(let role, let reason): return "\(role): \(reason)"
        case .localState(let reason): return "local metadata: \(reason)"
        case .targetNotFound(let path): return "target \(path): not listed by any trusted role"
        case .targetMismatch(let path, let reason): return "target \(path): \(reason)"
        case .download(let error): return "download failed: \(error)"
        case .storage(let reason): return "storage: \(reason)"
        }
    }

    /// An answer that is stale rather than none: metadata past its expiry (the repository's
    /// timestamp, snapshot, top-level targets or the device's own channel role), or a timestamp
    /// older than the one the device holds. A freeze looks like this; a dead network does not.
    public var isStale: Bool {
        switch self {
        case .expired: return true
        case .badVersion(let role, _): return role == "timestamp"
        default: return false
        }
    }
}
