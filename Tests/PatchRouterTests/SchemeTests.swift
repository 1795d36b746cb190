import Foundation
import XCTest
import PatchRouter

/// Scheme routers, fallback to the global routes and the unmatched URL handler
/// (JLRoutes' testSchemes, testFallbackToGlobal, testRouteRemoval's scheme part).
final class SchemeTests: RouterTestCase {
    func testSameRouteInThreeSchemes() throws {
        try Router.global.addRoute("/test", handler: record)
        try Router.routes(forScheme: "namespaceTest1").addRoute("/test", handler: record)
        try Router.routes(forScheme: "namespaceTest2").addRoute("/test", handler: record)

        route("tests://test")
        assertRouted([:], scheme: Router.globalScheme)
        route("namespaceTest1://test")
        assertRouted([:], scheme: "namespaceTest1")
        route("namespaceTest2://test")
        assertRouted([:], scheme: "namespaceTest2")
    }

    func testFallbackToGlobal() throws {
        try Router.global.addRoute("/user/view/:userID", handler: record)
        try Router.routes(forScheme: "namespaceTest1").addRoute("/test", handler: record)
        try Router.routes(forScheme: "namespaceTest2").addRoute("/test", handler: record)
        XCTAssertFalse(Router.routes(forScheme: "namespaceTest2").shouldFallbackToGlobalRoutes)
        Router.routes(forScheme: "namespaceTest2").shouldFallbackToGlobalRoutes = true

        route("namespaceTest1://user/view/joeldev")
        assertNotRouted()
        XCTAssertFalse(Router.canRouteURL(try url("namespaceTest1://user/view/joeldev")))

        route("namespaceTest2://user/view/joeldev")
        assertRouted(["userID": "joeldev"], scheme: Router.globalScheme)
        XCTAssertTrue(Router.canRouteURL(try url("namespaceTest2://user/view/joeldev")))
    }

    func testFallbackHappensOnlyAfterOwnRoutesDecline() throws {
        try Router.global.addRoute("/item/:id", handler: record)
        let scheme = Router.routes(forScheme: "app")
        scheme.shouldFallbackToGlobalRoutes = true
        try scheme.addRoute("/item/:id") { [weak self] parameters in
            self?.lastMatch = parameters
            return parameters["id"] as? String != "legacy"
        }
        route("app://item/1")
        assertRouted(["id": "1"], scheme: "app")
        route("app://item/legacy")
        assertRouted(["id": "legacy"], scheme: Router.globalScheme)
    }

    func testSchemesCompareCaseInsensitively() throws {
        let router = Router.routes(forScheme: "MyApp")
        XCTAssertTrue(router === Router.routes(forScheme: "myapp"))
        try router.addRoute("/home", handler: record)
        route("MYAPP://home")
        assertRouted([:], scheme: "MyApp")
    }

    func testURLWithUnregisteredSchemeGoesToGlobal() throws {
        try Router.routes(forScheme: "other").addRoute("/home", handler: record)
        route("unknown://home")
        assertNotRouted()
        try Router.global.addRoute("/home", handler: record)
        route("unknown://home")
        assertRouted([:], scheme: Router.globalScheme)
    }

    func testUnregisterRouteScheme() throws {
        try Router.global.addRoute("/:", handler: record)
        let scheme = Router.routes(forScheme: "namespaceTest3")
        try scheme.addRoute("/test1", handler: record)
        try scheme.addRoute("/test2", handler: record)

        route("namespaceTest3://test1")
        assertRouted([:], scheme: "namespaceTest3")
        XCTAssertEqual(scheme.removeRoute(pattern: "/test1"), 1)
        route("namespaceTest3://test1")
        assertNotRouted()
        route("namespaceTest3://test2")
        assertRouted([:], scheme: "namespaceTest3")

        Router.unregisterRouteScheme("namespaceTest3")
        // Matched by the global "/:" route now, not by the forgotten scheme router.
        route("namespaceTest3://test2")
        assertRouted([":": "test2"], scheme: Router.globalScheme)
        XCTAssertFalse(scheme === Router.routes(forScheme: "namespaceTest3"))
        // The old object still routes for whoever kept it.
        XCTAssertTrue(scheme.routeURL(try url("namespaceTest3://test2")))
    }

    func testUnregisterAllReplacesTheGlobalRouter() throws {
        let before = Router.global
        XCTAssertTrue(before === Router.global)
        XCTAssertTrue(before.isGlobal)
        try before.addRoute("/x", handler: record)
        Router.unregisterAllRouteSchemes()
        XCTAssertFalse(before === Router.global)
        XCTAssertEqual(Router.global.routes.count, 0)
        XCTAssertTrue(Router.routes(forScheme: Router.globalScheme) === Router.global)
    }

    func testStandaloneRouterCanFallBackToGlobal() throws {
        try Router.global.addRoute("/shared", handler: record)
        let router = Router()
        XCTAssertFalse(router.routeURL(try url("t://shared")))
        router.shouldFallbackToGlobalRoutes = true
        XCTAssertTrue(router.routeURL(try url("t://shared")))
        XCTAssertEqual(lastMatch?[Router.schemeKey] as? String, Router.globalScheme)
    }
}
