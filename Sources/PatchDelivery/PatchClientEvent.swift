import Foundation
import PatchFormat
import PatchSupport

/// One release of a channel as a `PatchClient` names it in events: the target path (the
/// release's id), the patch id and version from its custom metadata, and its SHA-256.
public struct ReleaseReference: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var path: String
    public var patchID: String
    public var version: Int
    public var sha256: String

    public init(path: String, patchID: String, version: Int, sha256: String) {
        self.path = path
        self.patchID = patchID
        self.version = version
        self.sha256 = sha256
    }

    public var description: String { "\(LogSafe.escape(path)) (\(LogSafe.escape(patchID)) v\(version))" }
}

/// What a `PatchClient` did, as it happens (returned from each call and given to `onEvent`).
public enum PatchClientEvent: Equatable, CustomStringConvertible, Sendable {
    /// Where an applied release's script came from.
    public enum Source: String, Sendable {
        /// Verified metadata and target stored by an earlier run (no network).
        case cache
        /// Fresh metadata from this update.
        case network
    }

    /// Fresh metadata was verified: the channel lists `releases` targets.
    case refreshed(channel: String, releases: Int)
    /// No fresh metadata (`reason`: network, refusal or a stale answer). After a stale answer
    /// the channel's releases stop (`metadataStale`); otherwise what runs stays as it was, within
    /// `maxStaleness`.
    case refreshFailed(PatchClientError)
    /// A release of the channel was refused (bad metadata, target, crash-loop guard…).
    case refused(path: String, reason: PatchClientError)
    case applied(ReleaseReference, source: Source)
    /// Its script threw: nothing of it stays, the release it was replacing runs again.
    case failed(ReleaseReference, message: String)
    case reverted(ReleaseReference, reason: DeviceExclusion)
    /// The channel lists the release, and it doesn't run on this device (reported by `update()`).
    case notSelected(ReleaseReference, reason: DeviceExclusion)
    /// The crash-loop guard disabled this release after `launches` failed launches.
    case disabledByCrashLoop(ReleaseReference, launches: Int)
    /// Several releases were pending through failed launches: the guard is finding the culprit.
    case crashLoopSearchStarted(suspects: [PatchVersionID])
    /// Launch from the last verified metadata was not possible.
    case storedMetadataUnusable(PatchClientError)
    /// The channel's metadata can no longer be shown fresh (`reason`): a refresh was answered
    /// with stale metadata while what the device verified last has expired, or that expired
    /// longer than `maxStaleness` ago. Every release of the channel stops (each `reverted` with `.stale`)
    /// until a refresh succeeds.
    case metadataStale(reason: String)
    /// The trusted root in the state folder did not chain from the root the app ships
    /// (`reason`): it was discarded with everything trusted under it, and the device starts
    /// again from the shipped root.
    case storedRootDiscarded(reason: String)
    case storageFailed(message: String)
    /// Files an interrupted atomic write left in `directory` (a folder of the state directory) were deleted.
    case temporaryFilesRemoved(directory: String, files: [String])

    public var description: String {
        switch self {
        case let .refreshed(channel, count): return "channel \(LogSafe.escape(channel)) refreshed: \(count) release(s) listed"
        case .refreshFailed(let reason): return "no fresh metadata: \(reason)"
        case let .refused(path, reason): return "release \(LogSafe.escape(path)) refused: \(reason)"
        case let .applied(release, source): return "release \(release) applied (from \(source.rawValue))"
        case let .failed(release, message): return "release \(release) failed: \(LogSafe.escape(message))"
        case let .reverted(release, reason): return "release \(release) reverted (\(reason.rawValue))"
        case let .notSelected(release, reason): return "release \(release) not run here (\(reason.rawValue))"
        case let .disabledByCrashLoop(release, launches): return "release \(release) disabled by the crash-loop guard after \(launches) failed launches"
        case .crashLoopSearchStarted(let suspects): return "crash-loop guard searching the culprit among \(suspects.map(\.description).joined(separator: ", "))"
        case .storedMetadataUnusable(let reason): return "last verified metadata unusable: \(reason)"
        case .metadataStale(let reason): return "channel metadata stale, its releases stop: \(LogSafe.escape(reason))"
        case .storedRootDiscarded(let reason): return "stored root discarded, starting again from the shipped root: \(LogSafe.escape(reason))"
        case .storageFailed(let message): return "storage failed: \(LogSafe.escape(message))"
        case let .temporaryFilesRemoved(directory, files):
            return "removed \(files.count) temporary file\(files.count == 1 ? "" : "s") left by an interrupted write in \(LogSafe.escape(directory)): "
                + files.map { LogSafe.escape($0) }.joined(separator: ", ")
        }
    }
}
