import Foundation

/// What the loader did, reported to the app (through the `onEvent` handler and returned from
/// each call), so it can log, show or count patch activity.
public enum PatchEvent: Equatable, CustomStringConvertible, Sendable {
    /// Where an applied patch came from.
    public enum Source: String, Sendable {
        /// The verified copy stored on disk by an earlier run.
        case cache
        /// Just downloaded and verified.
        case network
    }

    /// Why a running patch was reverted.
    public enum RevertReason: Equatable, Sendable {
        /// The revocation list names it.
        case revoked
        /// A newer version of the same patch replaces it.
        case superseded(byVersion: Int)
    }

    /// The patch's scripts were evaluated and are live.
    case applied(patchID: String, version: Int, source: Source)
    /// The server has nothing newer for `file` (a 304, or the same signed patch again).
    case upToDate(file: String, patchID: String?, version: Int?)
    /// The patch in `file` was refused; none of it was evaluated.
    case refused(file: String, reason: PatchRefusal)
    /// A script threw while being evaluated: the patch was rolled back (`message` is the engine's error).
    case failed(patchID: String, version: Int, message: String)
    /// A running patch was undone at run time.
    case reverted(patchID: String, version: Int, reason: RevertReason)
    /// A verified patch was stored on disk for the next launch.
    case cached(file: String, patchID: String, version: Int)
    /// The cached copy of `file` failed verification (corrupt, tampered, or no longer acceptable) and was deleted.
    case cacheDiscarded(file: String, reason: PatchRefusal)
    /// The crash-loop guard disabled this patch version: `launches` launches applied it and never succeeded.
    case disabledByCrashLoop(patchID: String, version: Int, launches: Int)
    /// Launches with several unconfirmed patches kept failing: the crash-loop guard is finding the
    /// culprit (newest first, then halves), so the next launches apply only some of `suspects`.
    case crashLoopSearchStarted(suspects: [PatchVersionID])
    /// Not applied in this launch: the crash-loop guard is trying other patches first (kept, not refused).
    case heldByCrashLoopGuard(patchID: String, version: Int)
    /// A launch with this patch version succeeded during a culprit search: it is not the culprit.
    case clearedByCrashLoopGuard(patchID: String, version: Int)
    /// Not applied: the crash-loop guard could not record it first (read-only or full disk, a
    /// planted file), and a patch it can't count could crash every launch. Kept for a later launch.
    case guardUnavailable(patchID: String, version: Int, message: String)
    /// Temporary files a crash left in the middle of a write were deleted at start (names only ours).
    case temporaryFilesRemoved(directory: String, files: [String])
    /// A verified revocation list was taken in (`revokedCount` entries).
    case revocationListUpdated(sequence: Int, revokedCount: Int)
    /// The revocation list was refused (bad signature, unknown key…); the last good one stays in force.
    case revocationListRefused(reason: PatchRefusal)
    /// The cached copy of `file` is not acceptable at this launch but may be later (it expired by
    /// this device's clock, which may be wrong): it was kept, not applied.
    case cacheSkipped(file: String, reason: PatchRefusal)
    /// No fresh revocation list: none taken in yet on this device (`sequence` nil), or the last one
    /// (issued at `issued`) is older than the freshness window or past its signed expiry. Patches
    /// from the network are held back until a fresh list arrives (with none at all, cached ones too).
    case revocationListStale(sequence: Int?, issued: Date?)
    /// Downloading `file` failed after every retry; what was cached stays in use.
    case fetchFailed(file: String, message: String)
    /// One copy of the device state was missing or unreadable; the other copy was used (and both are rewritten).
    case stateRestored(file: String, message: String)
    /// A state file on disk was unreadable and was started afresh.
    case stateReset(file: String, message: String)
    /// Writing the cache or state failed (disk full, permissions); the patch itself is still live.
    case storageFailed(message: String)

    public var description: String {
        switch self {
        case let .applied(id, version, source):
            return "applied \(id) v\(version) from \(source.rawValue)"
        case let .upToDate(file, id?, version?):
            return "up to date: \(file) (\(id) v\(version))"
        case let .upToDate(file, _, _):
            return "up to date: \(file)"
        case let .refused(file, reason):
            return "refused \(file): \(reason)"
        case let .failed(id, version, message):
            return "failed \(id) v\(version), rolled back: \(message)"
        case let .reverted(id, version, .revoked):
            return "reverted \(id) v\(version): revoked"
        case let .reverted(id, version, .superseded(newer)):
            return "reverted \(id) v\(version): superseded by v\(newer)"
        case let .cached(file, id, version):
            return "cached \(id) v\(version) (\(file))"
        case let .cacheDiscarded(file, reason):
            return "discarded cached \(file): \(reason)"
        case let .disabledByCrashLoop(id, version, launches):
            return "disabled \(id) v\(version): \(launches) launches in a row did not succeed with it"
        case let .crashLoopSearchStarted(suspects):
            let names = suspects.map(\.description).joined(separator: ", ")
            return "launches with \(names) kept failing: looking for the culprit, applying only some of them per launch"
        case let .heldByCrashLoopGuard(id, version):
            return "held back \(id) v\(version) for this launch: the crash-loop guard is trying other patches first"
        case let .clearedByCrashLoopGuard(id, version):
            return "\(id) v\(version) is not the culprit: a launch with it succeeded"
        case let .guardUnavailable(id, version, message):
            return "not applied \(id) v\(version): the crash-loop guard could not record it first (\(message))"
        case let .temporaryFilesRemoved(directory, files):
            return "removed \(files.count) temporary file\(files.count == 1 ? "" : "s") left by an interrupted write in \(directory): \(files.joined(separator: ", "))"
        case let .revocationListUpdated(sequence, count):
            return "revocation list #\(sequence): \(count) revoked"
        case let .revocationListRefused(reason):
            return "refused revocation list: \(reason)"
        case let .cacheSkipped(file, reason):
            return "skipped cached \(file), kept for a later launch: \(reason)"
        case .revocationListStale(nil, _):
            return "no revocation list taken in yet: patches are held until one arrives"
        case let .revocationListStale(sequence?, issued):
            let when = issued.map { " issued \(ISO8601DateFormatter().string(from: $0))" } ?? ""
            return "revocation list #\(sequence)\(when) is no longer fresh: network patches are held until a fresh one arrives"
        case let .stateRestored(file, message):
            return "state file \(file) was unreadable (\(message)); restored from the other copy"
        case let .fetchFailed(file, message):
            return "fetch failed for \(file): \(message)"
        case let .stateReset(file, message):
            return "state file \(file) was unreadable and was reset: \(message)"
        case let .storageFailed(message):
            return "storage failed: \(message)"
        }
    }
}
