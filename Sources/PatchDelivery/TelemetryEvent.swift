import Foundation
import PatchTelemetry
import PatchSupport

/// The telemetry wire format lives in `PatchTelemetry` (the release service reads it without the
/// engine); these names keep it where device code looks for it.
public typealias TelemetryEvent = PatchTelemetry.TelemetryEvent
public typealias TelemetryBatch = PatchTelemetry.TelemetryBatch

extension TelemetryEvent {
    /// The telemetry record for a client event, or nil for events that aren't reported.
    init?(_ event: PatchClientEvent, bucket: (String) -> Int, time: Date) {
        switch event {
        case let .applied(r, .network):
            // Installs only: re-applying the cached copy at each launch would count launches, not devices.
            self.init(kind: .applied, releaseID: r.path, patchID: r.patchID, version: r.version, bucket: bucket(r.path), time: time)
        case let .failed(r, message):
            self.init(kind: .failed, releaseID: r.path, patchID: r.patchID, version: r.version, bucket: bucket(r.path),
                      detail: LogSafe.escape(message), time: time)
        case let .reverted(r, reason):
            self.init(kind: .reverted, releaseID: r.path, patchID: r.patchID, version: r.version, bucket: bucket(r.path),
                      detail: reason.rawValue, time: time)
        case let .disabledByCrashLoop(r, _):
            self.init(kind: .disabledByGuard, releaseID: r.path, patchID: r.patchID, version: r.version, bucket: bucket(r.path), time: time)
        default:
            return nil
        }
    }
}
