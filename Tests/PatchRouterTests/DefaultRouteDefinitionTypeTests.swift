import Foundation
import XCTest
import PatchRouter

/// Which `RouteDefinition` type routers create for plain patterns.
final class DefaultRouteDefinitionTypeTests: RouterTestCase {
    func testDefaultIsRouteDefinition() throws {
        XCTAssertTrue(Router.defaultRouteDefinitionType == RouteDefinition.self)
        XCTAssertNil(Router.global.routeDefinitionType)
        try Router.global.addRoute("/foo", handler: record)
        XCTAssertTrue(type(of: try XCTUnwrap(Router.global.routes.first)) == RouteDefinition.self)
    }

    func testChangingTheGlobalDefaultType() throws {
        Router.defaultRouteDefinitionType = RecordingDefinition.self
        try Router.global.addRoute("/foo", handler: record)
        try Router.routes(forScheme: "s").addRoute("/bar", handler: record)

        let global = try XCTUnwrap(Router.global.routes.first as? RecordingDefinition)
        XCTAssertEqual(global.registeredSchemes, [Router.globalScheme])
        XCTAssertTrue(Router.routes(forScheme: "s").routes.first is RecordingDefinition)
        route("t://foo")
        assertRouted([:], pattern: "/foo")
    }

    func testARoutersOwnTypeWinsOverTheGlobalDefault() throws {
        Router.defaultRouteDefinitionType = RecordingDefinition.self
        let router = Router.routes(forScheme: "legacy")
        router.routeDefinitionType = CaseInsensitiveDefinition.self
        try router.addRoute("/Home", handler: record)
        try Router.global.addRoute("/home", handler: record)

        XCTAssertTrue(router.routes.first is CaseInsensitiveDefinition)
        XCTAssertTrue(Router.global.routes.first is RecordingDefinition)
        route("legacy://HOME")
        assertRouted(["asWritten": "HOME", "matchedBy": "case-insensitive"], scheme: "legacy")

        router.routeDefinitionType = nil
        try router.addRoute("/other", handler: record)
        XCTAssertTrue(router.routes.last is RecordingDefinition, "nil falls back to the global default")
    }

    func testEveryExpansionOfAnOptionalPatternHasTheTypeAndOneToken() throws {
        Router.defaultRouteDefinitionType = RecordingDefinition.self
        let token = try Router.global.addRoute("/a(/b)(/c)", handler: record)

        let routes = Router.global.routes
        XCTAssertEqual(routes.count, 4)
        XCTAssertTrue(routes.allSatisfy { $0 is RecordingDefinition })
        XCTAssertEqual(Set(routes.map(\.token)), [token])
        XCTAssertEqual(Set(routes.map(\.sourcePattern)), ["/a(/b)(/c)"])
        XCTAssertTrue(Router.global.removeRoute(token))
        XCTAssertEqual(Router.global.routes.count, 0)
    }
}
