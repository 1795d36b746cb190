import Foundation
import PatchFormat
import PatchUpdater

/// A channel's release as a device judges it: the target, its `PatchRelease` metadata.
struct ChannelRelease: Sendable {
    var target: ResolvedTarget
    var release: PatchRelease

    var reference: ReleaseReference {
        ReleaseReference(path: target.path, patchID: release.patchID, version: release.version,
                         sha256: target.file.hashes["sha256"] ?? "")
    }
}

/// Which releases of a channel a device runs, from each release's signed custom metadata.
///
/// Checks per release: `PatchRelease.exclusion(appID:appVersion:device:releaseID:)` (the one
/// rule, keyed by the target path), then not disabled by the crash-loop guard. Of the releases
/// that pass, per patch id, the highest version runs (equal versions: the greatest path, so
/// every device decides alike); the others are `superseded`.
/// Metadata that doesn't parse (a malformed range among it) refuses the release
/// (`releaseMetadata`), never matches it.
struct ChannelSelection {
    /// The release each patch id runs.
    private(set) var chosen: [String: ChannelRelease] = [:]
    /// Why each listed release that doesn't run is left out, by path.
    private(set) var exclusions: [String: DeviceExclusion] = [:]
    /// Releases whose metadata is refused, by path.
    private(set) var refusals: [(path: String, reason: PatchClientError)] = []
    /// Every listed release whose metadata was read.
    private(set) var releases: [ChannelRelease] = []

    init(targets: [ResolvedTarget], appID: String, appVersion: SemanticVersion, device: DeviceProfile,
         isBlocked: (PatchRelease) -> Bool) {
        var eligible: [ChannelRelease] = []
        for target in targets {
            let release: PatchRelease
            do {
                guard let parsed = try PatchRelease(custom: target.file.custom) else {
                    refusals.append((target.path, .releaseMetadata(path: target.path, reason: "no patchengine custom metadata")))
                    continue
                }
                release = parsed
                releases.append(ChannelRelease(target: target, release: parsed))
            } catch {
                refusals.append((target.path, .releaseMetadata(path: target.path, reason: "\(error)")))
                continue
            }
            if let exclusion = Self.exclusion(of: release, path: target.path, appID: appID, appVersion: appVersion,
                                              device: device, isBlocked: isBlocked) {
                exclusions[target.path] = exclusion
            } else {
                eligible.append(ChannelRelease(target: target, release: release))
            }
        }
        for candidate in eligible {
            let id = candidate.release.patchID
            if let current = chosen[id] {
                let wins = (candidate.release.version, candidate.target.path) > (current.release.version, current.target.path)
                exclusions[wins ? current.target.path : candidate.target.path] = .superseded
                if wins { chosen[id] = candidate }
            } else {
                chosen[id] = candidate
            }
        }
    }

    static func exclusion(of release: PatchRelease, path: String, appID: String, appVersion: SemanticVersion,
                          device: DeviceProfile, isBlocked: (PatchRelease) -> Bool) -> DeviceExclusion? {
        if let exclusion = release.exclusion(appID: appID, appVersion: appVersion, device: device, releaseID: path) { return exclusion }
        if isBlocked(release) { return .blocked }
        return nil
    }
}
