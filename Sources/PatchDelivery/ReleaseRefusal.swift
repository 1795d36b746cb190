import Foundation

/// Why a release channel document, or the patch a release names, was not accepted.
public enum ReleaseRefusal: Error, Equatable, CustomStringConvertible, Sendable {
    /// The file failed a patch-level check (parse, key, signature, app, expiry, revoked, crash loop…).
    case patch(PatchRefusal)
    /// The document is for another app.
    case wrongApp(expected: String, found: String)
    /// The document is for another channel than the one this app follows.
    case wrongChannel(expected: String, found: String)
    /// A lower sequence than the document already taken in (a replayed older rollout).
    case channelRollback(sequence: Int, current: Int)
    /// The same sequence as the document taken in, with other content.
    case channelReplay(sequence: Int)
    /// The patch file's signed content is not the one the release names.
    case digestMismatch(releaseID: String, expected: String, found: String)
    /// The patch file carries another version than the release names.
    case versionMismatch(releaseID: String, expected: Int, found: Int)

    public var code: String {
        switch self {
        case .patch(let refusal): return refusal.code
        case .wrongApp: return "wrong-app"
        case .wrongChannel: return "wrong-channel"
        case .channelRollback: return "channel-rollback"
        case .channelReplay: return "channel-replay"
        case .digestMismatch: return "digest-mismatch"
        case .versionMismatch: return "version-mismatch"
        }
    }

    public var description: String {
        switch self {
        case .patch(let refusal): return refusal.description
        case let .wrongApp(expected, found): return "release channel is for app '\(found)', this app is '\(expected)'"
        case let .wrongChannel(expected, found): return "release channel '\(found)' is not the channel this app follows ('\(expected)')"
        case let .channelRollback(sequence, current):
            return "release channel #\(sequence) is older than #\(current) already taken in (rollback)"
        case .channelReplay(let sequence): return "release channel #\(sequence) differs from the #\(sequence) already taken in (replay)"
        case let .digestMismatch(id, expected, found):
            return "release '\(id)' names patch digest \(expected), the file carries \(found)"
        case let .versionMismatch(id, expected, found):
            return "release '\(id)' names version \(expected), the file carries \(found)"
        }
    }
}

/// What a `ReleaseLoader` did, as it happens.
public enum ReleaseEvent: Equatable, CustomStringConvertible, Sendable {
    /// Why a running release stopped running.
    public enum RevertReason: Equatable, Sendable {
        case excluded(ReleaseExclusion)
        case revoked
    }

    case channelUpdated(channel: String, sequence: Int)
    case channelUnchanged(channel: String, sequence: Int?)
    case channelRefused(reason: ReleaseRefusal)
    /// The newest document is older than `channelMaxAge` or past its expiry: nothing changes until a fresh one.
    case channelStale(channel: String, sequence: Int?)
    case applied(releaseID: String, patchID: String, version: Int, source: PatchEvent.Source)
    /// A script threw: the release is rolled back and the previous one restored.
    case failed(releaseID: String, patchID: String, version: Int, message: String)
    case reverted(releaseID: String, patchID: String, version: Int, reason: RevertReason)
    case refused(releaseID: String, reason: ReleaseRefusal)
    case disabledByCrashLoop(releaseID: String, patchID: String, version: Int, launches: Int)
    case fetchFailed(file: String, message: String)
    case revocationListUpdated(sequence: Int)
    case revocationListRefused(reason: PatchRefusal)
    case revocationListStale(sequence: Int?)
    case storageFailed(message: String)

    public var description: String {
        switch self {
        case let .channelUpdated(channel, sequence): return "channel '\(channel)' #\(sequence) taken in"
        case let .channelUnchanged(channel, sequence): return "channel '\(channel)' unchanged (#\(sequence.map(String.init) ?? "none"))"
        case .channelRefused(let reason): return "channel refused: \(reason)"
        case let .channelStale(channel, sequence): return "channel '\(channel)' (#\(sequence.map(String.init) ?? "none")) is not fresh: nothing changes until a fresh one arrives"
        case let .applied(id, patch, version, source): return "release \(id) applied (\(patch) v\(version), from \(source))"
        case let .failed(id, patch, version, message): return "release \(id) failed (\(patch) v\(version)): \(LogSafe.escape(message))"
        case let .reverted(id, patch, version, reason):
            switch reason {
            case .excluded(let exclusion): return "release \(id) reverted (\(patch) v\(version)): \(exclusion.rawValue)"
            case .revoked: return "release \(id) reverted (\(patch) v\(version)): revoked"
            }
        case let .refused(id, reason): return "release \(id) refused: \(reason)"
        case let .disabledByCrashLoop(id, patch, version, launches):
            return "release \(id) (\(patch) v\(version)) disabled by the crash-loop guard after \(launches) launches"
        case let .fetchFailed(file, message): return "fetching \(LogSafe.escape(file)) failed: \(LogSafe.escape(message))"
        case .revocationListUpdated(let sequence): return "revocation list #\(sequence) taken in"
        case .revocationListRefused(let reason): return "revocation list refused: \(reason)"
        case .revocationListStale(let sequence): return "revocation list (#\(sequence.map(String.init) ?? "none")) is not fresh: network releases held back"
        case .storageFailed(let message): return "storage failed: \(LogSafe.escape(message))"
        }
    }
}
