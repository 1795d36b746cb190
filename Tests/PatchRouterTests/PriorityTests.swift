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
