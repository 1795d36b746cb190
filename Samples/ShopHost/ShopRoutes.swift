import Foundation
import PatchRouter
import PatchRouterBindings
import ShopKit

/// The app's deep links (`shop://…`), registered with PatchRouter at launch. A patch can replace
/// a route (`routes.replace(pattern, handler, {scheme: 'shop'})`) when a link is broken: the
/// `routes` global comes from PatchRouterBindings, registered here before any patch is applied.
enum ShopRoutes {
    static let scheme = "shop"

    static func register() throws {
        try PatchRouterBindings.register()
        let router = Router.routes(forScheme: scheme)
        try router.addRoute("/cart") { _ in sk_open_cart() == 1 }
        // BUG (fixed by Samples/patches/deep-link.js): copied from the old `/item/:id` route, the
        // handler still reads the parameter "id"; the pattern calls it "sku", so product links open nothing.
        try router.addRoute("/product/:sku") { parameters in
            sk_open_product(parameters["id"] as? String) == 1
        }
    }

    /// Routes a link; false when no route handled it.
    static func open(_ url: URL) -> Bool {
        Router.routeURL(url)
    }
}
