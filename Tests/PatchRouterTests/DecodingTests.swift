import Foundation
import XCTest
import PatchRouter

/// Percent and plus decoding, array query values, URLs passed as parameters
/// (JLRoutes' testPercentEncoding, testDecodePlusSymbols, testPassingURLStringsAsParams, testArrayQueryParams).
final class DecodingTests: RouterTestCase {
    override func setUp() {
        super.setUp()
        XCTAssertNoThrow(try Router.global.addRoute("/user/view/:userID", handler: record))
    }

    func testPercentEncodedReservedCharactersInVariables() {
        Router.shouldDecodePlusSymbols = false
        let cases: [(String, String)] = [
            ("%21", "!"), ("%23", "#"), ("%24", "$"), ("%26", "&"), ("%27", "'"), ("%28", "("), ("%29", ")"),
            ("%2A", "*"), ("%2B", "+"), ("%2C", ","), ("%3A", ":"), ("%3B", ";"), ("%3D", "="), ("%3F", "?"),
            ("%40", "@"), ("%5B", "["), ("%5D", "]"),
            // JLRoutes couldn't take %2F (it split paths decoded); the percent-encoded path keeps it one component.
            ("%2F", "/"),
        ]
        for (encoded, decoded) in cases {
            route("tests://user/view/joel\(encoded)levin")
            assertRouted(["userID": "joel\(decoded)levin"])
        }
    }

    func testEncodedHashAtTheEndIsKept() {
        route("tests://user/view/joel%23")
        assertRouted(["userID": "joel#"])
    }

    func testPlusDecodingOn() {
        Router.shouldDecodePlusSymbols = true
        route("tests://user/view/joel+levin")
        assertRouted(["userID": "joel levin"])
        route("tests://user/view/test?name=joel+levin")
        assertRouted(["userID": "test", "name": "joel levin"])
        route("tests://user/view/test?people=joel+levin&people=foo+bar")
        assertRouted(["userID": "test", "people": ["joel levin", "foo bar"]])
    }

    func testEncodedPlusStaysAPlus() {
        // JLRoutes decoded percent escapes first and then turned every "+" into a space, so "%2B" became
        // a space (its test expected "joel levin"). "+" means space only where it was written as "+".
        Router.shouldDecodePlusSymbols = true
        route("tests://user/view/joel%2Blevin")
        assertRouted(["userID": "joel+levin"])
        route("tests://user/view/search?q=C%2B%2B+tips")
        assertRouted(["userID": "search", "q": "C++ tips"])
    }

    func testPlusDecodingOff() {
        Router.shouldDecodePlusSymbols = false
        route("tests://user/view/joel%2Blevin")
        assertRouted(["userID": "joel+levin"])
        route("tests://user/view/joel+levin")
        assertRouted(["userID": "joel+levin"])
        route("tests://user/view/test?name=joel+levin")
        assertRouted(["userID": "test", "name": "joel+levin"])
        route("tests://user/view/test?people=joel+levin&people=foo+bar")
        assertRouted(["userID": "test", "people": ["joel+levin", "foo+bar"]])
    }

    func testPlusInQueryNamesFollowsTheOption() {
        route("tests://user/view/x?first+name=joel")
        assertRouted(["userID": "x", "first name": "joel"])
        Router.shouldDecodePlusSymbols = false
        route("tests://user/view/x?first+name=joel")
        assertRouted(["userID": "x", "first+name": "joel"])
    }

    func testURLStringsAsParameters() throws {
        try Router.global.addRoute("/web/:URLString", handler: record)
        try Router.global.addRoute("/web", handler: record)
        route("tests://web/http%3A%2F%2Ffoobar.com%2Fbaz")
        assertRouted(["URLString": "http://foobar.com/baz"], pattern: "/web/:URLString")
        route("tests://web?URLString=http%3A%2F%2Ffoobar.com%2Fbaz")
        assertRouted(["URLString": "http://foobar.com/baz"], pattern: "/web")
    }

    func testArrayQueryParameters() throws {
        try Router.global.addRoute("/test/foo", handler: record)
        route("tests://test/foo?key=1&key=2&key=3&text=hi&text=there")
        assertRouted(["key": ["1", "2", "3"], "text": ["hi", "there"]])
    }

    func testQueryItemsWithoutValueOrNameAreSkipped() {
        route("tests://user/view/x?flag&=orphan&empty=&a=1=2&&")
        assertRouted(["userID": "x", "empty": "", "a": "1=2"])
    }

    func testWildcardComponentsAreDecodedLikeVariables() throws {
        try Router.global.addRoute("/files/*", handler: record)
        route("tests://files/my%20docs/a+b/%C3%BC")
        assertRouted([Router.wildcardComponentsKey: ["my docs", "a b", "ü"]])
    }

    func testUnicode() throws {
        route("tests://user/view/%C3%BC%C3%A9%F0%9F%98%80")
        assertRouted(["userID": "üé😀"])
        route("tests://user/view/ü")   // Foundation percent-encodes it when building the URL
        assertRouted(["userID": "ü"])
        try Router.global.addRoute("/café/:item", handler: record)
        route("tests:/caf%C3%A9/cr%C3%A8me")
        assertRouted(["item": "crème"], pattern: "/café/:item")
    }

    func testLiteralComponentsMatchEncodedOrDecodedText() throws {
        try Router.global.addRoute("/my docs/:id", handler: record)
        route("tests:/my%20docs/7")
        assertRouted(["id": "7"], pattern: "/my docs/:id")
    }

    func testInvalidPercentEscapesArePassedThrough() {
        // %FF is not UTF-8: the value can't be decoded, so the handler gets the text as written.
        route("tests://user/view/joel%FF?q=a%FFb+c")
        assertRouted(["userID": "joel%FF", "q": "a%FFb c"])
    }
}
