/// The result of matching one route definition against one request (`RouteDefinition.response(for:)`).
public struct RouteResponse {
    /// Whether the definition matched the request.
    public let isMatch: Bool
    /// What the handler receives; empty when there was no match.
    public let parameters: [String: Any]

    /// No match: the router tries the next route.
    public static let noMatch = RouteResponse(isMatch: false, parameters: [:])

    /// A match: the router calls the definition's handler with these parameters.
    public static func match(_ parameters: [String: Any]) -> RouteResponse {
        RouteResponse(isMatch: true, parameters: parameters)
    }
}
