import Foundation

/// How a URL is taken apart; set globally through `Router`'s static options.
struct RouteRequestOptions: OptionSet {
    let rawValue: Int
    /// `+` in path variables, wildcard components and query items means a space.
    static let decodePlusSymbols = RouteRequestOptions(rawValue: 1 << 0)
    /// The host is always the first path component, even `www.example.com` or `localhost`.
    static let treatHostAsPathComponent = RouteRequestOptions(rawValue: 1 << 1)
}

/// A URL taken apart the way JLRoutes does, ready to be matched against route definitions.
///
/// - The host counts as the first path component when it contains no "." and is not `localhost`
///   (`myapp://user/view/1` has the path `user/view/1`), or always with `treatHostAsPathComponent`.
///   IP literals (`[::1]`) are never path components.
/// - A fragment is a query when it has a `?` (`#/view/1?a=b`: its items join the query items) or when
///   its first item has a value (`#a=b`). Otherwise, or before the `?`, it is a path: JLRoutes glues it to
///   the path with "#" (`myapp://user#/view/1` → `user#`, `view`, `1`), and patterns that contain "#"
///   (`/user#/view/:id`) match those components. Patterns without "#" match the path alone, so an
///   anchor such as `#top` doesn't keep `/user` from matching (in JLRoutes it did).
/// - Components stay percent-encoded here; empty components are dropped (`a//b/` = `a/b`).
///
/// Routers create requests; custom `RouteDefinition`s read them.
public struct RouteRequest {
    /// The URL being routed.
    public let url: URL
    let options: RouteRequestOptions
    /// The extra parameters given to `routeURL`.
    public let additionalParameters: [String: Any]
    /// The path's components (host first when it counts as one), percent-encoded.
    public let pathComponents: [String]
    /// The path with the fragment's path glued on after "#"; equals `pathComponents` without one.
    public let fragmentPathComponents: [String]
    /// Query and fragment-query items, decoded; a repeated name gives an array of its values in order.
    public let queryParameters: [String: Any]

    /// Whether `+` means a space (`Router.shouldDecodePlusSymbols` when the request was made).
    public var decodesPlusSymbols: Bool { options.contains(.decodePlusSymbols) }

    init(url: URL, options: RouteRequestOptions, additionalParameters: [String: Any]) {
        self.url = url
        self.options = options
        self.additionalParameters = additionalParameters

        let components = URLComponents(url: url.absoluteURL, resolvingAgainstBaseURL: false)
        var path = components?.percentEncodedPath ?? url.path
        if let host = components?.percentEncodedHost, RouteRequest.hostIsPathComponent(host, options: options) {
            path = host + "/" + path
        }
        let decodePlus = options.contains(.decodePlusSymbols)
        var items = components?.percentEncodedQuery.map {
            RouteDecoding.queryItems(Substring($0), decodePlusSymbols: decodePlus)
        } ?? []

        pathComponents = RoutePattern.components(of: Substring(path))
        var fragmentPath: Substring?
        if let fragment = components?.percentEncodedFragment.map({ Substring($0) }) {
            if let question = fragment.firstIndex(of: "?") {
                fragmentPath = fragment[..<question]
                items += RouteDecoding.queryItems(fragment[fragment.index(after: question)...], decodePlusSymbols: decodePlus)
            } else if RouteDecoding.fragmentIsQuery(fragment) {
                items += RouteDecoding.queryItems(fragment, decodePlusSymbols: decodePlus)
            } else {
                fragmentPath = fragment
            }
        }
        if let fragmentPath {
            // The last path component carries the "#" marker (or "#" stands alone at the root).
            let base = pathComponents.joined(separator: "/")
            fragmentPathComponents = RoutePattern.components(of: Substring(base + "#" + fragmentPath))
        } else {
            fragmentPathComponents = pathComponents
        }

        var parameters: [String: Any] = [:]
        for (name, value) in items {
            switch parameters[name] {
            case nil: parameters[name] = value
            case let values as [String]: parameters[name] = values + [value]
            case let first as String: parameters[name] = [first, value]
            default: break
            }
        }
        queryParameters = parameters
    }

    private static func hostIsPathComponent(_ host: String, options: RouteRequestOptions) -> Bool {
        guard !host.isEmpty, !host.hasPrefix("[") else { return false }
        if options.contains(.treatHostAsPathComponent) { return true }
        return !host.contains(".") && host.lowercased() != "localhost"
    }
}
