import Foundation

/// Routes taken out of a router by `Router.takeRoutes(pattern:)`, handlers included, ready to be
/// put back by `Router.restoreRoutes(_:)`.
public struct DetachedRoutes: @unchecked Sendable {
    let entries: [RouteEntry]

    /// The definitions taken out.
    public var definitions: [RouteDefinition] { entries.map(\.definition) }

    /// Whether nothing was taken.
    public var isEmpty: Bool { entries.isEmpty }
}
