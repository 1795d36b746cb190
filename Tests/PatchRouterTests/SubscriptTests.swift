import Foundation
import XCTest
import PatchRouter

/// `router["/pattern"]`: set a handler, read it back, set nil to remove.
final class SubscriptTests: RouterTestCase {
    func testSettingAHandlerAddsARoute() throws {
        Router.global["/subscripting"] = record

        XCTAssertTrue(Router.global.canRouteURL(try url("subscripting")))
        route("t://subscripting")
        assertRouted([:], pattern: "/subscripting")
        XCTAssertEqual(Router.global.routes.map(\.priority), [0])
    }

    func testSettingReplacesEveryRouteWithThePattern() throws {
        var handled: [String] = []
        try Router.global.addRoute("/home", priority: 10) { _ in handled.append("old"); return true }
        Router.global["/home"] = { _ in handled.append("first"); return true }
        Router.global["/home"] = { _ in handled.append("second"); return true }

        XCTAssertTrue(Router.routeURL(try url("t://home")))
        XCTAssertEqual(handled, ["second"])
        XCTAssertEqual(Router.global.routes.count, 1)
    }

    func testGetterReturnsTheHandlerOfTheFirstRouteWithThePattern() throws {
        var handled: [String] = []
        try Router.global.addRoute("/a", handler: { _ in handled.append("low"); return true })
        try Router.global.addRoute("/a", priority: 3, handler: { _ in handled.append("high"); return true })
        try Router.global.addRoute("/opt(/more)", handler: { _ in handled.append("optional"); return true })

        XCTAssertEqual(Router.global["/a"]?([:]), true)
        XCTAssertEqual(Router.global["/opt(/more)"]?([:]), true, "the pattern as added")
        XCTAssertEqual(Router.global["/opt/more"]?([:]), true, "one expansion of it")
        XCTAssertEqual(handled, ["high", "optional", "optional"])
        XCTAssertNil(Router.global["/b"])
        XCTAssertNil(Router.global["/A"], "patterns compare exactly")
    }

    func testSettingNilRemovesEveryRouteWithThePattern() throws {
        try Router.global.addRoute("/gone(/x)", handler: record)
        try Router.global.addRoute("/gone(/x)", priority: 2, handler: record)
        try Router.global.addRoute("/kept", handler: record)

        Router.global["/gone(/x)"] = nil
        XCTAssertEqual(Router.global.routes.map(\.pattern), ["/kept"])
        route("t://gone")
        assertNotRouted()
        Router.global["/never-added"] = nil
        XCTAssertEqual(Router.global.routes.count, 1)
    }

    func testSchemeRouterSubscript() throws {
        Router.routes(forScheme: "myapp")["/user/:id"] = record
        route("myapp://user/7")
        assertRouted(["id": "7"], scheme: "myapp")
        route("other://user/7")
        assertNotRouted()
    }
}
