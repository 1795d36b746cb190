/// Finds which of several patches makes launches fail, by launching with subsets of them, so that
/// only the culprit is disabled instead of every patch that happened to be pending.
///
/// It starts when launches that applied several unconfirmed patches kept failing; the suspects
/// are ordered newest first (the patch that arrived last is the likeliest culprit). Each launch
/// applies the patches already cleared plus the current trial, a subset of the suspects:
/// - a launch that reaches success clears every suspect it applied (a successful launch with a
///   patch proves it innocent);
/// - `threshold` failed launches in a row with one trial: a trial of a single patch pins it as a
///   culprit (disabled; the only way a patch is disabled); a larger trial holds a culprit, and the
///   next trial is its newest half.
/// The first trial is the newest suspect alone. When no subset is known to hold a culprit (after
/// one was pinned: there may be two), the trial is every remaining suspect. Each verdict clears or
/// pins a patch or halves the subset known to hold a culprit, so the search ends (no suspects
/// left) after a number of trials bounded by the suspects' count times its logarithm.
struct CulpritSearch: Codable, Equatable {
    /// Every patch the search began with, newest first: the order trials are taken in.
    private(set) var ranking: [PatchVersionID]
    /// Not yet judged, newest first.
    private(set) var suspects: [PatchVersionID]
    /// Applied in a launch that succeeded.
    private(set) var cleared: [PatchVersionID] = []
    /// Suspects known to contain a culprit (a launch with them failed); empty when not known.
    private(set) var guilty: [PatchVersionID]
    /// The suspects launches try now, besides the cleared patches.
    private(set) var trial: [PatchVersionID]
    /// Launches in a row that applied a patch during this trial and did not succeed.
    private(set) var failedLaunches = 0
    /// What those launches applied.
    private(set) var appliedInTrial: [PatchVersionID] = []
    /// The launch (`CrashLoopGuard`'s serial) `failedLaunches` last counted.
    private(set) var lastCountedLaunch: Int?

    /// Starts a search among `suspects`, given newest first (at least two).
    init(suspects: [PatchVersionID]) {
        ranking = suspects
        self.suspects = suspects
        guilty = suspects
        trial = Array(suspects.prefix(1))
    }

    var isOver: Bool { suspects.isEmpty }

    /// Whether a launch during the search may apply this patch version.
    func allows(_ id: PatchVersionID) -> Bool {
        cleared.contains(id) || trial.contains(id)
    }

    /// A patch of the trial (or a cleared one) is being applied in launch `launch`: the launch
    /// counts as failed until it reaches success.
    mutating func willApply(_ id: PatchVersionID, launch: Int) {
        if lastCountedLaunch != launch {
            failedLaunches += 1
            lastCountedLaunch = launch
        }
        if !appliedInTrial.contains(id) { appliedInTrial.append(id) }
    }

    /// Takes back the count of launch `launch` (it did not fail because of a patch).
    mutating func withdraw(launch: Int) {
        guard lastCountedLaunch == launch, failedLaunches > 0 else { return }
        failedLaunches -= 1
        lastCountedLaunch = nil
    }

    /// Whether the trial has failed `threshold` launches in a row and awaits its verdict.
    func trialFailed(threshold: Int) -> Bool { failedLaunches >= threshold }

    /// The verdict on a failed trial. Returns the culprit to disable when it is pinned.
    mutating func concludeFailedTrial() -> PatchVersionID? {
        var failed = suspects.filter { appliedInTrial.contains($0) }
        if failed.isEmpty {
            // Only cleared patches were applied and launches still failed: clearing them was wrong
            // (a fluke, or patches that fail only together), so they are suspects again.
            failed = cleared.filter { appliedInTrial.contains($0) }
            cleared.removeAll { failed.contains($0) }
            suspects = ranking.filter { suspects.contains($0) || failed.contains($0) }
        }
        failedLaunches = 0
        appliedInTrial = []
        lastCountedLaunch = nil
        if failed.count == 1 {
            suspects.removeAll { $0 == failed[0] }
            guilty = []
            nextTrial()
            return failed[0]
        }
        guilty = failed
        nextTrial()
        return nil
    }

    /// A launch that applied `applied` reached success. Returns the suspects it cleared.
    mutating func launchSucceeded(applied: Set<PatchVersionID>) -> [PatchVersionID] {
        let newlyCleared = suspects.filter { applied.contains($0) }
        if newlyCleared.isEmpty {
            // The trial didn't show up (its file is gone or was refused): it leaves the search,
            // and is judged afresh by the ordinary launch count if it comes back. Waiting for it
            // instead could hold every other suspect back for good.
            suspects.removeAll { trial.contains($0) }
        } else {
            cleared += newlyCleared
            suspects.removeAll { newlyCleared.contains($0) }
        }
        failedLaunches = 0
        appliedInTrial = []
        lastCountedLaunch = nil
        nextTrial()
        return newlyCleared
    }

    /// A patch left the device (revoked, superseded): nothing to judge about it any more.
    mutating func remove(patchID: String) {
        ranking.removeAll { $0.patchID == patchID }
        suspects.removeAll { $0.patchID == patchID }
        cleared.removeAll { $0.patchID == patchID }
        nextTrial()
    }

    private mutating func nextTrial() {
        guilty = guilty.filter { suspects.contains($0) }
        if guilty.isEmpty {
            trial = suspects
        } else {
            trial = Array(guilty.prefix((guilty.count + 1) / 2))  // the newest half
        }
    }
}
