import Foundation

/// How close one role's metadata is to its expiry, as the release service (its minimum validity
/// for uploads, its status page) and `patchctl repo status` judge it. A role that expires stops
/// every device that needs it (a freeze for that role's channel), so publishers are warned ahead.
public struct RoleExpiry: Equatable, Sendable {
    public enum State: Equatable, Sendable {
        /// Valid for longer than the warning window.
        case valid
        /// Still valid, but expires within the warning window.
        case expiresSoon
        /// Already expired.
        case expired
    }

    public var role: String
    public var version: Int64
    public var expires: Date
    public var state: State
    /// Seconds from the judging time to `expires` (negative once expired).
    public var remaining: TimeInterval

    /// Judges `role` (version `version`, expiring at `expires`) at `now`: expired at or after its
    /// expiry (as `CommonFields.isExpired`), `expiresSoon` when less than `warningWindow` is left.
    public init(role: String, version: Int64, expires: Date, now: Date, warningWindow: TimeInterval) {
        self.role = role
        self.version = version
        self.expires = expires
        remaining = expires.timeIntervalSince(now)
        state = remaining <= 0 ? .expired : remaining < warningWindow ? .expiresSoon : .valid
    }

    /// Whether the role stays valid for at least `minimum` seconds from the judging time.
    public func lasts(_ minimum: TimeInterval) -> Bool { remaining >= minimum }

    /// "staging version 3 expired 2026-11-29T04:00:00Z" / "staging version 3 expires in 5 h
    /// (2026-11-29T04:00:00Z)"; nil while `valid`.
    public var warning: String? {
        switch state {
        case .valid: return nil
        case .expired: return "\(role) version \(version) expired \(MetadataDate.format(expires))"
        case .expiresSoon: return "\(role) version \(version) expires in \(Self.duration(remaining)) (\(MetadataDate.format(expires)))"
        }
    }

    /// A duration for people: "45 s", "12 min", "5 h", "3 days" (rounded down).
    public static func duration(_ seconds: TimeInterval) -> String {
        let s = max(0, Int(seconds.rounded(.down)))
        if s < 60 { return "\(s) s" }
        if s < 3600 { return "\(s / 60) min" }
        if s < 2 * 86_400 { return "\(s / 3600) h" }
        return "\(s / 86_400) days"
    }
}
