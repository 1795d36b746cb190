import Foundation
import XCTest
import PatchRouter

/// Handlers that change routers or route again while a URL is being routed: no deadlock, and removal
/// takes effect for routes not yet tried.
final class ReentrancyTests: RouterTestCase {
    func testHandlerAddsARouteAndRoutesAnotherURL() throws {
        var nested: Bool?
        var inner: [String: Any]?
        try Router.global.addRoute("/outer") { _ in
            do {
                try Router.global.addRoute("/inner/:id") { inner = $0; return true }
            } catch {
                XCTFail("\(error)")
            }
            nested = Router.routeURL(URL(string: "t://inner/7")!)
            return true
        }
        XCTAssertTrue(Router.routeURL(try url("t://outer")))
        XCTAssertEqual(nested, true)
        XCTAssertEqual(inner?["id"] as? String, "7")
    }

    func testHandlerRemovesItselfAfterFirstUse() throws {
        var calls = 0
        var token: RouteToken?
        token = try Router.global.addRoute("/once") { _ in
            calls += 1
            if let token { Router.global.removeRoute(token) }
            return true
        }
        XCTAssertTrue(Router.routeURL(try url("t://once")))
        XCTAssertFalse(Router.routeURL(try url("t://once")))
        XCTAssertEqual(calls, 1)
    }

    func testRouteRemovedDuringRoutingIsNotCalled() throws {
        var order: [String] = []
        var victim: RouteToken?
        try Router.global.addRoute("/x", priority: 2) { _ in
            order.append("first")
            if let victim { Router.global.removeRoute(victim) }
            return false
        }
        victim = try Router.global.addRoute("/x", priority: 1) { _ in order.append("victim"); return true }
        try Router.global.addRoute("/x", priority: 0) { _ in order.append("last"); return true }

        XCTAssertTrue(Router.routeURL(try url("t://x")))
        XCTAssertEqual(order, ["first", "last"])
    }

    func testRemoveAllRoutesFromAHandler() throws {
        var order: [String] = []
        try Router.global.addRoute("/x", priority: 1) { _ in
            order.append("first")
            Router.global.removeAllRoutes()
            return false
        }
        try Router.global.addRoute("/x") { _ in order.append("second"); return true }
        XCTAssertFalse(Router.routeURL(try url("t://x")))
        XCTAssertEqual(order, ["first"])
    }

    func testRouteAddedDuringRoutingWaitsForTheNextURL() throws {
        var order: [String] = []
        try Router.global.addRoute("/x") { _ in
            order.append("first")
            _ = try? Router.global.addRoute("/x", priority: 10) { _ in order.append("added"); return true }
            return false
        }
        XCTAssertFalse(Router.routeURL(try url("t://x")))
        XCTAssertTrue(Router.routeURL(try url("t://x")))
        XCTAssertEqual(order, ["first", "added"])
    }

    func testUnmatchedHandlerRegistersTheMissingRouteAndRetries() throws {
        var retried: Bool?
        Router.global.unmatchedURLHandler = { router, url, _ in
            _ = try? router.addRoute(url.path, handler: { _ in true })
            retried = router.routeURL(url)
        }
        XCTAssertFalse(Router.routeURL(try url("t:/late")))
        XCTAssertEqual(retried, true)
        XCTAssertTrue(Router.routeURL(try url("t:/late")))
    }

    func testHandlerChangesRouterSettings() throws {
        let scheme = Router.routes(forScheme: "app")
        try Router.global.addRoute("/fallback", handler: record)
        try scheme.addRoute("/enable") { _ in
            scheme.shouldFallbackToGlobalRoutes = true
            Router.shouldDecodePlusSymbols = false
            _ = scheme.routes
            _ = Router.allRoutes
            return true
        }
        XCTAssertTrue(Router.routeURL(try url("app://enable")))
        route("app://fallback")
        assertRouted([:], scheme: Router.globalScheme)
        XCTAssertFalse(Router.shouldDecodePlusSymbols)
    }

    /// Every overridable method of a definition reads the router it is in: none runs under the router's
    /// lock (which isn't reentrant, so this would hang).
    func testDefinitionMethodsMayUseTheRouter() throws {
        RouterReadingDefinition.calls = []
        let router = Router.routes(forScheme: "reentrant")
        router.routeDefinitionType = RouterReadingDefinition.self
        try router.addRoute("/a", handler: record)
        let custom = try RouterReadingDefinition(pattern: "/a", handler: record)
        try router.addRoute(custom)

        route("reentrant://a")
        assertRouted([:])
        XCTAssertEqual(router.removeRoute(custom), 2)
        XCTAssertEqual(RouterReadingDefinition.calls.sorted(), ["callHandler", "equality", "equality", "init", "init", "registered", "registered", "variables"])
    }
}

/// Reads its router's routes from each overridable method, recording which ran.
final class RouterReadingDefinition: RouteDefinition {
    nonisolated(unsafe) static var calls: [String] = []

    required init(pattern: String, priority: Int = 0, handler: @escaping Router.Handler) throws {
        _ = Router.routes(forScheme: "reentrant").routes
        RouterReadingDefinition.calls.append("init")
        try super.init(pattern: pattern, priority: priority, handler: handler)
    }

    private func touch(_ name: String) {
        _ = Router.routes(forScheme: "reentrant").routes
        RouterReadingDefinition.calls.append(name)
    }

    override func didBecomeRegistered(forScheme scheme: String?) { touch("registered") }

    override func routeVariables(for request: RouteRequest) -> [String: Any]? {
        touch("variables")
        return super.routeVariables(for: request)
    }

    override func callHandler(with parameters: [String: Any]) -> Bool {
        touch("callHandler")
        return super.callHandler(with: parameters)
    }

    override func isEqual(to other: RouteDefinition) -> Bool {
        touch("equality")
        return super.isEqual(to: other)
    }
}
