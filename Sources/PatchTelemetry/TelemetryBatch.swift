import Foundation

// The telemetry wire format, shared by devices (`TelemetryReporter` in PatchDelivery) and the
// release service that counts it (PatchService): no engine, no network.

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
        // Devices escape details before they get here (`LogSafe`); the cut keeps an event bounded.
        self.detail = detail.map { String($0.prefix(Self.maxDetailLength)) }
        self.time = Int(time.timeIntervalSince1970.rounded(.down))
    }

    /// Longest `detail` kept: an error message can't make an event unbounded.
    public static let maxDetailLength = 300
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
