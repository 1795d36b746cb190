/// Why `Router.addRoute(_:)` refused a route definition.
public enum RouteDefinitionError: Error, Equatable, CustomStringConvertible {
    /// The definition is already in a router (this one or another); remove it there first. A route lives
    /// in one router at a time, as its scheme and parameters belong to that router.
    case alreadyInARouter(pattern: String, scheme: String?)

    public var description: String {
        switch self {
        case let .alreadyInARouter(pattern, scheme):
            return "route definition \"\(pattern)\" is already in the router of scheme \(scheme ?? "(standalone)")"
        }
    }
}
