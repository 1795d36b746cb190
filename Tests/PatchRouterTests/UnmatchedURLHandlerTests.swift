import Foundation
import XCTest
import PatchRouter

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
