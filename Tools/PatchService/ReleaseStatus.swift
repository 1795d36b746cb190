import Foundation

/// Telemetry counted per channel, release, kind and hour (unix seconds at the start of the hour).
public struct TelemetryCount: Codable, Equatable, Sendable {
    /// The channel the reporting devices follow (a promoted release is counted per channel).
    public var channel: String
    public var releaseID: String
    public var kind: String
    public var hour: Int
    public var count: Int
    public init(channel: String, releaseID: String, kind: String, hour: Int, count: Int) {
        self.channel = channel
        self.releaseID = releaseID; self.kind = kind; self.hour = hour; self.count = count
    }
}

/// One channel (a delegated targets role) as the service's `/api/status` and status page show it.
public struct ChannelStatus: Codable, Equatable, Sendable {
    public var channel: String
    /// The version of the channel role's metadata.
    public var version: Int
    /// When that version expires (`YYYY-MM-DDTHH:MM:SSZ`).
    public var expires: String?
    /// Set when the role has expired or expires within the service's warning window: the
    /// channel's devices stop taking its releases (and revocations) once it has expired.
    public var expiryWarning: String?
    public var releases: [ReleaseStatus]
    public init(channel: String, version: Int, expires: String? = nil, expiryWarning: String? = nil, releases: [ReleaseStatus]) {
        self.channel = channel; self.version = version; self.expires = expires; self.expiryWarning = expiryWarning; self.releases = releases
    }
}

/// One release with the counts devices reported for it, as its channel role's custom metadata
/// (`PatchRelease`) describes it.
public struct ReleaseStatus: Codable, Equatable, Sendable {
    /// The release name: the target path without `<channel>/`.
    public var releaseID: String
    public var patchID: String
    public var version: Int
    /// Hundredths of a percent.
    public var rollout: Int
    /// "enabled" or "disabled".
    public var state: String
    public var applied: Int
    public var failed: Int
    public var reverted: Int
    public var disabledByGuard: Int
    /// Hourly counts, for the chart.
    public var timeline: [TelemetryCount]

    public init(releaseID: String, patchID: String, version: Int, rollout: Int, state: String, applied: Int, failed: Int,
                reverted: Int, disabledByGuard: Int, timeline: [TelemetryCount]) {
        self.releaseID = releaseID; self.patchID = patchID; self.version = version; self.rollout = rollout; self.state = state
        self.applied = applied; self.failed = failed; self.reverted = reverted; self.disabledByGuard = disabledByGuard
        self.timeline = timeline
    }
}
