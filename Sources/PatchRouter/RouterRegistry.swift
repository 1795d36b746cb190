import Foundation

/// The process-wide state behind `Router`'s static API: the routers by scheme and the parsing options.
final class RouterRegistry: @unchecked Sendable {
    static let shared = RouterRegistry()

    private let lock = NSLock()
    /// Keyed by the lowercased scheme: URL schemes are case-insensitive (RFC 3986).
    private var routers: [String: Router] = [:]
    private var options: RouteRequestOptions = [.decodePlusSymbols]
    private var definitionType: RouteDefinition.Type = RouteDefinition.self

    /// The router for a scheme, created on first use.
    func router(forScheme scheme: String) -> Router {
        lock.lock()
        defer { lock.unlock() }
        if let router = routers[scheme.lowercased()] { return router }
        let router = Router(scheme: scheme)
        routers[scheme.lowercased()] = router
        return router
    }

    /// The router registered for a scheme, without creating one.
    func existingRouter(forScheme scheme: String) -> Router? {
        lock.lock()
        defer { lock.unlock() }
        return routers[scheme.lowercased()]
    }

    func unregister(scheme: String) {
        lock.lock()
        defer { lock.unlock() }
        routers[scheme.lowercased()] = nil
    }

    func unregisterAll() {
        lock.lock()
        defer { lock.unlock() }
        routers.removeAll()
    }

    func allRouters() -> [Router] {
        lock.lock()
        defer { lock.unlock() }
        return Array(routers.values)
    }

    func currentOptions() -> RouteRequestOptions {
        lock.lock()
        defer { lock.unlock() }
        return options
    }

    func setOption(_ option: RouteRequestOptions, enabled: Bool) {
        lock.lock()
        defer { lock.unlock() }
        if enabled { options.insert(option) } else { options.remove(option) }
    }

    func defaultDefinitionType() -> RouteDefinition.Type {
        lock.lock()
        defer { lock.unlock() }
        return definitionType
    }

    func setDefaultDefinitionType(_ type: RouteDefinition.Type) {
        lock.lock()
        defer { lock.unlock() }
        definitionType = type
    }
}
