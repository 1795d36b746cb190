import Foundation
import XCTest
import PatchRouter

/// Priority order and handlers that decline (JLRoutes' testPriority, testBlockReturnValue).
final class PriorityTests: RouterTestCase {
    func testHigherPriorityWinsOverEarlierRoute() throws {
        try Router.global.addRoute("/test/priority/:level", handler: record)
        try Router.global.addRoute("/test/priority/high", priority: 20, handler: record)
        route("tests://test/priority/high")
        assertRouted([:], pattern: "/test/priority/high")
        route("tests://test/priority/low")
        assertRouted(["level": "low"], pattern: "/test/priority/:level")
    }

    func testOnlyNonZeroPriorities() throws {
        // JLRoutes issue #46: routes added only with non-zero priorities.
        let router = Router.routes(forScheme: "priorityTest")
        try router.addRoute("/:foo/bar/:baz", priority: 20, handler: record)
        try router.addRoute("/:foo/things/:baz", priority: 10, handler: record)
        try router.addRoute("/:foo/:baz", priority: 1, handler: record)
        XCTAssertEqual(router.routes.map(\.priority), [20, 10, 1])

        route("priorityTest://stuff/things/foo")
        assertRouted(["foo": "stuff", "baz": "foo"], pattern: "/:foo/things/:baz")
        route("priorityTest://one/two")
        assertRouted(["foo": "one", "baz": "two"], pattern: "/:foo/:baz")
        route("priorityTest://stuff/bar/baz")
        assertRouted(["foo": "stuff", "baz": "baz"], pattern: "/:foo/bar/:baz")
    }

    func testEqualPrioritiesKeepInsertionOrderAndNegativesComeLast() throws {
        var order: [String] = []
        func declining(_ name: String) -> Router.Handler {
            { _ in order.append(name); return false }
        }
        let router = Router.global
        try router.addRoute("/x", priority: 0, handler: declining("zero-a"))
        try router.addRoute("/x", priority: -5, handler: declining("negative"))
        try router.addRoute("/x", priority: 3, handler: declining("three-a"))
        try router.addRoute("/x", priority: 0, handler: declining("zero-b"))
        try router.addRoute("/x", priority: 3, handler: declining("three-b"))
        try router.addRoute("/x", priority: 7, handler: declining("seven"))

        XCTAssertFalse(Router.routeURL(try url("t://x")))
        XCTAssertEqual(order, ["seven", "three-a", "three-b", "zero-a", "zero-b", "negative"])
        XCTAssertEqual(router.routes.map(\.priority), [7, 3, 3, 0, 0, -5])
    }

    func testDecliningHandlerPassesToNextMatch() throws {
        try Router.global.addRoute("/return/:value") { [weak self] parameters in
            self?.lastMatch = parameters
            return parameters["value"] as? String == "yes"
        }
        route("tests://return/no")
        XCTAssertFalse(didRoute)
        route("tests://return/yes")
        assertRouted(["value": "yes"])

        // A later, more general route gets what the first declines.
        try Router.global.addRoute("/return/*", handler: record)
        route("tests://return/no")
        assertRouted([Router.wildcardComponentsKey: ["no"]], pattern: "/return/*")
    }
}

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

/// The unmatched URL handler.
final class UnmatchedURLHandlerTests: RouterTestCase {
    private struct Call {
        let router: Router
        let url: URL
        let parameters: [String: Any]
    }

    func testCalledWithRouterURLAndExtraParametersWhenNothingMatches() throws {
        var calls: [Call] = []
        let router = Router.routes(forScheme: "app")
        router.unmatchedURLHandler = { calls.append(Call(router: $0, url: $1, parameters: $2)) }
        try router.addRoute("/known", handler: record)

        XCTAssertTrue(Router.routeURL(try url("app://known")))
        XCTAssertEqual(calls.count, 0)

        XCTAssertFalse(Router.routeURL(try url("app://unknown?q=1"), parameters: ["source": "push"]))
        XCTAssertEqual(calls.count, 1)
        XCTAssertTrue(calls.first?.router === router)
        XCTAssertEqual(calls.first?.url.absoluteString, "app://unknown?q=1")
        XCTAssertEqual(calls.first?.parameters["source"] as? String, "push")
        XCTAssertEqual(calls.first?.parameters.count, 1)
    }

    func testCalledWhenEveryMatchDeclines() throws {
        var unmatched = 0
        Router.global.unmatchedURLHandler = { _, _, _ in unmatched += 1 }
        try Router.global.addRoute("/x") { _ in false }
        XCTAssertFalse(Router.routeURL(try url("t://x")))
        XCTAssertEqual(unmatched, 1)
    }

    func testNotCalledByCanRouteURL() throws {
        var unmatched = 0
        Router.global.unmatchedURLHandler = { _, _, _ in unmatched += 1 }
        XCTAssertFalse(Router.canRouteURL(try url("t://nothing")))
        XCTAssertEqual(unmatched, 0)
    }

    func testOnlyOneHandlerRunsWithFallback() throws {
        var calls: [String] = []
        let scheme = Router.routes(forScheme: "app")
        scheme.shouldFallbackToGlobalRoutes = true
        Router.global.unmatchedURLHandler = { router, _, _ in calls.append("global:\(router.isGlobal)") }

        XCTAssertFalse(Router.routeURL(try url("app://missing")))
        XCTAssertEqual(calls, ["global:true"], "without its own handler, the scheme router uses the global one")

        scheme.unmatchedURLHandler = { router, _, _ in calls.append("scheme:\(router.scheme ?? "")") }
        calls.removeAll()
        XCTAssertFalse(Router.routeURL(try url("app://missing")))
        XCTAssertEqual(calls, ["scheme:app"])
    }

    func testNoFallbackMeansNoGlobalHandler() throws {
        var calls = 0
        Router.global.unmatchedURLHandler = { _, _, _ in calls += 1 }
        _ = Router.routes(forScheme: "app")
        XCTAssertFalse(Router.routeURL(try url("app://missing")))
        XCTAssertEqual(calls, 0)
    }

    func testClearingTheHandler() throws {
        var calls = 0
        Router.global.unmatchedURLHandler = { _, _, _ in calls += 1 }
        Router.global.unmatchedURLHandler = nil
        XCTAssertFalse(Router.routeURL(try url("t://missing")))
        XCTAssertEqual(calls, 0)
    }
}
