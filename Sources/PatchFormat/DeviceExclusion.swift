/// Why a device does not run a release its channel lists.
public enum DeviceExclusion: String, Equatable, Sendable {
    /// The release's metadata says disabled (reversibly: enabling it again re-applies it).
    case disabled
    /// For another app id.
    case otherApp = "other-app"
    /// The device is not among the release's targets (app or OS version, model, attribute).
    case notTargeted = "not-targeted"
    /// The device's bucket is at or above the rollout.
    case outsideRollout = "outside-rollout"
    /// A higher version of the same patch is the one this device runs.
    case superseded
    /// The channel no longer lists the release (revoked).
    case withdrawn
    /// Disabled on this device by the crash-loop guard: a lower version of the patch runs instead, if any.
    case blocked
    /// The channel's metadata can no longer be shown fresh (`PatchClientEvent.metadataStale`).
    case stale
}
