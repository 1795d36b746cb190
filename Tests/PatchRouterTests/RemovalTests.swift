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
