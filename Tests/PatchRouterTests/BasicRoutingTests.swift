import Foundation
import XCTest
import PatchRouter

/// JLRoutes' basic routing cases (testRouting, testRoutingWithParameters, testMultipleRoutePatterns,
/// testRoutesArray, testAllRoutes, testForRouteExistence, testSubscripting, testNonSingletonUsage).
final class BasicRoutingTests: RouterTestCase {
    private func addJLRoutesTestRoutes() throws {
        let global = Router.global
        try global.addRoute("/test", handler: record)
        try global.addRoute("/user/view/:userID", handler: record)
        try global.addRoute("/:object/:action/:primaryKey", handler: record)
        try global.addRoute("/", handler: record)
        try global.addRoute("/:", handler: record)
        try global.addRoute("/interleaving/:param1/foo/:param2", handler: record)
        try global.addRoute("/xyz/wildcard/*", handler: record)
        try global.addRoute("/route/:param/*", handler: record)
        try global.addRoute("/required/:requiredParam(/optional/:optionalParam)(/moreOptional/:moreOptionalParam)", handler: record)
    }

    func testRootURLs() throws {
        try addJLRoutesTestRoutes()
        for root in ["tests:/", "tests://", "tests:"] {
            route(root)
            assertRouted([:], pattern: "/")
        }
        route("tests://?key=value")
        assertRouted(["key": "value"], pattern: "/")
    }

    func testLiteralRouteWithEmptyQueryAndTrailingSlash() throws {
        try addJLRoutesTestRoutes()
        route("tests://test?")
        assertRouted([:], pattern: "/test")
        route("tests://test/")
        assertRouted([:], pattern: "/test")
        route("tests://test")
        assertRouted([:], pattern: "/test")
    }

    func testVariables() throws {
        try addJLRoutesTestRoutes()
        route("tests://user/view/joeldev")
        assertRouted(["userID": "joeldev"], pattern: "/user/view/:userID", scheme: Router.globalScheme)
        route("tests://user/view/joeldev/")
        assertRouted(["userID": "joeldev"])
        route("tests://user/view/joel%20levin")
        assertRouted(["userID": "joel levin"])
        route("tests://post/edit/123")
        assertRouted(["object": "post", "action": "edit", "primaryKey": "123"], pattern: "/:object/:action/:primaryKey")
        route("tests://interleaving/paramvalue1/foo/paramvalue2")
        assertRouted(["param1": "paramvalue1", "param2": "paramvalue2"])
    }

    func testQueryAndFragmentQueryParameters() throws {
        try addJLRoutesTestRoutes()
        route("tests://user/view/joeldev?foo=bar&thing=stuff")
        assertRouted(["userID": "joeldev", "foo": "bar", "thing": "stuff"])
        route("tests://user/view/joeldev#foo=bar&thing=stuff")
        assertRouted(["userID": "joeldev", "foo": "bar", "thing": "stuff"])
    }

    func testRouteVariableBeatsQueryItemOfSameName() throws {
        try addJLRoutesTestRoutes()
        route("tests://user/view/joeldev?userID=evilPerson")
        assertRouted(["userID": "joeldev"])
    }

    func testWildcards() throws {
        try addJLRoutesTestRoutes()
        route("tests://xyz/wildcard")
        assertRouted([Router.wildcardComponentsKey: [String]()], pattern: "/xyz/wildcard/*")
        route("tests://xyz/wildcard/matches/with/extra/path/components")
        assertRouted([Router.wildcardComponentsKey: ["matches", "with", "extra", "path", "components"]])
        route("tests://route/matches/with/wildcard")
        assertRouted(["param": "matches", Router.wildcardComponentsKey: ["with", "wildcard"]], pattern: "/route/:param/*")
    }

    func testUnknownPathDoesNotRoute() throws {
        try addJLRoutesTestRoutes()
        route("tests://doesnt/exist/and/wont/match")
        assertNotRouted()
    }

    func testRelativeURLWithLocalhostBase() throws {
        try addJLRoutesTestRoutes()
        let relative = try XCTUnwrap(URL(string: "/test", relativeTo: URL(string: "http://localhost")))
        lastMatch = nil
        didRoute = Router.routeURL(relative)
        assertRouted([:], pattern: "/test")
        XCTAssertEqual((lastMatch?[Router.urlKey] as? URL)?.absoluteString, "http://localhost/test")
    }

    func testOptionalGroupsInTheSameRouteSet() throws {
        try addJLRoutesTestRoutes()
        route("tests://required/mustExist")
        assertRouted(["requiredParam": "mustExist"], pattern: "/required/:requiredParam")
        route("tests://required/mustExist/optional/mightExist")
        assertRouted(["requiredParam": "mustExist", "optionalParam": "mightExist"], pattern: "/required/:requiredParam/optional/:optionalParam")
        route("tests://required/mustExist/optional/mightExist/moreOptional/mightExistToo")
        assertRouted(["requiredParam": "mustExist", "optionalParam": "mightExist", "moreOptionalParam": "mightExistToo"])
    }

    func testBareColonRouteMatchesOneComponentUnderColonKey() throws {
        try Router.global.addRoute("/:", handler: record)
        route("tests://anything")
        assertRouted([":": "anything"], pattern: "/:")
        route("tests://two/components")
        assertNotRouted()
    }

    func testExtraParametersReachTheHandler() throws {
        try Router.global.addRoute("/foo/:routeParam", handler: record)
        route("/foo/bar", parameters: ["stringParam": "stringValue", "nonStringParam": 123])
        assertRouted(["routeParam": "bar", "stringParam": "stringValue", "nonStringParam": 123])
    }

    func testExtraParametersOverrideQueryAndVariablesButNotBaseKeys() throws {
        try Router.global.addRoute("/foo/:id", handler: record)
        route("tests://foo/1?q=query", parameters: ["id": "extra", "q": "extra-q", Router.patternKey: "evil", Router.schemeKey: "evil"])
        assertRouted(["id": "extra", "q": "extra-q"], pattern: "/foo/:id", scheme: Router.globalScheme)
        XCTAssertEqual((lastMatch?[Router.urlKey] as? URL)?.absoluteString, "tests://foo/1?q=query")
    }

    func testMultipleRoutePatterns() throws {
        let tokens = try Router.global.addRoutes(["/multiple1", "/multiple2"], handler: record)
        XCTAssertEqual(tokens.count, 2)
        XCTAssertNotEqual(tokens[0], tokens[1])
        route("tests://multiple1")
        assertRouted([:], pattern: "/multiple1")
        route("tests://multiple2")
        assertRouted([:], pattern: "/multiple2")
    }

    func testRoutesArrayPerRouter() throws {
        try Router.global.addRoute("/global1", handler: record)
        try Router.global.addRoute("/global2", handler: record)
        try Router.global.addRoute("/global3", handler: record)
        XCTAssertEqual(Router.global.routes.map(\.pattern), ["/global1", "/global2", "/global3"])

        try Router.routes(forScheme: "scheme").addRoute("/scheme1", handler: record)
        try Router.routes(forScheme: "scheme").addRoute("/scheme2", handler: record)
        XCTAssertEqual(Router.routes(forScheme: "scheme").routes.map(\.pattern), ["/scheme1", "/scheme2"])
        XCTAssertEqual(Router.routes(forScheme: "scheme").routes.map(\.scheme), ["scheme", "scheme"])

        XCTAssertEqual(Router.routes(forScheme: "foo").routes.count, 0)
    }

    func testAllRoutesBySchemeName() throws {
        try Router.global.addRoute("/global1", handler: record)
        try Router.global.addRoute("/global2", handler: record)
        try Router.global.addRoute("/global3", handler: record)
        try Router.routes(forScheme: "scheme").addRoute("/scheme1", handler: record)
        try Router.routes(forScheme: "scheme").addRoute("/scheme2", handler: record)

        let all = Router.allRoutes
        XCTAssertEqual(Set(all.keys), [Router.globalScheme, "scheme"])
        XCTAssertEqual(all[Router.globalScheme]?.map(\.pattern), ["/global1", "/global2", "/global3"])
        XCTAssertEqual(all["scheme"]?.map(\.pattern), ["/scheme1", "/scheme2"])
    }

    func testCanRouteURLReportsMatchesWithoutRunningHandlers() throws {
        var calls = 0
        try Router.global.addRoute("/test") { _ in
            calls += 1
            return true
        }
        XCTAssertTrue(Router.global.canRouteURL(try url("tests:/test")))
        XCTAssertFalse(Router.global.canRouteURL(try url("tests:/dfjkbsdkjfbskjdfb/sdasd")))
        XCTAssertTrue(Router.canRouteURL(try url("tests:/test")))
        XCTAssertEqual(calls, 0, "canRouteURL must not run handlers")
    }

    func testCanRouteURLIsTrueEvenIfTheHandlerWouldDecline() throws {
        // JLRoutes' semantics: a match exists; whether the handler accepts is only known by routing.
        try Router.global.addRoute("/declines") { _ in false }
        XCTAssertTrue(Router.canRouteURL(try url("tests://declines")))
        XCTAssertFalse(Router.routeURL(try url("tests://declines")))
    }

    func testSchemelessRelativeURL() throws {
        try Router.global.addRoute("/subscripting", handler: record)
        XCTAssertTrue(Router.global.canRouteURL(try url("subscripting")))
        route("subscripting")
        assertRouted([:], pattern: "/subscripting")
    }

    func testStandaloneRouter() throws {
        let router = Router()
        let trivial = try url("/success")
        var parameters: [String: Any]?
        try router.addRoute(trivial.absoluteString) { parameters = $0; return true }
        XCTAssertTrue(router.routeURL(trivial))
        XCTAssertNil(router.scheme)
        XCTAssertNil(parameters?[Router.schemeKey], "a standalone router has no scheme to report")
        XCTAssertEqual(parameters?[Router.patternKey] as? String, "/success")
        // Not registered: the static API doesn't see it.
        XCTAssertFalse(Router.routeURL(trivial))
    }
}
