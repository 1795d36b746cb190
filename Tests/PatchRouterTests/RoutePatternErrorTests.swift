import Foundation
import XCTest
import PatchRouter

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
