/// One concrete route registered with a router: a pattern without optional groups, its priority
/// and the token of the `addRoute` call that created it.
///
/// Matching rules (JLRoutes'):
/// - A literal component matches the URL component as written or percent-decoded; case matters.
/// - `:name` matches any one non-empty component; the value is `+`-decoded (when that option is on)
///   and percent-decoded. A trailing "#" on the name or the value is dropped (fragment routes).
/// - A trailing `*` matches zero or more remaining components, decoded like variables, under
///   `Router.wildcardComponentsKey`. Without it the component counts must be equal.
public struct RouteDefinition: CustomStringConvertible {
    /// The concrete pattern, reported to handlers under `Router.patternKey`. For a pattern with optional
    /// groups this is one expansion (`/a/:b/c` from `/a/:b(/c)`), otherwise the pattern as written.
    public let pattern: String
    /// The pattern as passed to `addRoute`, groups included.
    public let sourcePattern: String
    /// Higher priorities are tried first; equal priorities in the order they were added.
    public let priority: Int
    /// The token `addRoute` returned for this route.
    public let token: RouteToken
    /// The scheme of the router that holds this route (nil for a standalone router).
    public let scheme: String?

    private let components: [Component]
    /// Whether this pattern addresses a fragment path (contains "#"), see `RouteRequest`.
    private let matchesFragment: Bool

    private enum Component {
        case literal(String)
        case variable(String)
        case wildcard
    }

    init(expansion: RoutePattern.Expansion, sourcePattern: String, priority: Int, token: RouteToken, scheme: String?) {
        pattern = expansion.pattern
        self.sourcePattern = sourcePattern
        self.priority = priority
        self.token = token
        self.scheme = scheme
        matchesFragment = expansion.components.contains { $0.contains("#") }
        components = expansion.components.map { text in
            if text == "*" { return .wildcard }
            guard text.hasPrefix(":") else { return .literal(text) }
            // JLRoutes' naming: a bare ":" keeps its colon as the name; "name#" loses the "#".
            var name = text.count > 1 ? String(text.dropFirst()) : text
            if name.count > 1, name.hasSuffix("#") { name.removeLast() }
            return .variable(name)
        }
    }

    public var description: String { "\(pattern) (priority \(priority), \(token))" }

    /// Matches the request and, on a match, builds the handler's parameters: query items, then route
    /// variables (which win over query items of the same name), then the caller's extra parameters,
    /// then the pattern, URL and scheme keys, which nothing overrides.
    func response(for request: RouteRequest) -> RouteResponse {
        let urlComponents = matchesFragment ? request.fragmentPathComponents : request.pathComponents
        let decodePlus = request.options.contains(.decodePlusSymbols)
        var variables: [String: Any] = [:]
        var sawWildcard = false

        for (index, component) in components.enumerated() {
            if case .wildcard = component {
                variables[Router.wildcardComponentsKey] = urlComponents[index...].map {
                    RouteDecoding.value(Substring($0), decodePlusSymbols: decodePlus)
                }
                sawWildcard = true
                break
            }
            guard index < urlComponents.count else { return .noMatch }
            let raw = urlComponents[index]
            switch component {
            case let .literal(text):
                guard text == raw || text == RouteDecoding.percentDecoded(raw) else { return .noMatch }
            case let .variable(name):
                var value = Substring(raw)
                if value.count > 1, value.hasSuffix("#") { value = value.dropLast() }
                guard !value.isEmpty, value != "#" else { return .noMatch }
                variables[name] = RouteDecoding.value(value, decodePlusSymbols: decodePlus)
            case .wildcard:
                break
            }
        }
        if !sawWildcard, urlComponents.count != components.count { return .noMatch }

        var parameters = request.queryParameters
        parameters.merge(variables) { _, variable in variable }
        parameters.merge(request.additionalParameters) { _, extra in extra }
        parameters[Router.patternKey] = pattern
        parameters[Router.urlKey] = request.url
        if let scheme { parameters[Router.schemeKey] = scheme }
        return .match(parameters)
    }
}
