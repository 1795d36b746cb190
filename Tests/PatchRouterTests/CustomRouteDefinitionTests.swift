import Foundation
import XCTest
import PatchRouter

/// Remembers where it was registered.
final class RecordingDefinition: RouteDefinition {
    private(set) var registeredSchemes: [String?] = []

    override func didBecomeRegistered(forScheme scheme: String?) {
        registeredSchemes.append(scheme)
    }
}

/// Matches its literal pattern in any letter case, and tells the handler it did.
final class CaseInsensitiveDefinition: RouteDefinition {
    override func routeVariables(for request: RouteRequest) -> [String: Any]? {
        let wanted = pattern.split(separator: "/").map { $0.lowercased() }
        let given = request.pathComponents.map { $0.lowercased() }
        return wanted == given ? ["asWritten": request.pathComponents.joined(separator: "/")] : nil
    }

    override func matchParameters(for request: RouteRequest, routeVariables: [String: Any]) -> [String: Any] {
        var parameters = super.matchParameters(for: request, routeVariables: routeVariables)
        parameters["matchedBy"] = "case-insensitive"
        return parameters
    }
}

/// Declines (lets the next route try) when the caller passes "preview".
final class PreviewDecliningDefinition: RouteDefinition {
    override func callHandler(with parameters: [String: Any]) -> Bool {
        parameters["preview"] == nil && super.callHandler(with: parameters)
    }
}

/// Route definitions created, subclassed, added and removed as objects.
final class CustomRouteDefinitionTests: RouterTestCase {
    func testAddedDefinitionRoutesUntilRemoved() throws {
        let custom = try RecordingDefinition(pattern: "/test", handler: record)
        try Router.global.addRoute(custom)

        route("tests://test")
        assertRouted([:], pattern: "/test", scheme: Router.globalScheme)
        XCTAssertTrue(Router.global.routes.first === custom)

        XCTAssertEqual(Router.global.removeRoute(custom), 1)
        route("tests://test")
        assertNotRouted()
        XCTAssertEqual(Router.global.removeRoute(custom), 0)
    }

    func testRegistrationCallbackGetsTheScheme() throws {
        let scheme = try RecordingDefinition(pattern: "/a", handler: record)
        let standalone = try RecordingDefinition(pattern: "/b", handler: record)
        XCTAssertNil(scheme.scheme)

        try Router.routes(forScheme: "myapp").addRoute(scheme)
        try Router().addRoute(standalone)

        XCTAssertEqual(scheme.registeredSchemes, ["myapp"])
        XCTAssertEqual(scheme.scheme, "myapp")
        XCTAssertEqual(standalone.registeredSchemes, [nil])
        XCTAssertNil(standalone.scheme)
    }

    /// JLRoutes' base implementation sets the scheme: called directly, it makes the definition one
    /// of that scheme, no longer equal to the same route without it.
    func testBaseRegistrationCallbackSetsTheScheme() throws {
        let registered = try RouteDefinition(pattern: "/a/:id") { _ in true }
        let plain = try RouteDefinition(pattern: "/a/:id") { _ in true }
        XCTAssertEqual(registered, plain)
        registered.didBecomeRegistered(forScheme: "thing")
        XCTAssertEqual(registered.scheme, "thing")
        XCTAssertNotEqual(registered, plain)
    }

    func testEqualityIsPatternPriorityAndScheme() throws {
        let a = try RouteDefinition(pattern: "/foo", handler: record)
        let b = try RecordingDefinition(pattern: "/foo", handler: { _ in false })
        XCTAssertEqual(a, b, "same pattern and priority, no scheme yet; type and handler don't count")
        XCTAssertEqual(Set([a, b]).count, 1)

        try Router.routes(forScheme: "scheme").addRoute(b)
        XCTAssertNotEqual(a, b, "b now has a scheme")

        XCTAssertNotEqual(a, try RouteDefinition(pattern: "/foo/bar", handler: record))
        XCTAssertNotEqual(a, try RouteDefinition(pattern: "/foo", priority: 1, handler: record))
    }

    func testRemovingADefinitionRemovesEqualRoutes() throws {
        try Router.global.addRoute("/test", handler: record)
        try Router.global.addRoute("/test", priority: 5, handler: record)
        let custom = try RouteDefinition(pattern: "/test", handler: record)
        try Router.global.addRoute(custom)

        XCTAssertEqual(Router.global.removeRoute(custom), 2, "both priority-0 routes of /test")
        XCTAssertEqual(Router.global.routes.map(\.priority), [5])
    }

    func testTokenRemovesExactlyThatDefinition() throws {
        try Router.global.addRoute("/test", handler: record)
        let custom = try RouteDefinition(pattern: "/test", handler: record)
        XCTAssertEqual(try Router.global.addRoute(custom), custom.token)

        XCTAssertTrue(Router.global.removeRoute(custom.token))
        XCTAssertEqual(Router.global.routes.count, 1)
        XCTAssertFalse(Router.global.routes.first === custom)
    }

    func testADefinitionIsInOneRouterAtATime() throws {
        let custom = try RecordingDefinition(pattern: "/x", handler: record)
        try Router.routes(forScheme: "one").addRoute(custom)

        XCTAssertThrowsError(try Router.routes(forScheme: "two").addRoute(custom)) { error in
            XCTAssertEqual(error as? RouteDefinitionError, .alreadyInARouter(pattern: "/x", scheme: "one"))
        }
        XCTAssertThrowsError(try Router.routes(forScheme: "one").addRoute(custom))
        XCTAssertEqual(Router.routes(forScheme: "one").routes.count, 1)
        XCTAssertEqual(Router.routes(forScheme: "two").routes.count, 0)

        Router.routes(forScheme: "one").removeRoute(custom)
        try Router.routes(forScheme: "two").addRoute(custom)
        XCTAssertEqual(custom.registeredSchemes, ["one", "two"])
        route("two://x")
        assertRouted([:], scheme: "two")
    }

    func testCustomMatchingAndParameters() throws {
        try Router.global.addRoute(try CaseInsensitiveDefinition(pattern: "/Legacy/Home", handler: record))

        route("t://LEGACY/home?tab=1")
        assertRouted(["asWritten": "LEGACY/home", "matchedBy": "case-insensitive", "tab": "1"], pattern: "/Legacy/Home")
        route("t://legacy/home/extra")
        assertNotRouted()
    }

    func testCustomHandlerCallLetsTheNextRouteTry() throws {
        var handled: [String] = []
        try Router.global.addRoute(try PreviewDecliningDefinition(pattern: "/item/:id", priority: 1) { _ in
            handled.append("screen")
            return true
        })
        try Router.global.addRoute("/item/:id") { _ in
            handled.append("preview")
            return true
        }

        XCTAssertTrue(Router.routeURL(try url("t://item/1"), parameters: ["preview": true]))
        XCTAssertTrue(Router.routeURL(try url("t://item/2")))
        XCTAssertEqual(handled, ["preview", "screen"])
    }

    func testDefinitionTakesOneConcretePattern() {
        XCTAssertThrowsError(try RouteDefinition(pattern: "/a(/b)", handler: record)) { error in
            XCTAssertEqual(error as? RoutePatternError, .optionalGroupsInDefinition(pattern: "/a(/b)"))
        }
        XCTAssertThrowsError(try RouteDefinition(pattern: "/a(", handler: record)) { error in
            XCTAssertEqual(error as? RoutePatternError, .unclosedGroup(pattern: "/a(", offset: 2))
        }
        XCTAssertThrowsError(try RouteDefinition(pattern: "/*/a", handler: record))
    }

    func testTakenDefinitionsComeBackOnce() throws {
        let custom = try RecordingDefinition(pattern: "/promo", handler: record)
        try Router.global.addRoute(custom)
        let taken = Router.global.takeRoutes(pattern: "/promo")
        XCTAssertTrue(taken.definitions.first === custom)

        Router.global.restoreRoutes(taken)
        Router.global.restoreRoutes(taken)
        XCTAssertEqual(Router.global.routes.count, 1, "a route is in one router at a time")
        XCTAssertEqual(custom.registeredSchemes, [Router.globalScheme, Router.globalScheme])
        route("t://promo")
        assertRouted([:], pattern: "/promo")
    }
}
