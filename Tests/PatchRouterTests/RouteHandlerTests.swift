import Foundation
import XCTest
import PatchRouter

/// A screen a deep link opens: made from the parameters, or asked to handle them.
final class MockScreen: RouteHandlerTarget, RouteResponder {
    private(set) var routeParameters: [String: Any]?
    private(set) var handledCount = 0
    var accepts = true

    init() {}

    init(routeParameters: [String: Any]) {
        self.routeParameters = routeParameters
    }

    func handleRoute(with parameters: [String: Any]) -> Bool {
        routeParameters = parameters
        handledCount += 1
        return accepts
    }
}

/// `RouteHandler`'s ready-made handlers.
final class RouteHandlerTests: RouterTestCase {
    func testWeakTargetHandlesWhileItExists() throws {
        var screen: MockScreen? = MockScreen()
        try Router.global.addRoute("/test", handler: RouteHandler.forWeakTarget(screen!))

        route("t://test/?a=1")
        XCTAssertTrue(didRoute)
        XCTAssertEqual(screen?.handledCount, 1)
        XCTAssertEqual(screen?.routeParameters?["a"] as? String, "1")
        XCTAssertEqual(screen?.routeParameters?[Router.patternKey] as? String, "/test")

        weak var gone = screen
        screen = nil
        XCTAssertNil(gone, "the handler doesn't keep its target alive")
        route("t://test")
        assertNotRouted()
        XCTAssertEqual(Router.global.routes.count, 1, "the route stays until removed")
    }

    func testGoneWeakTargetLetsOtherRoutesAndTheUnmatchedHandlerRun() throws {
        var unmatched: [URL] = []
        Router.global.unmatchedURLHandler = { _, url, _ in unmatched.append(url) }
        var screen: MockScreen? = MockScreen()
        try Router.global.addRoute("/cart", priority: 1, handler: RouteHandler.forWeakTarget(screen!))
        try Router.global.addRoute("/cart", handler: record)

        screen = nil
        route("t://cart")
        assertRouted([:], pattern: "/cart")

        Router.global.removeRoute(pattern: "/cart")
        try Router.global.addRoute("/cart", handler: RouteHandler.forWeakTarget(MockScreen()))
        route("t://cart")
        assertNotRouted()
        XCTAssertEqual(unmatched, [try url("t://cart")])
    }

    func testWeakTargetDecliningLetsTheNextRouteTry() throws {
        let screen = MockScreen()
        screen.accepts = false
        try Router.global.addRoute("/x", priority: 1, handler: RouteHandler.forWeakTarget(screen))
        try Router.global.addRoute("/x", handler: record)

        route("t://x")
        assertRouted([:])
        XCTAssertEqual(screen.handledCount, 1)
    }

    func testTargetTypeIsCreatedFromTheParameters() throws {
        var created: [MockScreen] = []
        try Router.global.addRoute("/user/:id", handler: RouteHandler.forTargetType(MockScreen.self) { screen in
            created.append(screen)
            return true
        })

        route("t://user/42?tab=posts")
        XCTAssertTrue(didRoute)
        XCTAssertEqual(created.count, 1)
        let parameters = try XCTUnwrap(created.first?.routeParameters)
        XCTAssertEqual(parameters["id"] as? String, "42")
        XCTAssertEqual(parameters["tab"] as? String, "posts")
        XCTAssertEqual(parameters[Router.urlKey] as? URL, try url("t://user/42?tab=posts"))

        route("t://user/43")
        XCTAssertEqual(created.map { $0.routeParameters?["id"] as? String }, ["42", "43"], "a new object per match")
    }

    func testTargetTypeCompletionDecidesWhetherTheURLWasHandled() throws {
        try Router.global.addRoute("/user/:id", priority: 1, handler: RouteHandler.forTargetType(MockScreen.self) { screen in
            screen.routeParameters?["id"] as? String != "blocked"
        })
        try Router.global.addRoute("/user/:id", handler: record)

        route("t://user/blocked")
        assertRouted(["id": "blocked"], pattern: "/user/:id")
        route("t://user/ok")
        XCTAssertTrue(didRoute)
        XCTAssertNil(lastMatch, "the created object handled it; the next route didn't run")
    }
}
