import Foundation
import XCTest
import PatchRouter

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
