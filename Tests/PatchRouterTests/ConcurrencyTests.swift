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

    /// The entry points added for custom definitions, subscripts, definition types and weak targets,
    /// each on its own threads while the others run.
    func testDefinitionsSubscriptsTypesAndWeakTargetsConcurrently() throws {
        let router = Router.routes(forScheme: "conc")
        let typed = Router.routes(forScheme: "typed")
        let failures = Failures()
        func url(_ string: String) -> URL { URL(string: string)! }

        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for i in 0..<100 {
                do {
                    switch thread % 4 {
                    case 0:
                        let pattern = "/sub/\(thread)/\(i)/:v"
                        let target = url("conc://sub/\(thread)/\(i)/\(i)")
                        router[pattern] = { $0["v"] as? String == "\(i)" }
                        if router[pattern] == nil { failures.add("\(pattern): getter found nothing") }
                        if !Router.routeURL(target) { failures.add("\(target) did not route") }
                        router[pattern] = nil
                        if router[pattern] != nil { failures.add("\(pattern): still there after nil") }
                        if Router.canRouteURL(target) { failures.add("\(target) routable after nil") }
                    case 1:
                        let definition = try RecordingDefinition(pattern: "/def/\(thread)/\(i)", priority: i % 3) { _ in true }
                        let target = url("conc://def/\(thread)/\(i)")
                        try router.addRoute(definition)
                        if !Router.routeURL(target) { failures.add("\(target) did not route") }
                        if definition.registeredSchemes != ["conc"] { failures.add("\(target): registered \(definition.registeredSchemes)") }
                        let removed = router.removeRoute(definition)
                        if removed != 1 { failures.add("\(target): removed \(removed)") }
                        if Router.routeURL(target) { failures.add("\(target) routes after removal") }
                    case 2:
                        Router.defaultRouteDefinitionType = i.isMultiple(of: 2) ? RecordingDefinition.self : RouteDefinition.self
                        typed.routeDefinitionType = i.isMultiple(of: 3) ? CaseInsensitiveDefinition.self : nil
                        let token = try typed.addRoute("/typed/\(thread)/\(i)(/x)(/y)") { _ in true }
                        let mine = typed.routes.filter { $0.token == token }
                        let types = Set(mine.map { ObjectIdentifier(type(of: $0)) })
                        if mine.count != 4 || types.count != 1 { failures.add("typed \(i): \(mine.count) routes of \(types.count) types") }
                        if !typed.removeRoute(token) { failures.add("typed \(i): token removed nothing") }
                    default:
                        var screen: MockScreen? = MockScreen()
                        let target = url("conc://weak/\(thread)/\(i)")
                        let token = try router.addRoute("/weak/\(thread)/\(i)", handler: RouteHandler.forWeakTarget(screen!))
                        if !Router.routeURL(target) { failures.add("\(target) did not route") }
                        if screen?.handledCount != 1 { failures.add("\(target): target ran \(screen?.handledCount ?? -1) times") }
                        screen = nil
                        if Router.routeURL(target) { failures.add("\(target) handled after its target went away") }
                        router.removeRoute(token)
                    }
                } catch {
                    failures.add("thread \(thread), \(i): \(error)")
                }
            }
        }

        XCTAssertEqual(failures.all, [])
        XCTAssertEqual(router.routes.count, 0)
        XCTAssertEqual(typed.routes.count, 0)
    }

    func testOneDefinitionAddedToManyRoutersAtOnceLandsInOne() throws {
        for round in 0..<50 {
            let definition = try RouteDefinition(pattern: "/race/\(round)") { _ in true }
            let lock = NSLock()
            var winners: [String] = []
            DispatchQueue.concurrentPerform(iterations: 8) { thread in
                let scheme = "race\(thread)"
                if (try? Router.routes(forScheme: scheme).addRoute(definition)) != nil {
                    lock.lock()
                    winners.append(scheme)
                    lock.unlock()
                }
            }
            XCTAssertEqual(winners.count, 1, "round \(round): \(winners)")
            guard let winner = winners.first else { continue }
            XCTAssertEqual(definition.scheme, winner)
            let holders = (0..<8).filter { !Router.routes(forScheme: "race\($0)").routes.isEmpty }
            XCTAssertEqual(holders.map { "race\($0)" }, [winner])
            XCTAssertEqual(Router.routes(forScheme: winner).removeRoute(definition), 1)
        }
    }
}
