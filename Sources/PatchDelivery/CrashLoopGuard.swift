import Foundation

/// Stops a patch that keeps the app from launching, and only that patch.
///
/// Applying a patch first marks it "pending" on disk; `markLaunchSucceeded()` clears every
/// pending mark. If the mark can't be written (read-only or full disk, something planted where
/// the guard's file goes), `willApply` throws and the loader does not apply the patch: a patch the
/// guard can't count could crash the app at every launch.
///
/// When a launch starts, the guard judges the launches before it, in this order:
/// 1. a launch that ended while `update()` waited on the network, before the network brought a
///    patch, is not held against the patches it had applied (at most `maxExcusedNetworkWaits`
///    such launches until one succeeds, so a patch that crashes the app during that wait is still caught);
/// 2. during a culprit search (`CulpritSearch`), a trial that failed `threshold` launches in a
///    row gets its verdict: a single patch is disabled, a larger trial is halved;
/// 3. otherwise, once a pending patch reached `threshold` launches in a row that applied it and
///    never succeeded: if it was the only pending patch it is disabled (persisted; the loader
///    neither applies nor downloads it again); with several pending patches, a search starts and
///    the next launches apply only some of them until the culprit is pinned.
/// A launch counts only from the moment it applies a patch: one that is killed before applying
/// anything doesn't count. A newer version of a disabled patch is a fresh start.
///
/// With the default threshold 2 and one patch: launch 1 applies v3 and crashes; launch 2 applies
/// v3 again and crashes; launch 3 finds v3 pending after 2 launches and disables it.
public final class CrashLoopGuard {
    /// Launches in a row without success after which a pending patch (or a trial) is judged.
    public let threshold: Int
    /// Launches that may end during the network wait without counting, until a launch succeeds.
    public static let maxExcusedNetworkWaits = 5

    struct Record: Codable, Equatable {
        struct Pending: Codable, Equatable {
            var version: Int
            /// Launches that applied this version and did not (yet) reach launch success.
            var launches: Int
            /// The launch (serial) that counted last; nil in files written before serials.
            var launch: Int?
            /// When this version was first marked on this device (higher is newer).
            var order: Int?
        }
        var pending: [String: Pending] = [:]
        /// Disabled versions per patch id.
        var disabled: [String: [Int]] = [:]
        var search: CulpritSearch?
        /// The serial of the last launch that applied a patch.
        var launchSerial: Int?
        /// The next `Pending.order`.
        var nextOrder: Int?
        /// The launch that was waiting on the network when this record was written.
        var networkWaitLaunch: Int?
        /// Launches in a row excused for ending during the network wait.
        var excusedNetworkWaits: Int?
    }

    /// What judging the earlier launches decided, reported by the loader when the launch starts.
    public enum Verdict: Equatable, Sendable {
        /// This patch version is disabled after `launches` failed launches.
        case disabled(PatchVersionID, launches: Int)
        /// Several patches were pending through failed launches: a search for the culprit began.
        case searchStarted(suspects: [PatchVersionID])
    }

    private let store: JSONFileStore<Record>
    private var record: Record
    /// The serial of this launch, once it has applied a patch (and the guard recorded it).
    private var thisLaunch: Int?
    private var appliedThisLaunch: Set<PatchVersionID> = []
    /// Judging the earlier launches changed the record and that is not on disk yet.
    private var unsaved = false
    /// The launch count each patch version got in this process: re-applying a version in the same
    /// launch (after a failed upgrade, say) restores its mark without counting the launch twice.
    private var countedThisLaunch: [String: Int] = [:]

    /// Why the guard's file was unreadable when it was opened (it then starts empty).
    public let loadProblem: String?
    /// What this launch concluded about the earlier ones.
    public private(set) var verdicts: [Verdict] = []

    /// Opens (or creates) the guard's file `launch-guard.json` in `directory`, judges the launches
    /// before this one and writes the judgement (if that fails, the next write carries it; until
    /// then the same judgement would be made again). Judging counts no launch.
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
        judgeEarlierLaunches()
        if unsaved, (try? store.save(record)) != nil { unsaved = false }
    }

    /// Whether this patch version has been disabled.
    public func isDisabled(patchID: String, version: Int) -> Bool {
        record.disabled[patchID]?.contains(version) ?? false
    }

    /// Launches so far that applied this version and never reached launch success (outside a search).
    public func unconfirmedLaunches(patchID: String, version: Int) -> Int {
        guard let p = record.pending[patchID], p.version == version else { return 0 }
        return p.launches
    }

    /// Whether a culprit search is under way.
    public var isSearching: Bool { record.search != nil }

    /// Whether this launch holds the version back: a search is under way and it is neither
    /// cleared nor part of the trial.
    public func holdsBack(patchID: String, version: Int) -> Bool {
        guard let search = record.search else { return false }
        return !search.allows(PatchVersionID(patchID: patchID, version: version))
    }

    /// Records that this launch applies the patch version (pending until launch success).
    /// Throws when that can't be written; the patch must then not be applied.
    func willApply(patchID: String, version: Int) throws {
        let id = PatchVersionID(patchID: patchID, version: version)
        var r = record
        let launch = thisLaunch ?? (r.launchSerial ?? 0) + 1
        r.launchSerial = launch
        // The network brought a patch: from now on this launch counts in full.
        r.networkWaitLaunch = nil
        var counted = countedThisLaunch
        if var search = r.search {
            search.willApply(id, launch: launch)
            r.search = search
        } else {
            let key = id.description
            let previous = r.pending[patchID]
            let launches = counted[key] ?? unconfirmedLaunches(patchID: patchID, version: version) + 1
            counted[key] = launches
            var order = previous?.version == version ? previous?.order : nil
            if order == nil {
                order = r.nextOrder ?? 1
                r.nextOrder = order! + 1
            }
            r.pending[patchID] = Record.Pending(version: version, launches: launches, launch: launch, order: order)
        }
        if r != record || unsaved { try store.save(r) }
        record = r
        unsaved = false
        countedThisLaunch = counted
        thisLaunch = launch
        appliedThisLaunch.insert(id)
    }

    /// Forgets the pending mark of this version (it was reverted or failed, so it can't be what
    /// crashes the app). A revoked or superseded patch also leaves a culprit search.
    func forget(patchID: String, version: Int, leavesDevice: Bool = false) throws {
        appliedThisLaunch.remove(PatchVersionID(patchID: patchID, version: version))
        var r = record
        if r.pending[patchID]?.version == version { r.pending[patchID] = nil }
        if leavesDevice, var search = r.search {
            search.remove(patchID: patchID)
            r.search = search.isOver ? nil : search
        }
        guard r != record else { return }
        record = r
        try store.save(r)
    }

    /// `update()` is about to wait on the network. If this launch already applied patches (from the
    /// cache) and is killed during the wait (the system's launch watchdog, the user), the next
    /// launch does not hold that against them. Best effort: if this can't be written, the launch counts.
    func networkWaitBegins() {
        guard let launch = thisLaunch, record.networkWaitLaunch != launch else { return }
        var r = record
        r.networkWaitLaunch = launch
        if (try? store.save(r)) != nil { record = r }
    }

    /// The network wait is over: this launch counts again in full.
    func networkWaitEnded() {
        guard record.networkWaitLaunch != nil else { return }
        var r = record
        r.networkWaitLaunch = nil
        if (try? store.save(r)) != nil { record = r }
    }

    /// The app launched fine: nothing applied so far is suspect any more. During a search, the
    /// suspects this launch applied are cleared; returns them.
    @discardableResult
    public func markLaunchSucceeded() throws -> [PatchVersionID] {
        var r = record
        var cleared: [PatchVersionID] = []
        r.pending = [:]
        r.networkWaitLaunch = nil
        r.excusedNetworkWaits = nil
        if var search = r.search {
            cleared = search.launchSucceeded(applied: appliedThisLaunch)
            r.search = search.isOver ? nil : search
        }
        guard r != record || unsaved else { return cleared }
        try store.save(r)
        record = r
        unsaved = false
        return cleared
    }

    // MARK: - Judging earlier launches

    /// In memory; `init` writes it.
    private func judgeEarlierLaunches() {
        let before = record
        defer { unsaved = record != before }
        if let waiting = record.networkWaitLaunch {
            record.networkWaitLaunch = nil
            let excused = record.excusedNetworkWaits ?? 0
            if excused < Self.maxExcusedNetworkWaits {
                record.excusedNetworkWaits = excused + 1
                for (id, p) in record.pending where p.launch == waiting {
                    record.pending[id]?.launches -= 1
                    record.pending[id]?.launch = nil
                    if p.launches <= 1 { record.pending[id] = nil }
                }
                record.search?.withdraw(launch: waiting)
            }
        }
        if var search = record.search {
            if search.trialFailed(threshold: threshold) {
                let launches = search.failedLaunches
                if let culprit = search.concludeFailedTrial() {
                    disable(culprit, launches: launches)
                }
            }
            record.search = search.isOver ? nil : search
            return
        }
        guard record.pending.values.contains(where: { $0.launches >= threshold }) else { return }
        let suspects = record.pending
            .sorted { ($0.value.order ?? 0, $0.key) > ($1.value.order ?? 0, $1.key) }
            .map { PatchVersionID(patchID: $0.key, version: $0.value.version) }
        if suspects.count == 1 {
            disable(suspects[0], launches: record.pending[suspects[0].patchID]!.launches)
        } else {
            record.search = CulpritSearch(suspects: suspects)
            verdicts.append(.searchStarted(suspects: suspects))
        }
        record.pending = [:]
    }

    private func disable(_ id: PatchVersionID, launches: Int) {
        record.disabled[id.patchID, default: []].append(id.version)
        record.pending[id.patchID] = nil
        verdicts.append(.disabled(id, launches: launches))
    }
}
