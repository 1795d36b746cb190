import Foundation

/// Stops a patch that keeps the app from launching.
///
/// Applying a patch marks it "pending" on disk; `markLaunchSucceeded()` clears every pending
/// mark. A launch that finds a patch version still pending counts one launch that applied it and
/// never succeeded; once `threshold` such launches happened in a row, that version is disabled
/// (persisted) and the loader neither applies it nor downloads it again. A newer version of the
/// same patch is a fresh start.
///
/// With the default threshold 2: launch 1 applies v3 and crashes; launch 2 applies v3 again and
/// crashes; launch 3 finds v3 pending after 2 launches and disables it.
public final class CrashLoopGuard {
    /// Launches in a row without success after which a pending patch is disabled.
    public let threshold: Int

    private struct Record: Codable, Equatable {
        struct Pending: Codable, Equatable {
            var version: Int
            /// Launches that applied this version and did not (yet) reach launch success.
            var launches: Int
        }
        var pending: [String: Pending] = [:]
        /// Disabled versions per patch id.
        var disabled: [String: [Int]] = [:]
    }

    private let store: JSONFileStore<Record>
    private var record: Record
    /// The launch count each patch version got in this process: re-applying a version in the same
    /// launch (after a failed upgrade, say) restores its mark without counting the launch twice.
    private var countedThisLaunch: [String: Int] = [:]

    /// Why the guard's file was unreadable when it was opened (it then starts empty).
    public let loadProblem: String?

    /// Opens (or creates) the guard's file `launch-guard.json` in `directory`.
    public init(directory: URL, threshold: Int = 2) {
        self.threshold = max(1, threshold)
        self.store = JSONFileStore(url: directory.appendingPathComponent("launch-guard.json"))
        switch store.load() {
        case .success(let record):
            self.record = record ?? Record()
            self.loadProblem = nil
        case .failure(let error):
            self.record = Record()
            self.loadProblem = error.message
        }
    }

    /// Whether this patch version has been disabled.
    public func isDisabled(patchID: String, version: Int) -> Bool {
        record.disabled[patchID]?.contains(version) ?? false
    }

    /// Launches so far that applied this version and never reached launch success.
    public func unconfirmedLaunches(patchID: String, version: Int) -> Int {
        guard let p = record.pending[patchID], p.version == version else { return 0 }
        return p.launches
    }

    /// Disables the version if it has reached the threshold; returns whether it did.
    func disableIfLooping(patchID: String, version: Int) throws -> Bool {
        guard unconfirmedLaunches(patchID: patchID, version: version) >= threshold else { return false }
        record.disabled[patchID, default: []].append(version)
        record.pending[patchID] = nil
        try store.save(record)
        return true
    }

    /// Records that this launch applies the patch version (pending until launch success).
    func willApply(patchID: String, version: Int) throws {
        let key = "\(patchID)@\(version)"
        let launches = countedThisLaunch[key] ?? unconfirmedLaunches(patchID: patchID, version: version) + 1
        countedThisLaunch[key] = launches
        let pending = Record.Pending(version: version, launches: launches)
        guard record.pending[patchID] != pending else { return }
        record.pending[patchID] = pending
        try store.save(record)
    }

    /// Forgets a pending mark (the patch was reverted, so it can't be what crashes the app).
    func forget(patchID: String) throws {
        guard record.pending.removeValue(forKey: patchID) != nil else { return }
        try store.save(record)
    }

    /// The app launched fine: nothing applied so far is suspect any more.
    public func markLaunchSucceeded() throws {
        guard !record.pending.isEmpty else { return }
        record.pending = [:]
        try store.save(record)
    }
}
