import Foundation

/// One thing that happened to a release on a device, as reported to the collector. Carries the
/// device's rollout bucket for the release (0–9999), never the device id: nothing personal
/// leaves the device.
public struct TelemetryEvent: Codable, Equatable, Sendable {
    public enum Kind: String, Codable, Sendable {
        /// Installed from the network (re-applying the cached copy at later launches is not reported).
        case applied
        case failed
        case reverted
        /// The crash-loop guard disabled the release on this device.
        case disabledByGuard = "disabled-by-guard"
    }

    public var kind: Kind
    public var releaseID: String
    public var patchID: String
    public var version: Int
    public var bucket: Int
    /// For `failed`: the error (escaped, cut to a bounded length). For `reverted`: the reason code.
    public var detail: String?
    /// Whole seconds since 1970.
    public var time: Int

    public init(kind: Kind, releaseID: String, patchID: String, version: Int, bucket: Int, detail: String? = nil, time: Date) {
        self.kind = kind
        self.releaseID = releaseID
        self.patchID = patchID
        self.version = version
        self.bucket = bucket
        self.detail = detail.map { String(LogSafe.escape($0).prefix(Self.maxDetailLength)) }
        self.time = Int(time.timeIntervalSince1970.rounded(.down))
    }

    /// Longest `detail` kept: an error message can't make an event unbounded.
    public static let maxDetailLength = 300

    /// The telemetry record for a loader event, or nil for events that aren't reported.
    init?(_ event: ReleaseEvent, bucket: (String) -> Int, time: Date) {
        switch event {
        case let .applied(id, patch, version, .network):
            // Installs only: re-applying the cached copy at each launch would count launches, not devices.
            self.init(kind: .applied, releaseID: id, patchID: patch, version: version, bucket: bucket(id), time: time)
        case let .failed(id, patch, version, message):
            self.init(kind: .failed, releaseID: id, patchID: patch, version: version, bucket: bucket(id), detail: message, time: time)
        case let .reverted(id, patch, version, reason):
            let code: String
            switch reason {
            case .excluded(let exclusion): code = exclusion.rawValue
            case .revoked: code = "revoked"
            }
            self.init(kind: .reverted, releaseID: id, patchID: patch, version: version, bucket: bucket(id), detail: code, time: time)
        case let .disabledByCrashLoop(id, patch, version, _):
            self.init(kind: .disabledByGuard, releaseID: id, patchID: patch, version: version, bucket: bucket(id), time: time)
        default:
            return nil
        }
    }
}

/// What the collector receives: one POST per batch, `application/json`.
public struct TelemetryBatch: Codable, Equatable, Sendable {
    public var appID: String
    public var appVersion: String
    public var channel: String
    /// Events dropped on this device (queue full) since the last batch the collector accepted.
    public var dropped: Int
    public var events: [TelemetryEvent]

    public init(appID: String, appVersion: String, channel: String, dropped: Int, events: [TelemetryEvent]) {
        self.appID = appID
        self.appVersion = appVersion
        self.channel = channel
        self.dropped = dropped
        self.events = events
    }
}
