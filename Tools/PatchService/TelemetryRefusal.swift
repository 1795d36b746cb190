import Foundation
import Hummingbird

/// Why a telemetry batch was refused: a stable code a device (or an operator reading logs) can act
/// on, and a message. Sent as `{"reason": code, "message": …}` with the status. (`rate-limited`,
/// 429, comes from `RouteLimiter` before the body is read.)
struct TelemetryRefusal: Error, HTTPResponseError {
    enum Reason: String {
        /// Not JSON, or not a batch.
        case malformed
        /// More events than `maxEventsPerBatch`, or a negative dropped count.
        case tooManyEvents = "too-many-events"
        /// For an app this service doesn't host.
        case wrongApp = "wrong-app"
        /// For a channel the service has no document for.
        case unknownChannel = "unknown-channel"
        /// An event for a release that isn't in the channel.
        case unknownRelease = "unknown-release"
    }

    var reason: Reason
    var message: String

    var status: HTTPResponse.Status { reason == .malformed ? .badRequest : .unprocessableContent }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = try JSONEncoder().encode(["reason": reason.rawValue, "message": message])
        return Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}
