/// The result of matching one route definition against one request.
struct RouteResponse {
    /// Whether the definition matched the request.
    let isMatch: Bool
    /// What the handler receives; empty when there was no match.
    let parameters: [String: Any]

    static let noMatch = RouteResponse(isMatch: false, parameters: [:])

    static func match(_ parameters: [String: Any]) -> RouteResponse {
        RouteResponse(isMatch: true, parameters: parameters)
    }
}
