import Foundation
import PatchEngine
import PatchRouter

/// Routes from patch scripts, e.g. to send a broken deep link to a working screen: the `routes`
/// global (`routes.add / replace / remove / route`), a `ScriptExtension` an app adds when it
/// routes with PatchRouter. The engine itself does not depend on the router.
///
/// ```swift
/// import PatchRouterBindings
/// try PatchRouterBindings.register()   // at launch, before applying patches
/// ```
///
/// In scripts (options: `{scheme: 'shop', priority: 10}`; without a scheme, the global router):
/// - `routes.add(pattern, function (params) { … return true; }, options)` adds a route and returns
///   a token whose `remove()` takes it out again;
/// - `routes.replace(pattern, handler, options)` takes the routes with that pattern out (the app's
///   own too) and adds this one in their place;
/// - `routes.remove(pattern, options)` takes them out and returns how many there were;
/// - `routes.route(url, parameters)` routes a URL as `Router.routeURL` does.
///
/// Every change belongs to the script's transaction: reverting the script removes the routes it
/// added and puts back the app's routes it replaced or removed. A handler that throws or runs
/// past the execution time limit handles nothing (its error goes to `PatchEngine.errorHandler`;
/// a timeout reverts its script).
public enum PatchRouterBindings {
    /// The `routes` global.
    public static let scriptExtension = ScriptExtension(name: "routes", functions: [
        "add": { try add($0, replacing: false) },
        "replace": { try add($0, replacing: true) },
        "remove": { call in
            let pattern = text(call.argument(0))
            let router = router(call.argument(1))
            let taken = router.takeRoutes(pattern: pattern)
            if !taken.isEmpty { call.recordUndo("remove route \(pattern)") { router.restoreRoutes(taken) } }
            return Double(taken.definitions.count)
        },
        "route": { call in
            let urlString = text(call.argument(0))
            guard let url = URL(string: urlString) else { throw RouteBindingError("routes.route: '\(urlString)' is not a URL") }
            let parameters = (call.argument(1) as? [String: Any?] ?? [:]).mapValues { $0 ?? NSNull() }
            return Router.routeURL(url, parameters: parameters)
        },
    ])

    /// Registers `scriptExtension` with the engine; calling it again does nothing. Throws only
    /// if another extension took the name `routes`.
    public static func register() throws {
        try registration.get()
    }

    private static let registration = Result(catching: { try PatchEngine.register(scriptExtension) })

    private static func add(_ call: ScriptCall, replacing: Bool) throws -> Any? {
        let what = replacing ? "replace" : "add"
        let pattern = text(call.argument(0))
        guard let handler = call.argument(1) as? ScriptCallback else {
            throw RouteBindingError("routes.\(what) expects a function as its handler")
        }
        let options = call.argument(2)
        let router = router(options)
        let taken = replacing ? router.takeRoutes(pattern: pattern) : nil
        let token: RouteToken
        do {
            token = try router.addRoute(pattern, priority: priority(options)) { parameters in
                handler.isTruthy(callingWith: [parameters], context: "route handler")
            }
        } catch {
            if let taken { router.restoreRoutes(taken) }
            throw RouteBindingError("routes.\(what)('\(pattern)'): \(error)")
        }
        call.recordUndo("route \(pattern)") {
            router.removeRoute(token)
            if let taken { router.restoreRoutes(taken) }
        }
        return ["remove": ScriptFunction { _ in router.removeRoute(token) }]
    }

    /// The router `options.scheme` names, else the global router.
    private static func router(_ options: Any?) -> Router {
        if let scheme = (options as? [String: Any?])?["scheme"] as? String { return Router.routes(forScheme: scheme) }
        return Router.global
    }

    private static func priority(_ options: Any?) -> Int {
        guard let number = (options as? [String: Any?])?["priority"] as? Double, number.isFinite,
              number > Double(Int.min), number < Double(Int.max) else { return 0 }
        return Int(number)
    }

    /// A script's argument as text, as JavaScript's `String(value)` gives it for the usual kinds.
    private static func text(_ value: Any?) -> String {
        switch value {
        case nil: return "undefined"
        case let string as String: return string
        case let number as Double:
            return number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        case let bool as Bool: return bool ? "true" : "false"
        case let other?: return "\(other)"
        }
    }
}

/// A script's misuse of `routes`, raised in the script as an Error with this message.
struct RouteBindingError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
