import Foundation
import Hummingbird

/// Why the service refused a publisher's upload (`HostedRepository.accepting`): a stable code and
/// a message naming the role and version. Sent as `{"reason": code, "message": …}`; nothing of a
/// refused upload is stored.
public struct UploadRefusal: Error, Equatable, CustomStringConvertible, HTTPResponseError {
    public enum Reason: String, Sendable {
        /// The upload or one of its metadata files does not parse.
        case malformed
        /// A root version is missing between the held root and an uploaded one.
        case rootGap = "root-gap"
        /// Not signed by a threshold of the keys that delegate the role (for a new root: of the
        /// previous root's keys and of its own).
        case unsigned
        /// A lower version than the one held (a rollback).
        case rollback
        /// The version held, with other content (a fork).
        case fork
        /// Already expired.
        case expired
        /// Valid for less than the service's minimum (`ReleaseService.Configuration.minimumRoleValidity`):
        /// devices would stop on it soon after it is served.
        case expiresTooSoon = "expires-too-soon"
        /// A new root takes the snapshot or timestamp role away from the service's online keys:
        /// devices would freeze on the last timestamp.
        case onlineKeysRemoved = "online-keys-removed"
        /// A role the top-level targets role does not delegate, or a delegated role missing.
        case notDelegated = "not-delegated"
        case missing
        /// A listed target's content is absent, or differs from its length and hashes; or a file
        /// that no target lists.
        case targetMismatch = "target-mismatch"
        /// A role lists a release whose `PatchRelease` metadata doesn't parse (a malformed version
        /// range, say): every device would refuse it.
        case invalidRelease = "invalid-release"
        /// Something the service does not host (nested or succinct delegations, a target without
        /// a SHA-256 hash, an over-long name).
        case unsupported
        /// Another upload was accepted meanwhile (try again: the next one builds on it).
        case conflict
    }

    public var reason: Reason
    public var message: String

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { "\(reason.rawValue): \(message)" }

    public var status: HTTPResponse.Status {
        switch reason {
        case .malformed: return .badRequest
        case .rollback, .fork, .conflict, .rootGap: return .conflict
        default: return .unprocessableContent
        }
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = try JSONEncoder().encode(["reason": reason.rawValue, "message": message])
        return Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}
