import Foundation
import PatchFormat
import PatchUpdater
import PatchSupport

/// Why a `PatchClient` refused something or could not proceed. Every refusal is also reported
/// as an event; nothing refused is applied.
public enum PatchClientError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The configuration can't be used (an `http://` repository, an unreadable app version or bundled root).
    case configuration(String)
    /// The network failed (the device keeps running what it last verified).
    case network(TransportError)
    /// Metadata failed a TUF check (signature, version, hash, delegation): nothing of it is taken.
    case metadata(UpdaterError)
    /// The repository answered with stale metadata (`UpdaterError.isStale`: expired, or a
    /// timestamp older than the one held): a freeze, or a repository nobody re-signs. Unlike
    /// `network`, the releases of the channel stop running.
    case stale(UpdaterError)
    /// What the device verified last could be shown fresh until `freshUntil` (its earliest
    /// expiry), longer ago than `maxStaleness` allows: its releases stop.
    case staleBeyondBound(freshUntil: Date)
    /// Trusted metadata trusts a development key for `role` (the live QA loop's keys never sign
    /// what a production build runs).
    case developmentKey(role: String)
    /// No delegation reaches the channel role this app follows.
    case noChannel(String)
    /// A release's custom metadata is missing or malformed.
    case releaseMetadata(path: String, reason: String)
    /// A release's target is larger than `maxTargetBytes`.
    case targetTooLarge(path: String, length: Int64)
    /// A release's target could not be had (download failed, or its bytes don't match the metadata).
    case target(path: String, UpdaterError)
    /// The crash-loop guard disabled this release's patch version on this device.
    case disabledByCrashLoop(patchID: String, version: Int)
    /// The last verified metadata on disk can't be used (missing, damaged, inconsistent).
    case storedMetadata(String)
    /// A file could not be written.
    case storage(String)
    /// `update()` ran out of time.
    case deadline

    /// A short stable name (telemetry, logs, tests).
    public var code: String {
        switch self {
        case .configuration: return "configuration"
        case .network: return "network"
        case .metadata: return "metadata"
        case .stale: return "stale"
        case .staleBeyondBound: return "stale-beyond-bound"
        case .developmentKey: return "development-key"
        case .noChannel: return "no-channel"
        case .releaseMetadata: return "release-metadata"
        case .targetTooLarge: return "target-too-large"
        case .target: return "target"
        case .disabledByCrashLoop: return "disabled-by-crash-loop"
        case .storedMetadata: return "stored-metadata"
        case .storage: return "storage"
        case .deadline: return "deadline"
        }
    }

    public var description: String {
        switch self {
        case .configuration(let reason): return "configuration: \(reason)"
        case .network(let error): return "network: \(LogSafe.escape(error.description))"
        case .metadata(let error): return "metadata refused: \(LogSafe.escape(error.description))"
        case .stale(let error): return "stale metadata refused: \(LogSafe.escape(error.description))"
        case .staleBeyondBound(let date): return "the metadata verified last was fresh until \(MetadataDate.format(date)), longer ago than maxStaleness allows"
        case .developmentKey(let role): return "\(LogSafe.escape(role)) trusts a development key: refused in a production client"
        case .noChannel(let channel): return "no delegation reaches channel \(LogSafe.escape(channel))"
        case let .releaseMetadata(path, reason): return "release \(LogSafe.escape(path)): \(LogSafe.escape(reason))"
        case let .targetTooLarge(path, length): return "release \(LogSafe.escape(path)): \(length) bytes is over the limit"
        case let .target(_, error): return LogSafe.escape(error.description)
        case let .disabledByCrashLoop(patchID, version): return "\(LogSafe.escape(patchID)) v\(version) is disabled by the crash-loop guard"
        case .storedMetadata(let reason): return "stored metadata unusable: \(LogSafe.escape(reason))"
        case .storage(let reason): return "storage: \(LogSafe.escape(reason))"
        case .deadline: return "update deadline passed"
        }
    }

    /// Sorts an updater failure into the network (keep what was verified) or a refusal.
    init(refreshing error: Error) {
        switch error {
        case UpdaterError.download(let transport): self = .network(transport)
        case let error as UpdaterError where error.isStale: self = .stale(error)
        case let error as UpdaterError: self = .metadata(error)
        case let error as PatchClientError: self = error
        default: self = .storage("\(error)")
        }
    }
}
