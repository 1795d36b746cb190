/// Ready-made route handlers that hand a match to another object (JLRoutes' `JLRRouteHandler`):
///
/// ```swift
/// try router.addRoute("/user/:id", handler: RouteHandler.forTargetType(ProfileScreen.self) { screen in
///     navigator.show(screen)
///     return true
/// })
/// try router.addRoute("/cart", handler: RouteHandler.forWeakTarget(cartController))
/// ```
public enum RouteHandler {
    /// A handler that creates a `T` from the route's parameters and passes it to `completion`, whose
    /// result is the handler's. The router keeps no reference to the created object: `completion` owns it.
    public static func forTargetType<T: RouteHandlerTarget>(
        _ type: T.Type,
        completion: @escaping (T) -> Bool
    ) -> Router.Handler {
        { parameters in completion(type.init(routeParameters: parameters)) }
    }

    /// A handler that calls `target.handleRoute(with:)` while the target exists, without keeping it
    /// alive. Once the target is gone the handler returns false, so the URL counts as not handled (the
    /// next matching route, the global fallback and the unmatched URL handler get their turn as usual);
    /// the route stays registered until removed.
    public static func forWeakTarget<T: RouteResponder>(_ target: T) -> Router.Handler {
        { [weak target] parameters in
            // One strong reference for the call, so the target can't go away halfway through it.
            guard let target else { return false }
            return target.handleRoute(with: parameters)
        }
    }
}
