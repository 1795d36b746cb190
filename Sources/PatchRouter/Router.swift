import Foundation
import PatchSupport

/// A URL router with JLRoutes' matching rules and parameter keys, safe to use from any thread.
///
/// Routes live in routers: one global router and one per URL scheme, created on demand.
/// `Router.routeURL(_:)` sends a URL to the router of its scheme (or to the global router when its
/// scheme has none); each matching route's handler runs in priority order until one returns true.
///
/// ```swift
/// try Router.routes(forScheme: "myapp").addRoute("/user/view/:userID") { parameters in
///     showUser(parameters["userID"] as! String)
///     return true
/// }
/// Router.routeURL(URL(string: "myapp://user/view/joel%20levin")!)   // userID "joel levin"
/// ```
///
/// Differences from JLRoutes, each fixing a case where JLRoutes misrouted or couldn't be used safely:
/// - thread safety (below); `addRoute` throws `RoutePatternError` for malformed patterns instead of
///   asserting or registering a route that can never match; optional groups may nest;
/// - `%2B` decodes to `+` even with plus decoding on (JLRoutes made it a space);
/// - wildcard components are decoded like variables (JLRoutes passed them percent-encoded);
/// - empty path components are ignored (a pattern with a trailing slash matched nothing in JLRoutes),
///   and a variable never matches an empty value;
/// - a fragment anchor (`#top`) doesn't affect patterns without "#" (see `RouteRequest`);
/// - `removeRoute(pattern:)` removes every route with that pattern, including all expansions of an
///   optional pattern (JLRoutes removed the first exact match only, so optional routes stayed);
/// - schemes compare case-insensitively; at most one unmatched URL handler runs per URL;
/// - literal components also match their percent-decoded form (`/my docs` matches `my%20docs`);
/// - `router[pattern] = handler` replaces the pattern's routes (JLRoutes added one more), and a route
///   definition is in one router at a time (`addRoute(_:)` throws instead of asserting).
///
/// Customising: add `RouteDefinition` objects (or subclasses) with `addRoute(_:)`, choose the type
/// routers create with `Router.defaultRouteDefinitionType` or `routeDefinitionType`, and build handlers
/// with `RouteHandler`.
///
/// Thread safety: adding (by pattern, subscript or definition object), removing, reading routes,
/// changing the definition types and routing may happen concurrently. Handlers, definitions' methods
/// and initializers are never called while a router lock is held, so they may add or remove routes or
/// route another URL. A route removed while a URL is being routed is not called after its removal (one
/// already running finishes); a URL routed while `replaceRoute` runs reaches the old or the new route,
/// never neither.
public final class Router: @unchecked Sendable, CustomStringConvertible {
    /// A route handler: receives the parameters, returns false to let the next matching route try.
    public typealias Handler = ([String: Any]) -> Bool
    /// Called when no route handled a URL, with the router that owns the handler, the URL and the
    /// extra parameters given to `routeURL`.
    public typealias UnmatchedURLHandler = (Router, URL, [String: Any]) -> Void

    // MARK: Parameter keys (JLRoutes' strings, so JLRoutes handlers port over unchanged)

    /// The matched concrete pattern (`String`).
    public static let patternKey = "JLRoutePattern"
    /// The URL being routed (`URL`).
    public static let urlKey = "JLRouteURL"
    /// The scheme of the router whose route matched (`String`); `Router.globalScheme` for global routes.
    public static let schemeKey = "JLRouteScheme"
    /// The components matched by a trailing `*` (`[String]`, decoded like variables).
    public static let wildcardComponentsKey = "JLRouteWildcardComponents"
    /// The scheme name of the global router.
    public static let globalScheme = "JLRoutesGlobalRoutesScheme"

    // MARK: Routers

    /// The global router: routes URLs whose scheme has no router, and is the fallback of scheme routers.
    public static var global: Router { routes(forScheme: globalScheme) }

    /// The router for a scheme, created on first use. Schemes compare case-insensitively.
    public static func routes(forScheme scheme: String) -> Router {
        RouterRegistry.shared.router(forScheme: scheme)
    }

    /// Forgets a scheme's router: its URLs go to the global router again. The router object itself keeps
    /// working for whoever still holds it.
    public static func unregisterRouteScheme(_ scheme: String) {
        RouterRegistry.shared.unregister(scheme: scheme)
    }

    /// Forgets every router, the global one included (a new, empty global router is created on demand).
    public static func unregisterAllRouteSchemes() {
        RouterRegistry.shared.unregisterAll()
    }

    /// Every registered router's routes, by scheme.
    public static var allRoutes: [String: [RouteDefinition]] {
        var result: [String: [RouteDefinition]] = [:]
        for router in RouterRegistry.shared.allRouters() {
            result[router.scheme ?? globalScheme] = router.routes
        }
        return result
    }

    // MARK: Global options

    /// Whether `+` means a space in path variables, wildcard components and query items. Default true.
    public static var shouldDecodePlusSymbols: Bool {
        get { RouterRegistry.shared.currentOptions().contains(.decodePlusSymbols) }
        set { RouterRegistry.shared.setOption(.decodePlusSymbols, enabled: newValue) }
    }

    /// Whether the host is always the first path component. Default false: only a host without "."
    /// that isn't `localhost` is (`myapp://user/1` has the path `/user/1`, `https://x.com/user/1` has `/user/1`).
    public static var alwaysTreatsHostAsPathComponent: Bool {
        get { RouterRegistry.shared.currentOptions().contains(.treatHostAsPathComponent) }
        set { RouterRegistry.shared.setOption(.treatHostAsPathComponent, enabled: newValue) }
    }

    /// The `RouteDefinition` type routers create for `addRoute(_:priority:handler:)` when their own
    /// `routeDefinitionType` is nil (JLRoutes' `defaultRouteDefinitionClass`). Default `RouteDefinition`.
    /// Read once per `addRoute` call, so a change on another thread affects whole calls, not halves.
    public static var defaultRouteDefinitionType: RouteDefinition.Type {
        get { RouterRegistry.shared.defaultDefinitionType() }
        set { RouterRegistry.shared.setDefaultDefinitionType(newValue) }
    }

    // MARK: Routing through the registry

    /// Routes a URL with the router of its scheme, or the global router when the scheme has none.
    /// Returns whether a handler returned true. See `routeURL(_:parameters:)` on an instance.
    @discardableResult
    public static func routeURL(_ url: URL, parameters: [String: Any] = [:]) -> Bool {
        router(for: url).routeURL(url, parameters: parameters)
    }

    /// Whether some route (of the URL's scheme router, or the global router as `routeURL` would pick)
    /// matches the URL. Runs no handler, so it can't know whether a handler would return false.
    public static func canRouteURL(_ url: URL) -> Bool {
        router(for: url).canRouteURL(url)
    }

    private static func router(for url: URL) -> Router {
        if let scheme = url.scheme, let router = RouterRegistry.shared.existingRouter(forScheme: scheme) {
            return router
        }
        return global
    }

    // MARK: Instance

    /// The scheme this router was registered for; nil for a standalone router.
    public let scheme: String?

    /// What the router's lock guards (with each of its entries' `isActive`).
    private struct State {
        /// The routes, indexed by their literal components; `index.ordered()` is the routing order
        /// (priority, highest first; equal priorities in insertion order).
        var index = RouteIndex()
        var fallsBackToGlobalRoutes = false
        var unmatchedHandler: UnmatchedURLHandler?
        var definitionType: RouteDefinition.Type?
    }
    private let state = LockedValue(State())

    /// A standalone router, not registered for any scheme. Routes it with `routeURL` on the instance.
    public convenience init() {
        self.init(scheme: nil)
    }

    init(scheme: String?) {
        self.scheme = scheme
    }

    /// Whether this is the global router (its scheme is `Router.globalScheme`).
    public var isGlobal: Bool {
        scheme?.caseInsensitiveCompare(Router.globalScheme) == .orderedSame
    }

    /// When no route of this router handles a URL, try the global router's routes. Default false.
    public var shouldFallbackToGlobalRoutes: Bool {
        get { state.withLock { $0.fallsBackToGlobalRoutes } }
        set { state.withLock { $0.fallsBackToGlobalRoutes = newValue } }
    }

    /// Called once when `routeURL` handles nothing. When this router has none and fell back to the
    /// global router, the global router's handler is called instead. (JLRoutes called both.)
    public var unmatchedURLHandler: UnmatchedURLHandler? {
        get { state.withLock { $0.unmatchedHandler } }
        set { state.withLock { $0.unmatchedHandler = newValue } }
    }

    /// The `RouteDefinition` type this router creates for `addRoute(_:priority:handler:)`; nil (the
    /// default) uses `Router.defaultRouteDefinitionType`.
    public var routeDefinitionType: RouteDefinition.Type? {
        get { state.withLock { $0.definitionType } }
        set { state.withLock { $0.definitionType = newValue } }
    }

    /// The routes in the order they are tried.
    public var routes: [RouteDefinition] {
        state.withLock { $0.index.ordered().map(\.definition) }
    }

    public var description: String {
        "Router(\(scheme ?? "standalone")): " + routes.map(\.description).joined(separator: ", ")
    }

    /// Adds a route. Optional groups are expanded into one route per combination, longest first, all
    /// with this priority and the returned token.
    ///
    /// - Parameters:
    ///   - pattern: `/user/view/:userID`, `/files/*`, `/path/:thing(/new)(/other/:id)`, `/user#/view/:id`.
    ///   - priority: higher is tried first; equal priorities in the order they were added.
    ///   - handler: receives the parameters; returns false to let the next matching route try.
    /// - Returns: a token that removes exactly the routes added by this call.
    /// - Throws: `RoutePatternError` for unbalanced parentheses, a `*` that isn't last, or too many groups.
    @discardableResult
    public func addRoute(_ pattern: String, priority: Int = 0, handler: @escaping Handler) throws -> RouteToken {
        let (token, newEntries) = try makeEntries(pattern, priority: priority, handler: handler)
        state.withLock { _ = insert(newEntries, into: &$0) }
        announce(newEntries)
        return token
    }

    /// Adds a route definition you created (possibly of your own subclass) as it is: no expansion.
    /// Its `didBecomeRegistered(forScheme:)` is called once it can be matched.
    ///
    /// - Returns: the definition's token.
    /// - Throws: `RouteDefinitionError.alreadyInARouter` when it is in a router already (this one or
    ///   another): a route has one scheme at a time.
    @discardableResult
    public func addRoute(_ definition: RouteDefinition) throws -> RouteToken {
        let entry = RouteEntry(definition: definition)
        let added = state.withLock { insert([entry], into: &$0) }
        guard !added.isEmpty else {
            throw RouteDefinitionError.alreadyInARouter(pattern: definition.pattern, scheme: definition.scheme)
        }
        announce(added)
        return definition.token
    }

    /// Removes every route equal to `definition` (same pattern, priority and scheme, as JLRoutes'
    /// `removeRoute:` did), so it also removes an equal route that `addRoute(_:priority:handler:)` made.
    /// To remove exactly one `addRoute` call's routes, use `removeRoute(definition.token)`.
    /// Returns how many routes were removed.
    @discardableResult
    public func removeRoute(_ definition: RouteDefinition) -> Int {
        // Compared outside the lock: `isEqual(to:)` may be a subclass's code.
        let current = state.withLock { $0.index.ordered() }
        let equal = Set(current.filter { $0.definition == definition }.map(ObjectIdentifier.init))
        return state.withLock { state in
            Self.remove(state.index.ordered().filter { equal.contains(ObjectIdentifier($0)) }, from: &state)
        }
    }

    /// The routes with this pattern, by subscript (JLRoutes' `routes[@"/foo"] = ^BOOL(...)`).
    ///
    /// - Getting returns the handler (as created, see `RouteDefinition.handler`) of the first route, in
    ///   routing order, whose pattern (as passed to `addRoute`, or one concrete expansion) is `pattern`;
    ///   nil when there is none.
    /// - Setting a handler replaces every route with this pattern by one route of priority 0, as
    ///   `replaceRoute` does (a dictionary keeps one value per key; JLRoutes added another route).
    /// - Setting nil removes every route with this pattern, as `removeRoute(pattern:)` does.
    ///
    /// A malformed pattern is a programming error here and stops the program (a setter can't throw);
    /// use `addRoute` or `replaceRoute` for patterns that come from outside.
    public subscript(pattern: String) -> Handler? {
        get {
            state.withLock { $0.index.entries(pattern: pattern).first }?
                .definition.handler
        }
        set {
            guard let newValue else {
                removeRoute(pattern: pattern)
                return
            }
            do {
                try replaceRoute(pattern, handler: newValue)
            } catch {
                preconditionFailure("router[\"\(pattern)\"] = handler: \(error)")
            }
        }
    }

    /// Adds several patterns with one handler; nothing is added when one of them is invalid.
    @discardableResult
    public func addRoutes(_ patterns: [String], priority: Int = 0, handler: @escaping Handler) throws -> [RouteToken] {
        let made = try patterns.map { try makeEntries($0, priority: priority, handler: handler) }
        state.withLock { state in made.forEach { _ = insert($0.entries, into: &state) } }
        made.forEach { announce($0.entries) }
        return made.map(\.token)
    }

    /// Removes the routes with this pattern (as passed to `addRoute`, or one concrete expansion of it)
    /// and adds the new route, in one step: no URL routed meanwhile finds neither. For patches that send
    /// a broken link somewhere else.
    @discardableResult
    public func replaceRoute(_ pattern: String, priority: Int = 0, handler: @escaping Handler) throws -> RouteToken {
        let (token, newEntries) = try makeEntries(pattern, priority: priority, handler: handler)
        state.withLock { state in
            _ = Self.remove(state.index.entries(pattern: pattern), from: &state)
            _ = insert(newEntries, into: &state)
        }
        announce(newEntries)
        return token
    }

    /// Removes every route whose pattern (as passed to `addRoute`, or a concrete expansion) is `pattern`.
    /// Returns how many concrete routes were removed.
    @discardableResult
    public func removeRoute(pattern: String) -> Int {
        state.withLock { state in Self.remove(state.index.entries(pattern: pattern), from: &state) }
    }

    /// Removes the routes added by the `addRoute` call that returned `token`. Returns whether any were here.
    @discardableResult
    public func removeRoute(_ token: RouteToken) -> Bool {
        state.withLock { state in Self.remove(state.index.entries(token: token), from: &state) } > 0
    }

    /// Takes out every route with this pattern (as `removeRoute(pattern:)` does) and returns them with
    /// their handlers, so that `restoreRoutes` can put them back: how a patch that replaced or removed
    /// an app's route is reverted.
    public func takeRoutes(pattern: String) -> DetachedRoutes {
        state.withLock { state in
            let taken = state.index.entries(pattern: pattern)
            _ = Self.remove(taken, from: &state)
            return DetachedRoutes(entries: taken)
        }
    }

    /// Puts back routes returned by `takeRoutes`, with their original tokens, patterns, priorities and
    /// handlers (after routes of equal priority added since). Routes already back in a router (restored
    /// before) are skipped: a route is in one router at a time.
    public func restoreRoutes(_ routes: DetachedRoutes) {
        let fresh = routes.entries.map { RouteEntry(definition: $0.definition) }
        let restored = state.withLock { insert(fresh, into: &$0) }
        announce(restored)
    }

    /// Removes every route of this router.
    public func removeAllRoutes() {
        state.withLock { state in _ = Self.remove(state.index.ordered(), from: &state) }
    }

    /// Routes a URL with this router: each matching route, in order, gets the parameters until a handler
    /// returns true; then, if none did and `shouldFallbackToGlobalRoutes` is set, the global routes;
    /// then, if still none did, the unmatched URL handler runs.
    ///
    /// - Parameter parameters: extra parameters for the handler; they override query items and route
    ///   variables of the same name, but not the pattern, URL and scheme keys.
    /// - Returns: whether a handler returned true.
    @discardableResult
    public func routeURL(_ url: URL, parameters: [String: Any] = [:]) -> Bool {
        let outcome = route(url, parameters: parameters, runHandlers: true)
        if !outcome.routed {
            let own = unmatchedURLHandler
            if let own {
                own(self, url, parameters)
            } else if let global = outcome.fallback, let handler = global.unmatchedURLHandler {
                handler(global, url, parameters)
            }
        }
        return outcome.routed
    }

    /// Whether a route of this router (or of the global router, when falling back) matches the URL.
    /// Runs no handler.
    public func canRouteURL(_ url: URL) -> Bool {
        route(url, parameters: [:], runHandlers: false).routed
    }

    // MARK: Private

    private func route(_ url: URL, parameters: [String: Any], runHandlers: Bool) -> (routed: Bool, fallback: Router?) {
        let request = RouteRequest(url: url, options: RouterRegistry.shared.currentOptions(), additionalParameters: parameters)
        var (snapshot, fallsBack) = state.withLock { ($0.index.candidates(for: request), $0.fallsBackToGlobalRoutes && !isGlobal) }
        var tried = Set<ObjectIdentifier>()
        // Holds the tried entries alive: a freed entry's address could be reused by a new one, which
        // would then look tried.
        var triedEntries: [RouteEntry] = []
        var position = 0
        while position < snapshot.count {
            let entry = snapshot[position]
            position += 1
            guard tried.insert(ObjectIdentifier(entry)).inserted else { continue }
            triedEntries.append(entry)
            let response = entry.definition.response(for: request)
            guard response.isMatch else { continue }
            guard runHandlers else { return (true, nil) }
            guard state.withLock({ _ in entry.isActive }) else {
                // Removed by an earlier handler or another thread since the snapshot. Go on with the
                // current candidates (skipping those tried), so a route replaced meanwhile is found as
                // its replacement rather than not at all.
                snapshot = state.withLock { $0.index.candidates(for: request) }
                position = 0
                continue
            }
            if entry.definition.callHandler(with: response.parameters) { return (true, nil) }
        }
        guard fallsBack else { return (false, nil) }
        let global = Router.global
        return (global.route(url, parameters: parameters, runHandlers: runHandlers).routed, global)
    }

    private func makeEntries(_ pattern: String, priority: Int, handler: @escaping Handler) throws -> (token: RouteToken, entries: [RouteEntry]) {
        let parsed = try RoutePattern(pattern)
        let token = RouteToken.next()
        // Read once, so every expansion of this call has the same type. Created outside the lock: a
        // subclass's initializer is user code.
        let type = routeDefinitionType ?? Router.defaultRouteDefinitionType
        let entries = try parsed.expansions.map { expansion in
            let definition = try type.init(pattern: expansion.pattern, priority: priority, handler: handler)
            // Not shared yet, so these plain writes are safe.
            definition.sourcePattern = pattern
            definition.token = token
            return RouteEntry(definition: definition)
        }
        return (token, entries)
    }

    /// Inserts each route before the first route of lower priority, unless its definition is in a router
    /// already. Returns the entries inserted. Takes the locked state: call inside `state.withLock`.
    private func insert(_ newEntries: [RouteEntry], into state: inout State) -> [RouteEntry] {
        var inserted: [RouteEntry] = []
        for entry in newEntries where entry.definition.claim(forScheme: scheme) {
            // After the ones inserted just before it: one call's expansions keep their order.
            state.index.insert(entry)
            inserted.append(entry)
        }
        return inserted
    }

    /// Tells newly added definitions where they are. Call without the lock: this runs user code.
    private func announce(_ added: [RouteEntry]) {
        for entry in added {
            entry.definition.didBecomeRegistered(forScheme: scheme)
        }
    }

    /// Removes and deactivates these routes; returns how many were here. Takes the locked state.
    private static func remove(_ doomed: [RouteEntry], from state: inout State) -> Int {
        for entry in doomed {
            state.index.remove(entry)
            entry.isActive = false
            entry.definition.release()
        }
        return doomed.count
    }
}
