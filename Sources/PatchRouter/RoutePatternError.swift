import Foundation

/// Why `addRoute` (or `RouteDefinition`'s initializer) refused a pattern. The description names the pattern and the problem.
public enum RoutePatternError: Error, Equatable, CustomStringConvertible, LocalizedError {
    /// A "(" at this character offset has no matching ")".
    case unclosedGroup(pattern: String, offset: Int)
    /// A ")" at this character offset has no matching "(".
    case unopenedGroup(pattern: String, offset: Int)
    /// A `*` component that is not the last component: the wildcard only takes the remaining components.
    case wildcardNotLast(pattern: String)
    /// The optional groups expand into more concrete routes than the router accepts.
    case tooManyCombinations(pattern: String, limit: Int)
    /// A `RouteDefinition` was created with optional groups: a definition is one concrete route.
    case optionalGroupsInDefinition(pattern: String)

    public var description: String {
        switch self {
        case let .unclosedGroup(pattern, offset):
            return "route pattern \"\(pattern)\": \"(\" at offset \(offset) is never closed"
        case let .unopenedGroup(pattern, offset):
            return "route pattern \"\(pattern)\": \")\" at offset \(offset) has no matching \"(\""
        case let .wildcardNotLast(pattern):
            return "route pattern \"\(pattern)\": \"*\" must be the last path component"
        case let .tooManyCombinations(pattern, limit):
            return "route pattern \"\(pattern)\": its optional groups expand into more than \(limit) routes"
        case let .optionalGroupsInDefinition(pattern):
            return "route pattern \"\(pattern)\": a route definition takes one concrete pattern; addRoute expands optional groups"
        }
    }

    public var errorDescription: String? { description }
}
