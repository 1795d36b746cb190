import Foundation
import XCTest
import PatchRouter

/// Shared setup for router tests: a clean registry and default options around every test, and a
/// recording handler like JLRoutes' tests use (`lastMatch`, `didRoute`).
class RouterTestCase: XCTestCase {
    var lastMatch: [String: Any]?
    var didRoute = false

    override func setUp() {
        super.setUp()
        resetRouters()
    }

    override func tearDown() {
        resetRouters()
        super.tearDown()
    }

    private func resetRouters() {
        Router.unregisterAllRouteSchemes()
        Router.shouldDecodePlusSymbols = true
        Router.alwaysTreatsHostAsPathComponent = false
        Router.defaultRouteDefinitionType = RouteDefinition.self
    }

    /// A handler that records its parameters and returns true.
    var record: Router.Handler {
        { [weak self] parameters in
            self?.lastMatch = parameters
            return true
        }
    }

    /// Routes a URL string through `Router.routeURL`, recording the outcome.
    func route(_ string: String, parameters: [String: Any] = [:], file: StaticString = #filePath, line: UInt = #line) {
        lastMatch = nil
        guard let url = URL(string: string) else {
            XCTFail("not a URL: \(string)", file: file, line: line)
            didRoute = false
            return
        }
        didRoute = Router.routeURL(url, parameters: parameters)
    }

    /// Asserts the last routing succeeded and the handler got exactly `expected` besides the pattern,
    /// URL and scheme keys; optionally checks the pattern and scheme too.
    func assertRouted(
        _ expected: [String: Any],
        pattern: String? = nil,
        scheme: String? = nil,
        file: StaticString = #filePath,
        line: UInt = #line
    ) {
        XCTAssertTrue(didRoute, "expected a route to handle the URL", file: file, line: line)
        guard let match = lastMatch else {
            XCTFail("no handler recorded parameters", file: file, line: line)
            return
        }
        let base: Set = [Router.patternKey, Router.urlKey, Router.schemeKey]
        let userParameters = match.filter { !base.contains($0.key) }
        XCTAssertEqual(Set(userParameters.keys), Set(expected.keys), "parameter names", file: file, line: line)
        for (key, value) in expected {
            XCTAssertTrue(sameValue(userParameters[key], value), "\(key): got \(String(describing: userParameters[key])), expected \(value)", file: file, line: line)
        }
        if let pattern {
            XCTAssertEqual(match[Router.patternKey] as? String, pattern, "pattern", file: file, line: line)
        }
        if let scheme {
            XCTAssertEqual(match[Router.schemeKey] as? String, scheme, "scheme", file: file, line: line)
        }
    }

    func assertNotRouted(file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(didRoute, "expected no route to handle the URL, got \(String(describing: lastMatch))", file: file, line: line)
        XCTAssertNil(lastMatch, "a handler ran", file: file, line: line)
    }

    func url(_ string: String, file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        try XCTUnwrap(URL(string: string), file: file, line: line)
    }
}

/// Compares the value types parameters hold: strings, string arrays, numbers, booleans and URLs.
func sameValue(_ actual: Any?, _ expected: Any) -> Bool {
    switch (actual, expected) {
    case let (a as String, b as String): return a == b
    case let (a as [String], b as [String]): return a == b
    case let (a as Int, b as Int): return a == b
    case let (a as Bool, b as Bool): return a == b
    case let (a as URL, b as URL): return a == b
    default: return false
    }
}
