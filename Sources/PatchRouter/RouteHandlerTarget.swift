/// A type made from a route's parameters, such as a screen opened by a deep link; see
/// `RouteHandler.forTargetType(_:completion:)`.
public protocol RouteHandlerTarget {
    /// Creates the object for a matched route from the parameters its handler got.
    init(routeParameters: [String: Any])
}
