import Foundation
import XCTest
import PatchRouter

/// Removing and replacing routes by pattern and by token.
final class RemovalTests: RouterTestCase {
    func testRemoveByPatternRemovesEveryRouteWithIt() throws {
        try Router.global.addRoute("/a", handler: record)
        try Router.global.addRoute("/b", handler: record)
        try Router.global.addRoute("/a", priority: 9, handler: record)
        XCTAssertEqual(Router.global.removeRoute(pattern: "/a"), 2)
        XCTAssertEqual(Router.global.routes.map(\.pattern), ["/b"])
        XCTAssertEqual(Router.global.removeRoute(pattern: "/a"), 0)
    }

    func testRemoveBySourcePatternRemovesAllExpansions() throws {
        try Router.global.addRoute("/p/:x(/q)(/r)", handler: record)
        try Router.global.addRoute("/other", handler: record)
        XCTAssertEqual(Router.global.removeRoute(pattern: "/p/:x(/q)(/r)"), 4)
        XCTAssertEqual(Router.global.routes.map(\.pattern), ["/other"])
    }

    func testRemoveOneExpansionByItsPattern() throws {
        try Router.global.addRoute("/p/:x(/q)", handler: record)
        XCTAssertEqual(Router.global.removeRoute(pattern: "/p/:x/q"), 1)
        route("t://p/1/q")
        assertNotRouted()
        route("t://p/1")
        assertRouted(["x": "1"])
    }

    func testRemoveByTokenLeavesOtherRoutesWithTheSamePattern() throws {
        var handled: [String] = []
        let original = try Router.global.addRoute("/home") { _ in handled.append("original"); return true }
        let patch = try Router.global.addRoute("/home", priority: 100) { _ in handled.append("patch"); return true }

        XCTAssertTrue(Router.routeURL(try url("t://home")))
        XCTAssertTrue(Router.global.removeRoute(patch))
        XCTAssertFalse(Router.global.removeRoute(patch), "a token removes once")
        XCTAssertTrue(Router.routeURL(try url("t://home")))
        XCTAssertEqual(handled, ["patch", "original"])
        XCTAssertEqual(Router.global.routes.map(\.token), [original])
    }

    func testTokenOfAnotherRouterRemovesNothing() throws {
        let token = try Router.routes(forScheme: "a").addRoute("/x", handler: record)
        XCTAssertFalse(Router.global.removeRoute(token))
        XCTAssertEqual(Router.routes(forScheme: "a").routes.count, 1)
        XCTAssertTrue(Router.routes(forScheme: "a").removeRoute(RouteToken(rawValue: token.rawValue)))
    }

    func testTokensAreUnique() throws {
        let first = try Router.global.addRoute("/x", handler: record)
        let second = try Router.routes(forScheme: "s").addRoute("/x", handler: record)
        XCTAssertNotEqual(first, second)
        XCTAssertNotEqual(first.rawValue, 0)
        XCTAssertEqual(first.description, "RouteToken(\(first.rawValue))")
    }

    func testRemoveAllRoutes() throws {
        try Router.global.addRoute("/a", handler: record)
        try Router.global.addRoute("/b(/c)", handler: record)
        Router.global.removeAllRoutes()
        XCTAssertEqual(Router.global.routes.count, 0)
        route("t://a")
        assertNotRouted()
    }

    func testReplaceRouteSendsABrokenLinkElsewhere() throws {
        var handled: [String] = []
        try Router.global.addRoute("/promo/:id") { _ in handled.append("crashing screen"); return true }
        try Router.global.addRoute("/promo/:id", priority: 1) { _ in handled.append("also old"); return true }
        try Router.global.addRoute("/other", handler: record)

        let token = try Router.global.replaceRoute("/promo/:id") { parameters in
            handled.append("fixed \(parameters["id"] as? String ?? "?")")
            return true
        }
        XCTAssertTrue(Router.routeURL(try url("t://promo/42")))
        XCTAssertEqual(handled, ["fixed 42"])
        XCTAssertEqual(Router.global.routes.map(\.pattern), ["/other", "/promo/:id"])
        XCTAssertEqual(Router.global.routes.last?.token, token)
    }

    func testReplaceWithInvalidPatternKeepsTheOldRoutes() throws {
        try Router.global.addRoute("/a", handler: record)
        XCTAssertThrowsError(try Router.global.replaceRoute("/a)", handler: record))
        XCTAssertEqual(Router.global.routes.map(\.pattern), ["/a"])
    }
}

/// Paths at the edges: root, empty patterns, slashes, case.
final class PathEdgeCaseTests: RouterTestCase {
    func testEmptyPatternIsTheRoot() throws {
        try Router.global.addRoute("", handler: record)
        route("t://")
        assertRouted([:], pattern: "")
        route("t://x")
        assertNotRouted()
    }

    func testRootWithQueryAndRootWildcard() throws {
        try Router.global.addRoute("/*", handler: record)
        route("t://?a=1")
        assertRouted(["a": "1", Router.wildcardComponentsKey: [String]()])
        route("t://a/b/c")
        assertRouted([Router.wildcardComponentsKey: ["a", "b", "c"]])
    }

    func testTrailingAndRepeatedSlashes() throws {
        // In JLRoutes a pattern with a trailing slash never matched; empty components are ignored here.
        try Router.global.addRoute("/test/", handler: record)
        route("t://test")
        assertRouted([:], pattern: "/test/")
        try Router.global.addRoute("/a//b", handler: record)
        route("t://a//b//")
        assertRouted([:], pattern: "/a//b")
        route("t:/a/b")
        assertRouted([:], pattern: "/a//b")
    }

    func testPatternWithoutLeadingSlash() throws {
        try Router.routes(forScheme: "wildcardTests").addRoute("list/:variable/detail/:variable2/*", handler: record)
        route("wildcardTests://list/variable/detail/")
        assertNotRouted()
        route("wildcardTests://list/variable/detail/variable2")
        assertRouted(["variable": "variable", "variable2": "variable2", Router.wildcardComponentsKey: [String]()])
    }

    func testEmptyComponentIsNotAVariableValue() throws {
        try Router.global.addRoute("/user/:id/edit", handler: record)
        route("t://user//edit")
        assertNotRouted()
    }

    func testLiteralsAreCaseSensitiveAsInJLRoutes() throws {
        try Router.global.addRoute("/Test", handler: record)
        route("t:/test")
        assertNotRouted()
        route("t:/Test")
        assertRouted([:], pattern: "/Test")
    }

    func testVariableNamesAreTakenAsWritten() throws {
        try Router.global.addRoute("/v/:name*", handler: record)
        route("t://v/x")
        assertRouted(["name*": "x"])
    }

    func testOddButValidURLs() throws {
        try Router.global.addRoute("/:x", handler: record)
        route("::::")
        assertRouted(["x": "::::"])
        route("t://x/%")   // Foundation encodes the lone "%" as %25
        XCTAssertFalse(didRoute, "two components don't match /:x")
        try Router.global.addRoute("/x/:y", handler: record)
        route("t://x/%")
        assertRouted(["y": "%"])
    }
}
