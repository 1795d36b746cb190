import Foundation
import PatchSupport

/// Identifies the routes created by one `addRoute` call (all of its optional-group expansions),
/// so the caller can remove exactly those routes later even when other routes share the pattern.
///
/// Tokens are unique within the process. The raw value is a plain integer so a bridge (for example
/// to JavaScript patches) can hand it out and take it back.
public struct RouteToken: Hashable, Sendable, CustomStringConvertible {
    /// The token's number; never 0 for a token returned by `addRoute`.
    public let rawValue: UInt64

    /// Rebuilds a token from its number (for bridges that stored `rawValue`).
    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    public var description: String { "RouteToken(\(rawValue))" }

    private static let lastValue = LockedValue<UInt64>(0)

    /// A token no other `addRoute` call received.
    static func next() -> RouteToken {
        RouteToken(rawValue: lastValue.withLock { $0 += 1; return $0 })
    }
}
