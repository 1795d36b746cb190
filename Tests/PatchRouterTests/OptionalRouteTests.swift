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
