import Foundation
import XCTest
import PatchRouter

/// The JLRoutes examples listed in shared/spec/toolkit.md, verbatim.
final class ToolkitSpecExampleTests: RouterTestCase {
    func testPercentDecodedVariableThatAQueryItemCannotOverride() throws {
        try Router.global.addRoute("/user/view/:userID", handler: record)
        route("tests://user/view/joel%20levin")
        assertRouted(["userID": "joel levin"])
        route("tests://user/view/joel%20levin?userID=evil")
        assertRouted(["userID": "joel levin"])
    }

    func testTrailingWildcard() throws {
        try Router.global.addRoute("/xyz/wildcard/*", handler: record)
        route("tests://xyz/wildcard/a/b")
        assertRouted([Router.wildcardComponentsKey: ["a", "b"]])
    }

    func testPriority() throws {
        try Router.global.addRoute("/test/priority/:level", priority: 0, handler: record)
        try Router.global.addRoute("/test/priority/high", priority: 20, handler: record)
        route("tests://test/priority/high")
        assertRouted([:], pattern: "/test/priority/high")
    }

    func testURLStringParameter() throws {
        try Router.global.addRoute("/web/:URLString", handler: record)
        route("tests://web/http%3A%2F%2Ffoobar.com%2Fbaz")
        assertRouted(["URLString": "http://foobar.com/baz"])
    }
}
