import Foundation
import XCTest
import PatchRouter

/// Many threads adding, removing and routing at once. Checks results (every URL reached the right
/// handler with the right parameters), never timing.
final class ConcurrencyTests: RouterTestCase {
    /// Collects failures from any thread.
    private final class Failures: @unchecked Sendable {
        private let lock = NSLock()
        private var messages: [String] = []
        func add(_ message: String) {
            lock.lock()
            messages.append(message)
            lock.unlock()
        }
        var all: [String] {
            lock.lock()
            defer { lock.unlock() }
            return messages
        }
    }

    func testAddRouteRemoveConcurrently() throws {
        let router = Router.routes(forScheme: "stress")
        let failures = Failures()
        try router.addRoute("/shared/:n") { parameters in
            parameters[Router.patternKey] as? String == "/shared/:n" && parameters["n"] != nil
        }
        let threads = 8
        let iterations = 150

        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for i in 0..<iterations {
                let pattern = "/t\(thread)/item\(i)/:id(/detail)"
                let expectedID = "\(thread)-\(i)"
                var hits = 0
                let token: RouteToken
                do {
                    token = try router.addRoute(pattern, priority: i % 3) { parameters in
                        if parameters["id"] as? String != expectedID {
                            failures.add("\(pattern): got id \(String(describing: parameters["id"]))")
                        }
                        hits += 1
                        return true
                    }
                } catch {
                    failures.add("addRoute \(pattern): \(error)")
                    continue
                }
                let own = URL(string: "stress://t\(thread)/item\(i)/\(expectedID)/detail")!
                if !Router.routeURL(own) { failures.add("\(own) did not route") }
                if !Router.canRouteURL(own) { failures.add("\(own) not routable") }
                if hits != 1 { failures.add("\(own): handler ran \(hits) times") }

                let shared = URL(string: "stress://shared/\(thread)x\(i)")!
                if !Router.routeURL(shared) { failures.add("\(shared) did not route") }

                // Half by token, half by pattern: both must take every expansion away.
                if i.isMultiple(of: 2) {
                    if !router.removeRoute(token) { failures.add("token of \(pattern) removed nothing") }
                } else {
                    let removed = router.removeRoute(pattern: pattern)
                    if removed != 2 { failures.add("\(pattern): removed \(removed) routes, expected 2") }
                }
                if Router.routeURL(own) { failures.add("\(own) still routes after removal") }
                if hits != 1 { failures.add("\(own): removed handler ran") }
            }
        }

        XCTAssertEqual(failures.all, [])
        XCTAssertEqual(router.routes.map(\.pattern), ["/shared/:n"])
    }

    func testConcurrentLookupsReturnOneRouterPerScheme() {
        let lock = NSLock()
        var seen: [String: Set<ObjectIdentifier>] = [:]
        DispatchQueue.concurrentPerform(iterations: 64) { i in
            let scheme = "scheme\(i % 4)"
            let router = i.isMultiple(of: 3) ? Router.routes(forScheme: scheme.uppercased()) : Router.routes(forScheme: scheme)
            lock.lock()
            seen[scheme, default: []].insert(ObjectIdentifier(router))
            lock.unlock()
        }
        XCTAssertEqual(seen.count, 4)
        XCTAssertEqual(seen.values.map(\.count), [1, 1, 1, 1])
    }

    func testReplaceRouteNeverLeavesAGap() throws {
        let router = Router.global
        let failures = Failures()
        try router.addRoute("/hot") { _ in true }
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for i in 0..<200 {
                if thread < 2 {
                    do {
                        try router.replaceRoute("/hot", priority: i % 2) { _ in true }
                    } catch {
                        failures.add("replaceRoute: \(error)")
                    }
                } else if !Router.routeURL(URL(string: "t://hot")!) {
                    failures.add("t://hot found no route during replacement")
                }
            }
        }
        XCTAssertEqual(failures.all, [])
        XCTAssertEqual(router.routes.map(\.pattern), ["/hot"])
    }

    func testReentrantHandlersOnManyThreads() throws {
        let router = Router.routes(forScheme: "re")
        let failures = Failures()
        // Each call adds a one-shot route from inside the handler, routes it, and the one-shot removes itself.
        try router.addRoute("/spawn/:n") { parameters in
            let n = parameters["n"] as? String ?? "?"
            var token: RouteToken?
            var ran = false
            token = try? router.addRoute("/child/\(n)") { _ in
                ran = true
                if let token { router.removeRoute(token) }
                return true
            }
            if !router.routeURL(URL(string: "re://child/\(n)")!) { failures.add("child \(n) did not route") }
            if !ran { failures.add("child \(n) handler did not run") }
            if router.canRouteURL(URL(string: "re://child/\(n)")!) { failures.add("child \(n) still registered") }
            return true
        }
        DispatchQueue.concurrentPerform(iterations: 400) { i in
            if !Router.routeURL(URL(string: "re://spawn/\(i)")!) { failures.add("spawn \(i) did not route") }
        }
        XCTAssertEqual(failures.all, [])
        XCTAssertEqual(router.routes.map(\.pattern), ["/spawn/:n"])
    }
}
