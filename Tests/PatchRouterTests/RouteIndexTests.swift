import Foundation
import XCTest
import PatchRouter

/// Matches every URL whatever its pattern says (so a router must try it on every URL).
final class MatchEverythingDefinition: RouteDefinition {
    override func routeVariables(for request: RouteRequest) -> [String: Any]? { ["any": true] }
}

/// A subclass that keeps the default matching and says so: it may be looked up by its pattern.
final class IndexedSubclassDefinition: RouteDefinition {
    override var usesPatternMatching: Bool { true }
}

/// The router looks routes up by their literal components (RouteIndex): what routing finds and in
/// what order must be what trying every route in order would give.
final class RouteIndexTests: RouterTestCase {
    /// Records each handler that ran, in order, and declines so the next matching route runs.
    private var ran: [String] = []

    private func declining(_ name: String) -> Router.Handler {
        { [weak self] _ in
            self?.ran.append(name)
            return false
        }
    }

    func testIndexedAndOwnMatchingRoutesRunInPriorityThenInsertionOrder() throws {
        let router = Router.global
        try router.addRoute("/a/:x", handler: declining("variable"))
        try router.addRoute(MatchEverythingDefinition(pattern: "/zzz", handler: declining("custom")))
        try router.addRoute("/a/b", handler: declining("literal"))
        try router.addRoute("/a/*", priority: 5, handler: declining("wildcard"))
        try router.addRoute("/*", priority: -1, handler: declining("root wildcard"))
        try router.addRoute("/a/b/c", handler: declining("too long"))
        try router.addRoute("/b/:x", handler: declining("other literal"))

        XCTAssertFalse(Router.routeURL(URL(string: "tests://a/b")!))
        XCTAssertEqual(ran, ["wildcard", "variable", "custom", "literal", "root wildcard"])
        XCTAssertEqual(router.routes.map(\.pattern), ["/a/*", "/a/:x", "/zzz", "/a/b", "/a/b/c", "/b/:x", "/*"])
    }

    func testLiteralsMatchAsWrittenOrPercentDecodedAndFragmentsByTheirPath() throws {
        try Router.global.addRoute("/my docs/:name", handler: record)
        route("tests://host.example.com/my%20docs/a%2Fb")
        assertRouted(["name": "a/b"], pattern: "/my docs/:name")

        try Router.global.addRoute("/caf%C3%A9", handler: record)
        route("tests://host.example.com/caf%C3%A9")
        assertRouted([:], pattern: "/caf%C3%A9")

        try Router.global.addRoute("/user#/view/:id", handler: record)
        route("tests://user#/view/7")
        assertRouted(["id": "7"], pattern: "/user#/view/:id")
    }

    func testASubclassThatKeepsPatternMatchingIsIndexedAndStillFound() throws {
        try Router.global.addRoute(IndexedSubclassDefinition(pattern: "/sub/:id", handler: record))
        try Router.global.addRoute(MatchEverythingDefinition(pattern: "/never/written", priority: -5) { _ in false })
        route("tests://sub/9")
        assertRouted(["id": "9"], pattern: "/sub/:id")
    }

    /// Ten thousand routes, each found for its own URL and no other; removing by token, by pattern
    /// and re-adding keep the index and the routing order consistent.
    func testTenThousandRoutesEachReachTheirOwnHandler() throws {
        let router = Router()
        var hits = [Int](repeating: 0, count: 10_000)
        var tokens: [RouteToken] = []
        for i in 0..<10_000 {
            tokens.append(try router.addRoute("/t\(i % 8)/r\(i)/:x") { parameters in
                hits[i] += 1
                return parameters["x"] as? String == "v\(i)"
            })
        }
        for i in stride(from: 0, to: 10_000, by: 7) {
            XCTAssertTrue(router.routeURL(URL(string: "app://t\(i % 8)/r\(i)/v\(i)")!), "route \(i)")
        }
        XCTAssertFalse(router.routeURL(URL(string: "app://t1/r0/v0")!), "r0 is under t0 only")
        XCTAssertEqual(hits.reduce(0, +), (10_000 + 6) / 7)

        XCTAssertTrue(router.removeRoute(tokens[14]))
        XCTAssertFalse(router.routeURL(URL(string: "app://t6/r14/v14")!))
        XCTAssertEqual(router.removeRoute(pattern: "/t5/r21/:x"), 1)
        XCTAssertFalse(router.routeURL(URL(string: "app://t5/r21/v21")!))
        try router.addRoute("/t6/r14/:x", priority: 1) { _ in true }
        XCTAssertTrue(router.routeURL(URL(string: "app://t6/r14/anything")!))
        XCTAssertEqual(router.routes.count, 9_999)
        XCTAssertEqual(router.routes.first?.pattern, "/t6/r14/:x", "the only priority-1 route comes first")
        XCTAssertEqual(router.routes[1].pattern, "/t0/r0/:x")
    }

    func testTakenAndRestoredRoutesAreFoundAgainAfterEqualPriorityOnesAddedSince() throws {
        try Router.global.addRoute("/p/:x", handler: declining("first"))
        let taken = Router.global.takeRoutes(pattern: "/p/:x")
        route("tests://p/1")
        assertNotRouted()
        try Router.global.addRoute("/p/:y", handler: declining("added since"))
        Router.global.restoreRoutes(taken)
        XCTAssertFalse(Router.routeURL(URL(string: "tests://p/1")!))
        XCTAssertEqual(ran, ["added since", "first"])
    }
}
