import Foundation
import XCTest
import PatchRouter

/// Fragments: JLRoutes' testFragmentRouting (a fragment may hold a path and a query; patterns address
/// the fragment path with "#"), plus the anchor case JLRoutes got wrong.
final class FragmentRoutingTests: RouterTestCase {
    override func setUp() {
        super.setUp()
        let global = Router.global
        XCTAssertNoThrow(try global.addRoute("/user#/view/:userID", handler: record))
        XCTAssertNoThrow(try global.addRoute("/:object#/:action/:primaryKey", handler: record))
        XCTAssertNoThrow(try global.addRoute("/interleaving/:param1#/foo/:param2", handler: record))
        XCTAssertNoThrow(try global.addRoute("/xyz/wildcard#/*", handler: record))
        XCTAssertNoThrow(try global.addRoute("/route#/:param/*", handler: record))
        XCTAssertNoThrow(try global.addRoute("/required#/:requiredParam(/optional/:optionalParam)(/moreOptional/:moreOptionalParam)", handler: record))
    }

    func testFragmentPathVariables() {
        route("tests://user#/view/joeldev")
        assertRouted(["userID": "joeldev"], pattern: "/user#/view/:userID")
        route("tests://user#/view/joeldev/")
        assertRouted(["userID": "joeldev"])
        route("tests://user#/view/joel%20levin")
        assertRouted(["userID": "joel levin"])
    }

    func testFragmentPathWithFragmentQuery() {
        route("tests://user#/view/joeldev?foo=bar&thing=stuff")
        assertRouted(["userID": "joeldev", "foo": "bar", "thing": "stuff"])
        route("tests://user#/view/joeldev?userID=evilPerson")
        assertRouted(["userID": "joeldev"])
        route("tests://user#/view/joeldev?userID=evilPerson&search=evilSearch&evilThing=evil")
        assertRouted(["userID": "joeldev", "search": "evilSearch", "evilThing": "evil"])
    }

    func testQueryBeforeAndInsideFragmentCombine() {
        route("tests://user?search=niceSearch&go=home#/view/joeldev?userID=evilPerson&&evilThing=evil")
        assertRouted(["userID": "joeldev", "search": "niceSearch", "go": "home", "evilThing": "evil"])
    }

    func testVariableMarkedWithHash() {
        route("tests://post#/edit/123")
        assertRouted(["object": "post", "action": "edit", "primaryKey": "123"], pattern: "/:object#/:action/:primaryKey")
        route("tests://interleaving/paramvalue1#/foo/paramvalue2")
        assertRouted(["param1": "paramvalue1", "param2": "paramvalue2"])
    }

    func testFragmentWildcards() {
        route("tests://xyz/wildcard#")
        assertRouted([Router.wildcardComponentsKey: [String]()], pattern: "/xyz/wildcard#/*")
        route("tests://xyz/wildcard#/matches/with/extra/path/components")
        assertRouted([Router.wildcardComponentsKey: ["matches", "with", "extra", "path", "components"]])
        route("tests://route#/matches/with/wildcard")
        assertRouted(["param": "matches", Router.wildcardComponentsKey: ["with", "wildcard"]])
    }

    func testUnknownFragmentPath() {
        route("tests://doesnt/exist#/and/wont/match")
        assertNotRouted()
    }

    func testFragmentOptionalGroups() {
        route("tests://required#/mustExist")
        assertRouted(["requiredParam": "mustExist"], pattern: "/required#/:requiredParam")
        route("tests://required#/mustExist/optional/mightExist")
        assertRouted(["requiredParam": "mustExist", "optionalParam": "mightExist"])
        route("tests://required#/mustExist/optional/mightExist/moreOptional/mightExistToo")
        assertRouted(["requiredParam": "mustExist", "optionalParam": "mightExist", "moreOptionalParam": "mightExistToo"])
    }

    func testRootFragmentPath() throws {
        try Router.global.addRoute("/#/settings/:tab", handler: record)
        route("tests://#/settings/privacy")
        assertRouted(["tab": "privacy"], pattern: "/#/settings/:tab")
    }
}
