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
/// Checks per release, in this order (the first that fails excludes it): for this app id;
/// enabled; app version in `app_versions`; OS version in `os_versions`; model in `models`; every
/// `attributes` key has one of its values on the device; the device's bucket for the release
/// (`RolloutBucket`, keyed by the target path) below `rollout`; not disabled by the crash-loop
/// guard. Of the releases that pass, per patch id, the highest version runs (equal versions:
/// the greatest path, so every device decides alike); the others are `superseded`.
/// A range that doesn't parse refuses the release (`releaseMetadata`), never matches it.
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
            do {
                if let exclusion = try Self.exclusion(of: release, path: target.path, appID: appID, appVersion: appVersion,
                                                      device: device, isBlocked: isBlocked) {
                    exclusions[target.path] = exclusion
                } else {
                    eligible.append(ChannelRelease(target: target, release: release))
                }
            } catch let error as PatchClientError {
                refusals.append((target.path, error))
            } catch {
                refusals.append((target.path, .releaseMetadata(path: target.path, reason: "\(error)")))
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
                          device: DeviceProfile, isBlocked: (PatchRelease) -> Bool) throws -> DeviceExclusion? {
        func range(_ text: String, _ what: String) throws -> AppVersionRange {
            do { return try AppVersionRange(parsing: text) } catch {
                throw PatchClientError.releaseMetadata(path: path, reason: "\(what): \(error)")
            }
        }
        if release.app != appID { return .otherApp }
        if !release.enabled { return .disabled }
        if let text = release.appVersions, !(try range(text, "app_versions")).contains(appVersion) { return .notTargeted }
        if let text = release.osVersions {
            let allowed = try range(text, "os_versions")
            guard let os = device.osVersion, allowed.contains(os) else { return .notTargeted }
        }
        if let models = release.models {
            guard let model = device.model, models.contains(model) else { return .notTargeted }
        }
        for (key, allowed) in release.attributes ?? [:] {
            guard let value = device.attributes[key], allowed.contains(value) else { return .notTargeted }
        }
        if RolloutBucket.bucket(deviceID: device.deviceID, releaseID: path) >= release.rollout { return .outsideRollout }
        if isBlocked(release) { return .blocked }
        return nil
    }
}
