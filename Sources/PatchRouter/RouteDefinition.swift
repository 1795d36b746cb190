import Foundation
import PatchSupport

/// One concrete route: a pattern without optional groups, its priority and its handler.
///
/// Routers create definitions for `addRoute(_:priority:handler:)` (one per expansion of an optional
/// pattern, of the router's `routeDefinitionType`). You may also create one and add it with
/// `Router.addRoute(_:)`, and subclass it to change how URLs match (`routeVariables(for:)`), which
/// parameters the handler gets (`matchParameters(for:routeVariables:)`), how the handler is called
/// (`callHandler(with:)`) or to learn where it was registered (`didBecomeRegistered(forScheme:)`).
///
/// Matching rules (JLRoutes'):
/// - A literal component matches the URL component as written or percent-decoded; case matters.
/// - `:name` matches any one non-empty component; the value is `+`-decoded (when that option is on)
///   and percent-decoded. A trailing "#" on the name or the value is dropped (fragment routes).
/// - A trailing `*` matches zero or more remaining components, decoded like variables, under
///   `Router.wildcardComponentsKey`. Without it the component counts must be equal.
///
/// Two definitions are equal when pattern, priority and scheme are (JLRoutes' rule); handlers and
/// types don't count. The scheme is set when the definition is added to a router, so its hash changes
/// then: don't keep a definition in a `Set` or as a dictionary key across that. A definition is in at
/// most one router at a time.
///
/// Thread safety: routers call `response(for:)` and `callHandler(with:)` from any thread, possibly at
/// once; a subclass with mutable state must guard it itself.
open class RouteDefinition: Hashable, CustomStringConvertible, @unchecked Sendable {
    /// The concrete pattern, reported to handlers under `Router.patternKey`. For a pattern with optional
    /// groups this is one expansion (`/a/:b/c` from `/a/:b(/c)`), otherwise the pattern as written.
    public let pattern: String
    /// The pattern as passed to `addRoute`, groups included; equals `pattern` for a definition you created.
    public internal(set) var sourcePattern: String
    /// Higher priorities are tried first; equal priorities in the order they were added.
    public let priority: Int
    /// Identifies this definition (and the other expansions of the same `addRoute` call) for
    /// `Router.removeRoute(_:)`. Set once, before the definition is shared.
    public internal(set) var token: RouteToken
    /// The handler given at creation; `callHandler(with:)` calls it.
    public let handler: Router.Handler

    /// Locked: routers on several threads may add or remove the same definition.
    private let registration = LockedValue<(scheme: String?, isRegistered: Bool)>((nil, false))

    let components: [Component]
    /// Whether this pattern addresses a fragment path (contains "#"), see `RouteRequest`.
    let matchesFragment: Bool

    enum Component {
        case literal(String)
        case variable(String)
        case wildcard
    }

    /// Creates a definition for one concrete pattern (`/user/view/:userID`, `/files/*`).
    ///
    /// Routers create their definitions through this initializer (see `Router.routeDefinitionType`), so a
    /// subclass that overrides it must call it.
    /// - Throws: `RoutePatternError` for a malformed pattern, or `.optionalGroupsInDefinition` when it has
    ///   optional groups: one definition is one concrete route; `addRoute(_:priority:handler:)` expands them.
    public required init(pattern: String, priority: Int = 0, handler: @escaping Router.Handler) throws {
        let parsed = try RoutePattern(pattern)
        guard parsed.expansions.count == 1, let expansion = parsed.expansions.first, expansion.pattern == pattern else {
            throw RoutePatternError.optionalGroupsInDefinition(pattern: pattern)
        }
        self.pattern = pattern
        sourcePattern = pattern
        self.priority = priority
        self.handler = handler
        token = RouteToken.next()
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

    /// The scheme of the router that holds (or last held) this route: nil before it is added, and for a
    /// standalone router; `Router.globalScheme` for the global router.
    public var scheme: String? {
        registration.withLock { $0.scheme }
    }

    open var description: String { "\(pattern) (priority \(priority), \(token))" }

    // MARK: Registration

    /// Called after the route was added to a router (and can be matched), with the router's scheme
    /// (nil for a standalone router). Called on the thread that added the route, with no router
    /// lock held. Sets `scheme`, as JLRoutes' does (a router has set it already; called directly,
    /// it makes the definition one of that scheme for equality and parameters); an override that
    /// keeps this should call super.
    open func didBecomeRegistered(forScheme scheme: String?) {
        registration.withLock { $0.scheme = scheme }
    }

    /// Marks the definition as held by a router of `scheme`; false when another router holds it.
    func claim(forScheme scheme: String?) -> Bool {
        registration.withLock { registration in
            guard !registration.isRegistered else { return false }
            registration = (scheme, true)
            return true
        }
    }

    /// Marks the definition as held by no router; it keeps its scheme for equality and parameters.
    func release() {
        registration.withLock { $0.isRegistered = false }
    }

    // MARK: Equality

    /// JLRoutes' equality: same pattern, priority and scheme. Subclasses may add their own fields
    /// (override `hash(into:)` to match).
    open func isEqual(to other: RouteDefinition) -> Bool {
        self === other || (pattern == other.pattern && priority == other.priority && scheme == other.scheme)
    }

    public static func == (lhs: RouteDefinition, rhs: RouteDefinition) -> Bool {
        lhs.isEqual(to: rhs)
    }

    open func hash(into hasher: inout Hasher) {
        hasher.combine(pattern)
        hasher.combine(priority)
        hasher.combine(scheme)
    }

    // MARK: Matching

    /// Whether this definition matches URLs by its pattern with the rules above, so a router may
    /// look it up by the pattern's literal components instead of trying it on every URL (routing
    /// then costs the same however many routes there are). True for `RouteDefinition` itself; false
    /// by default for subclasses, which are tried on every URL since they may match their own way.
    /// A subclass whose `response(for:)` and `routeVariables(for:)` never match a URL the pattern
    /// doesn't may return true.
    open var usesPatternMatching: Bool { type(of: self) == RouteDefinition.self }

    /// Matches the request: the handler's parameters on a match. Override to match differently; the
    /// default asks `routeVariables(for:)` and, when they exist, `matchParameters(for:routeVariables:)`.
    open func response(for request: RouteRequest) -> RouteResponse {
        guard let variables = routeVariables(for: request) else { return .noMatch }
        return .match(matchParameters(for: request, routeVariables: variables))
    }

    /// The route variables (and wildcard components) taken from the URL, or nil when the URL doesn't
    /// match this pattern.
    open func routeVariables(for request: RouteRequest) -> [String: Any]? {
        let urlComponents = matchesFragment ? request.fragmentPathComponents : request.pathComponents
        let decodePlus = request.decodesPlusSymbols
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
            guard index < urlComponents.count else { return nil }
            let raw = urlComponents[index]
            switch component {
            case let .literal(text):
                guard text == raw || text == RouteDecoding.percentDecoded(raw) else { return nil }
            case let .variable(name):
                var value = Substring(raw)
                if value.count > 1, value.hasSuffix("#") { value = value.dropLast() }
                guard !value.isEmpty, value != "#" else { return nil }
                variables[name] = RouteDecoding.value(value, decodePlusSymbols: decodePlus)
            case .wildcard:
                break
            }
        }
        if !sawWildcard, urlComponents.count != components.count { return nil }
        return variables
    }

    /// The handler's parameters: query items, then route variables (which win over query items of the
    /// same name), then the caller's extra parameters, then the pattern, URL and scheme keys, which
    /// nothing overrides. Override to add or change parameters.
    open func matchParameters(for request: RouteRequest, routeVariables: [String: Any]) -> [String: Any] {
        var parameters = request.queryParameters
        parameters.merge(routeVariables) { _, variable in variable }
        parameters.merge(request.additionalParameters) { _, extra in extra }
        parameters[Router.patternKey] = pattern
        parameters[Router.urlKey] = request.url
        if let scheme { parameters[Router.schemeKey] = scheme }
        return parameters
    }

    /// Runs the handler for a match; its result says whether the URL was handled (false lets the next
    /// matching route try). Override to wrap or replace the handler.
    open func callHandler(with parameters: [String: Any]) -> Bool {
        handler(parameters)
    }
}
