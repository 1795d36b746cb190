import Foundation
import PatchFormat

/// Everything a `PatchClient` needs: where the repository is, the root shipped with the app,
/// which app, version, channel and device this is, where state is kept, and the limits.
public struct PatchClientConfiguration: Sendable {
    /// The repository's metadata folder (`…/metadata/`).
    public var metadataURL: URL
    /// The repository's target folder (`…/targets/`).
    public var targetsURL: URL
    /// The root metadata shipped in the app bundle: every later root must chain from it. At
    /// each launch the stored root is checked to chain from it (`RootAnchor`); it is installed
    /// when the device has none, an older one, or one that does not chain.
    public var bundledRoot: Data
    public var appID: String
    public var appVersion: String
    /// The channel role this app follows (`production`; QA builds follow `staging`).
    public var channel: String
    /// The device facts targeting and the rollout bucket use.
    public var device: DeviceProfile
    /// Trusted metadata, cached targets, the last verified copy and the crash-loop guard live here.
    public var stateDirectory: URL
    /// `update()` waits this long for the network at most; what hasn't arrived by then changes nothing.
    public var updateDeadline: TimeInterval = 30
    /// One download's deadline.
    public var downloadTimeout: TimeInterval = 20
    /// `http://` repositories are refused unless this is set (tests, a loopback demo).
    public var allowsInsecureHTTP = false
    /// Failed launches in a row after which a pending release is judged (`CrashLoopGuard`).
    public var crashLoopThreshold = 2
    /// A target larger than this is refused without being downloaded.
    public var maxTargetBytes: Int64 = 4 << 20
    /// How long past its expiry the metadata verified last may still run releases while no
    /// fresh metadata can be had (offline: no answer). Once the earliest expiry of the
    /// verified root, timestamp, snapshot, targets and channel role lies further back, the
    /// channel's releases stop (reverted, `metadataStale`) until a refresh succeeds. A refresh
    /// answered with stale metadata stops them at once when that metadata has expired too. Default 3 days: the timestamp is valid
    /// for a day, so a device that is offline runs a revoked release at most 4 days after the
    /// revocation, while a weekend or a long trip without the network leaves patches running.
    public var maxStaleness: TimeInterval = 3 * 86_400
    /// The current time (expiry of metadata is checked against it).
    public var clock: @Sendable () -> Date = { Date() }

    public init(metadataURL: URL, targetsURL: URL, bundledRoot: Data, appID: String, appVersion: String,
                channel: String, device: DeviceProfile, stateDirectory: URL) {
        self.metadataURL = metadataURL
        self.targetsURL = targetsURL
        self.bundledRoot = bundledRoot
        self.appID = appID
        self.appVersion = appVersion
        self.channel = channel
        self.device = device
        self.stateDirectory = stateDirectory
    }
}
