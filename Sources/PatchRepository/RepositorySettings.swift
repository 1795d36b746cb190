import Foundation
import PatchFormat

/// A repository's settings, kept in `repository.json` beside the publisher's record: its
/// channels (each a delegated targets role) and how long each role's metadata stays valid.
public struct RepositorySettings: Codable, Equatable, Sendable {
    /// Channel role names, in the order the top-level targets role delegates to them.
    public var channels: [String]
    /// Validity of each role's metadata, in seconds: root, targets (channels too), snapshot,
    /// timestamp. The timestamp's is how long a device may go without seeing a revocation.
    public var rootExpiry: TimeInterval
    public var targetsExpiry: TimeInterval
    public var snapshotExpiry: TimeInterval
    public var timestampExpiry: TimeInterval

    public init(channels: [String], rootExpiry: TimeInterval = 365 * 86_400, targetsExpiry: TimeInterval = 90 * 86_400,
                snapshotExpiry: TimeInterval = 7 * 86_400, timestampExpiry: TimeInterval = 86_400) {
        self.channels = channels
        self.rootExpiry = rootExpiry
        self.targetsExpiry = targetsExpiry
        self.snapshotExpiry = snapshotExpiry
        self.timestampExpiry = timestampExpiry
    }

    func expiry(for role: String) -> TimeInterval {
        switch role {
        case "root": return rootExpiry
        case "snapshot": return snapshotExpiry
        case "timestamp": return timestampExpiry
        default: return targetsExpiry
        }
    }

    /// Channel names become role names, file names and target path prefixes: letters, digits,
    /// `-` and `_` only, and never a top-level role's name.
    public static func validateChannel(_ name: String) throws {
        let allowed = name.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_") }
        guard !name.isEmpty, name.count <= 64, allowed, !Root.topLevelRoles.contains(name) else {
            throw RepositoryError("channel name \"\(name)\" must be 1–64 letters, digits, - or _, and not a top-level role")
        }
    }
}

/// A repository operation that cannot be done; the message says why.
public struct RepositoryError: Error, CustomStringConvertible, Equatable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
