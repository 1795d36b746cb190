import Foundation
import XCTest
import PatchRouter

/// Fragments against patterns without "#".
final class FragmentAnchorTests: RouterTestCase {
    func testAnchorDoesNotHidePlainRoute() throws {
        // JLRoutes glued "#top" to the last component ("joeldev#top") and the route failed or got a
        // wrong value. Patterns without "#" match the path alone here.
        try Router.global.addRoute("/user/view/:userID", handler: record)
        route("tests://user/view/joeldev#top")
        assertRouted(["userID": "joeldev"])
        route("tests://user/view/joeldev#")
        assertRouted(["userID": "joeldev"])
    }

    func testFragmentQueryWithoutQuestionMark() throws {
        try Router.global.addRoute("/page", handler: record)
        route("tests://page#a=1&b=2")
        assertRouted(["a": "1", "b": "2"])
        // First item without a value: a path, not a query (JLRoutes' rule).
        route("tests://page#section&b=2")
        assertRouted([:])
    }

    func testRepeatedNamesAcrossQueryAndFragment() throws {
        try Router.global.addRoute("/page", handler: record)
        route("tests://page?tag=a#/x?tag=b")
        assertRouted(["tag": ["a", "b"]])
    }
}
