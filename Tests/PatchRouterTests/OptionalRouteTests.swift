import Foundation
import XCTest
import PatchRouter

/// Optional groups (JLRoutes' testOptionalRoutesAtEnd/AtStart/Interleaved) and nesting, which JLRoutes
/// didn't support.
final class OptionalRouteTests: RouterTestCase {
    func testOptionalGroupsAtEnd() throws {
        try Router.global.addRoute("/path/:thing(/new)(/anotherpath/:anotherthing)", handler: record)
        XCTAssertEqual(Router.global.routes.map(\.pattern), [
            "/path/:thing/new/anotherpath/:anotherthing",
            "/path/:thing/anotherpath/:anotherthing",
            "/path/:thing/new",
            "/path/:thing",
        ])

        route("foo://path/abc/new/anotherpath/def")
        assertRouted(["thing": "abc", "anotherthing": "def"])
        route("foo://path/foo/anotherpath/bar")
        assertRouted(["thing": "foo", "anotherthing": "bar"])
        route("foo://path/yyy/new")
        assertRouted(["thing": "yyy"])
        route("foo://path/zzz")
        assertRouted(["thing": "zzz"])
        route("foo://path/zzz/anotherpath")
        assertNotRouted()
    }

    func testOptionalGroupsAtStart() throws {
        try Router.global.addRoute("/(rest/)(app/):object/:id", handler: record)
        XCTAssertEqual(Router.global.routes.count, 4)
        for string in ["foo://rest/app/aaa/bbb", "foo://app/aaa/bbb", "foo://rest/aaa/bbb", "foo://aaa/bbb"] {
            route(string)
            assertRouted(["object": "aaa", "id": "bbb"])
        }
    }

    func testOptionalGroupsInterleaved() throws {
        try Router.global.addRoute("/(rest/):object/(app/):id", handler: record)
        XCTAssertEqual(Router.global.routes.count, 4)
        for string in ["foo://rest/aaa/app/bbb", "foo://aaa/app/bbb", "foo://rest/aaa/bbb", "foo://aaa/bbb"] {
            route(string)
            assertRouted(["object": "aaa", "id": "bbb"])
        }
    }

    func testNestedGroupsNeedTheirParent() throws {
        try Router.global.addRoute("/a(/b/:x(/c/:y))", handler: record)
        XCTAssertEqual(Router.global.routes.map(\.pattern), ["/a/b/:x/c/:y", "/a/b/:x", "/a"])
        route("t://a/b/1/c/2")
        assertRouted(["x": "1", "y": "2"], pattern: "/a/b/:x/c/:y")
        route("t://a/b/1")
        assertRouted(["x": "1"], pattern: "/a/b/:x")
        route("t://a")
        assertRouted([:], pattern: "/a")
        route("t://a/c/2")
        assertNotRouted()
    }

    func testEarlierGroupWinsBetweenEquallyLongExpansions() throws {
        try Router.global.addRoute("/a(/:x)(/:y)", handler: record)
        XCTAssertEqual(Router.global.routes.map(\.pattern), ["/a/:x/:y", "/a/:x", "/a/:y", "/a"])
        route("t://a/1")
        assertRouted(["x": "1"], pattern: "/a/:x")
    }

    func testExpansionsShareTokenSourcePatternAndPriority() throws {
        let token = try Router.global.addRoute("/p(/q)", priority: 5, handler: record)
        let routes = Router.global.routes
        XCTAssertEqual(routes.map(\.token), [token, token])
        XCTAssertEqual(routes.map(\.sourcePattern), ["/p(/q)", "/p(/q)"])
        XCTAssertEqual(routes.map(\.priority), [5, 5])
    }

    func testDuplicateExpansionsAreRegisteredOnce() throws {
        try Router.global.addRoute("/a(/b)(/b)", handler: record)
        XCTAssertEqual(Router.global.routes.map(\.pattern), ["/a/b/b", "/a/b", "/a"])
    }

    func testGroupBoundaryIsAComponentBoundary() throws {
        // JLRoutes' rule: a group's text is its own components.
        try Router.global.addRoute("/user(s)", handler: record)
        XCTAssertEqual(Router.global.routes.map(\.pattern), ["/user/s", "/user"])
    }

    func testOptionalWildcardAtTheEnd() throws {
        try Router.global.addRoute("/docs(/*)", handler: record)
        route("t://docs/a/b")
        assertRouted([Router.wildcardComponentsKey: ["a", "b"]], pattern: "/docs/*")
    }
}

/// Patterns `addRoute` refuses, with their messages; a refused call adds nothing.
final class RoutePatternErrorTests: RouterTestCase {
    private func assertRefused(_ pattern: String, _ expected: RoutePatternError, message: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try Router.global.addRoute(pattern, handler: record), file: file, line: line) { error in
            XCTAssertEqual(error as? RoutePatternError, expected, file: file, line: line)
            XCTAssertEqual("\(error)", message, file: file, line: line)
            XCTAssertEqual(error.localizedDescription, message, file: file, line: line)
        }
        XCTAssertEqual(Router.global.routes.count, 0, "nothing may be added", file: file, line: line)
    }

    func testUnclosedGroup() {
        assertRefused("/a(/b(/c)", .unclosedGroup(pattern: "/a(/b(/c)", offset: 2),
                      message: "route pattern \"/a(/b(/c)\": \"(\" at offset 2 is never closed")
    }

    func testUnopenedGroup() {
        assertRefused("/a/b)/c", .unopenedGroup(pattern: "/a/b)/c", offset: 4),
                      message: "route pattern \"/a/b)/c\": \")\" at offset 4 has no matching \"(\"")
    }

    func testWildcardInTheMiddle() {
        assertRefused("/a/*/b", .wildcardNotLast(pattern: "/a/*/b"),
                      message: "route pattern \"/a/*/b\": \"*\" must be the last path component")
        assertRefused("/a(/*)/b", .wildcardNotLast(pattern: "/a(/*)/b"),
                      message: "route pattern \"/a(/*)/b\": \"*\" must be the last path component")
    }

    func testTooManyGroups() {
        let pattern = "/x" + String(repeating: "(/:a)", count: 11)
        assertRefused(pattern, .tooManyCombinations(pattern: pattern, limit: 1024),
                      message: "route pattern \"\(pattern)\": its optional groups expand into more than 1024 routes")
    }

    func testTenGroupsAreAccepted() throws {
        try Router.global.addRoute("/x" + String(repeating: "(/y)", count: 10), handler: record)
        // 1024 combinations, but only 11 distinct lengths of "/x/y/y/...".
        XCTAssertEqual(Router.global.routes.count, 11)
    }

    func testAddRoutesIsAllOrNothing() {
        XCTAssertThrowsError(try Router.global.addRoutes(["/ok", "/bad)"], handler: record))
        XCTAssertEqual(Router.global.routes.count, 0)
    }

    func testLiteralAsteriskInsideAComponentIsText() throws {
        try Router.global.addRoute("/files/*.png", handler: record)
        route("t://files/*.png")
        assertRouted([:], pattern: "/files/*.png")
        route("t://files/a.png")
        assertNotRouted()
    }
}
