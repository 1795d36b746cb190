import Foundation
import PatchRouter
import BenchFixtures

/// The router's cost independent of its size: adding a route and routing a URL to it costs the
/// same with 10 routes as with 10,000 (JLRoutes tries every route in turn). Ratio goal ≈ 1.
extension Catalog {
    mutating func addRouterRows() {
        for size in [10, 10_000] {
            let router = Router()
            add(Probe(id: "router.add-route.\(size)",
                      summary: "add /tN/rI/:x, route one URL to it, remove it, on a router of \(size) routes",
                      prepare: { if router.routes.isEmpty { Catalog.fill(router, routes: size) } },
                      kind: .loop { n in
                let start = pb_now_ns()
                for i in 0..<n {
                    let thread = Int(i % 8)
                    let token = try router.addRoute("/t\(thread)/bench\(i)/:x") { _ in true }
                    guard router.routeURL(URL(string: "bench://t\(thread)/bench\(i)/v")!) else {
                        throw BenchError("router.add-route.\(size): the URL found no route")
                    }
                    router.removeRoute(token)
                }
                return pb_now_ns() - start
            }))
        }
        row("Router: add + route + remove with 10,000 routes vs 10 (size-independent: ≈ 1)",
            "10,000 routes vs 10 routes", subject: "router.add-route.10000", floor: "router.add-route.10")
    }

    /// `routes` routes `/tN/rI/:x` spread over 8 first components, as 8 threads adding their own would.
    private static func fill(_ router: Router, routes: Int) {
        for i in 0..<routes {
            _ = try? router.addRoute("/t\(i % 8)/r\(i)/:x") { _ in true }
        }
    }
}
