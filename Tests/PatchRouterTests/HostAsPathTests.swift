import Foundation
import XCTest
import PatchRouter

/// The host rule (JLRoutes' testTreatsHostAsPathComponent and the rule's edges).
final class HostAsPathTests: RouterTestCase {
    func testDottedHostIsNotAPathComponent() throws {
        try Router.global.addRoute("/sign_in", handler: record)
        try Router.global.addRoute("/path/:pathid", handler: record)

        route("https://www.mydomain.com/sign_in")
        assertRouted([:], pattern: "/sign_in")
        route("https://www.mydomain.com/path/3")
        assertRouted(["pathid": "3"], pattern: "/path/:pathid")
    }

    func testAlwaysTreatsHostAsPathComponent() throws {
        try Router.global.addRoute("/sign_in", handler: record)
        try Router.global.addRoute("/path/:pathid", handler: record)
        Router.alwaysTreatsHostAsPathComponent = true
        XCTAssertTrue(Router.alwaysTreatsHostAsPathComponent)

        route("https://www.mydomain2.com/sign_in")
        assertNotRouted()
        route("https://www.mydomain2.com/path/3")
        assertNotRouted()

        try Router.global.addRoute("/www.mydomain2.com/sign_in", handler: record)
        try Router.global.addRoute("/www.mydomain2.com/path/:pathid", handler: record)
        route("https://www.mydomain2.com/sign_in")
        assertRouted([:], pattern: "/www.mydomain2.com/sign_in")
        route("https://www.mydomain2.com/path/3")
        assertRouted(["pathid": "3"], pattern: "/www.mydomain2.com/path/:pathid")
    }

    func testLocalhostInAnyCaseIsNotAPathComponent() throws {
        try Router.global.addRoute("/x", handler: record)
        route("http://localhost/x")
        assertRouted([:], pattern: "/x")
        route("http://LOCALHOST/x")
        assertRouted([:], pattern: "/x")
    }

    func testPlainHostIsFirstComponentAndPortAndUserAreIgnored() throws {
        try Router.global.addRoute("/user/view/:id", handler: record)
        route("tests://user:8080/view/1")
        assertRouted(["id": "1"])
        route("tests://me:secret@user/view/2")
        assertRouted(["id": "2"])
    }

    func testIPLiteralHostIsNotAPathComponent() throws {
        try Router.global.addRoute("/x", handler: record)
        route("http://[::1]/x")
        assertRouted([:], pattern: "/x")
    }

    func testPercentEncodedHostIsDecodedAsVariable() throws {
        try Router.global.addRoute("/:who/profile", handler: record)
        route("tests://joel%20levin/profile")
        assertRouted(["who": "joel levin"])
    }
}
