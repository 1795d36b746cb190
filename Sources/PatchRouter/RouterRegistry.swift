import Foundation
import PatchSupport

/// The process-wide state behind `Router`'s static API: the routers by scheme and the parsing options.
final class RouterRegistry: @unchecked Sendable {
    static let shared = RouterRegistry()

    private struct State {
        /// Keyed by the lowercased scheme: URL schemes are case-insensitive (RFC 3986).
        var routers: [String: Router] = [:]
        var options: RouteRequestOptions = [.decodePlusSymbols]
        var definitionType: RouteDefinition.Type = RouteDefinition.self
    }
    private let state = LockedValue(State())

    /// The router for a scheme, created on first use.
    func router(forScheme scheme: String) -> Router {
        state.withLock { state in
            if let router = state.routers[scheme.lowercased()] { return router }
            let router = Router(scheme: scheme)
            state.routers[scheme.lowercased()] = router
            return router
        }
    }

    /// The router registered for a scheme, without creating one.
    func existingRouter(forScheme scheme: String) -> Router? {
        state.withLock { $0.routers[scheme.lowercased()] }
    }

    func unregister(scheme: String) {
        state.withLock { $0.routers[scheme.lowercased()] = nil }
    }

    func unregisterAll() {
        state.withLock { $0.routers.removeAll() }
    }

    func allRouters() -> [Router] {
        state.withLock { Array($0.routers.values) }
    }

    func currentOptions() -> RouteRequestOptions {
        state.withLock { $0.options }
    }

    func setOption(_ option: RouteRequestOptions, enabled: Bool) {
        state.withLock { if enabled { $0.options.insert(option) } else { $0.options.remove(option) } }
    }

    func defaultDefinitionType() -> RouteDefinition.Type {
        state.withLock { $0.definitionType }
    }

    func setDefaultDefinitionType(_ type: RouteDefinition.Type) {
        state.withLock { $0.definitionType = type }
    }
}
