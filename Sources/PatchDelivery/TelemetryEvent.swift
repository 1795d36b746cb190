import Foundation
import PatchTelemetry

/// The telemetry wire format lives in `PatchTelemetry` (the release service reads it without the
/// engine); these names keep it where device code looks for it.
public typealias TelemetryEvent = PatchTelemetry.TelemetryEvent
public typealias TelemetryBatch = PatchTelemetry.TelemetryBatch

extension TelemetryEvent {
    /// The telemetry record for a loader event, or nil for events that aren't reported.
    init?(_ event: ReleaseEvent, bucket: (String) -> Int, time: Date) {
        switch event {
        case let .applied(id, patch, version, .network):
            // Installs only: re-applying the cached copy at each launch would count launches, not devices.
            self.init(kind: .applied, releaseID: id, patchID: patch, version: version, bucket: bucket(id), time: time)
        case let .failed(id, patch, version, message):
            self.init(kind: .failed, releaseID: id, patchID: patch, version: version, bucket: bucket(id), detail: LogSafe.escape(message), time: time)
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
