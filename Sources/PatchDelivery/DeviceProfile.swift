import Crypto
import Foundation

/// What a device tells the release logic about itself. Supplied by the app; only the rollout
/// bucket derived from `deviceID` ever leaves the device (telemetry carries the bucket, never the id).
public struct DeviceProfile: Equatable, Sendable {
    /// A stable, app-chosen id (e.g. a random UUID kept in the app's storage). Not sent anywhere.
    public var deviceID: String
    /// The OS version, as a semantic version (`17.4`); nil when unknown (then an OS range never matches).
    public var osVersion: SemanticVersion?
    /// The hardware model (`iPhone15,2`); nil when unknown (then a model list never matches).
    public var model: String?
    /// App-supplied attributes matched by a release's targeting (`tier: beta`).
    public var attributes: [String: String]

    public init(deviceID: String, osVersion: SemanticVersion? = nil, model: String? = nil, attributes: [String: String] = [:]) {
        self.deviceID = deviceID
        self.osVersion = osVersion
        self.model = model
        self.attributes = attributes
    }
}

/// A device's stable position for one release, 0..<10000: the first 8 bytes of
/// SHA-256(releaseID + "\n" + deviceID), big-endian, modulo 10000. A device is in a rollout of
/// `r` hundredths of a percent when its bucket is below `r`, so raising a rollout only adds
/// devices and lowering it only removes them; mixing in the release id gives each release an
/// independent sample (the same 1 % of devices doesn't get every first wave).
public enum RolloutBucket {
    public static let count = ReleaseChannel.fullRollout

    public static func bucket(deviceID: String, releaseID: String) -> Int {
        let digest = SHA256.hash(data: Data((releaseID + "\n" + deviceID).utf8))
        let value = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Int(value % UInt64(count))
    }
}

extension ReleaseChannel.Targeting {
    /// Whether a device running `appVersion` with `profile` is targeted.
    public func matches(appVersion: SemanticVersion, profile: DeviceProfile) -> Bool {
        if let appVersions, !appVersions.contains(appVersion) { return false }
        if let osVersions {
            guard let os = profile.osVersion, osVersions.contains(os) else { return false }
        }
        if let models {
            guard let model = profile.model, models.contains(model) else { return false }
        }
        for (key, allowed) in attributes ?? [:] {
            guard let value = profile.attributes[key], allowed.contains(value) else { return false }
        }
        return true
    }
}

/// Why a device does not run a release of a channel.
public enum ReleaseExclusion: String, Equatable, Sendable {
    /// The release is disabled (reversibly): enabling it again re-applies it.
    case disabled
    /// The device is not among the release's targets (app or OS version, model, attribute).
    case notTargeted = "not-targeted"
    /// The device's bucket is at or above the rollout.
    case outsideRollout = "outside-rollout"
    /// A later release of the same patch is the one this device runs.
    case superseded
    /// The channel no longer lists the release.
    case withdrawn
    /// Revoked, or disabled on this device by the crash-loop guard: the previous release runs instead.
    case blocked
}

/// Which release of each patch id a device runs: per patch id, the latest release in the channel
/// that is enabled, targets the device and whose rollout includes the device's bucket. Lowering
/// a rollout or disabling a release therefore falls back to the previous release the device
/// qualifies for (or to none).
public struct ReleaseSelection: Equatable, Sendable {
    /// The chosen release per patch id.
    public let chosen: [String: ReleaseChannel.Release]
    private let exclusions: [String: ReleaseExclusion]

    /// - Parameter blocked: release ids this device must not run (revoked, or disabled by its crash-loop guard).
    public init(channel: ReleaseChannel, appVersion: SemanticVersion, profile: DeviceProfile, blocked: Set<String> = []) {
        var chosen: [String: ReleaseChannel.Release] = [:]
        var exclusions: [String: ReleaseExclusion] = [:]
        for release in channel.releases.reversed() {
            let exclusion: ReleaseExclusion?
            if chosen[release.patchID] != nil {
                exclusion = .superseded
            } else if release.state == .disabled {
                exclusion = .disabled
            } else if blocked.contains(release.releaseID) {
                exclusion = .blocked
            } else if !release.targeting.matches(appVersion: appVersion, profile: profile) {
                exclusion = .notTargeted
            } else if RolloutBucket.bucket(deviceID: profile.deviceID, releaseID: release.releaseID) >= release.rollout {
                exclusion = .outsideRollout
            } else {
                exclusion = nil
            }
            if let exclusion { exclusions[release.releaseID] = exclusion } else { chosen[release.patchID] = release }
        }
        self.chosen = chosen
        self.exclusions = exclusions
    }

    /// Why the device doesn't run `releaseID` (`withdrawn` if the channel doesn't list it); nil when it does.
    public func exclusion(of releaseID: String) -> ReleaseExclusion? {
        if chosen.values.contains(where: { $0.releaseID == releaseID }) { return nil }
        return exclusions[releaseID] ?? .withdrawn
    }
}
