/// A route pattern as the user wrote it, turned into the concrete patterns it stands for.
///
/// Syntax (JLRoutes'): components separated by "/", `:name` variables, a trailing `*` wildcard,
/// and optional groups in parentheses. Groups may be repeated and nested: `/a(/b(/c))(/d)`.
/// Each group boundary is also a component boundary, as in JLRoutes (`/user(s)` means `/user/s`).
/// Empty components are ignored, so `/a//b/` is the same pattern as `/a/b` and `""` is the root `/`.
struct RoutePattern {
    /// The most concrete routes one `addRoute` call may create; 2^10, i.e. ten independent groups.
    static let combinationLimit = 1024

    /// The text passed to `addRoute`.
    let source: String
    /// The concrete patterns, longest (most components) first; equal lengths keep the order in which
    /// earlier groups are present before they are absent. No duplicates.
    let expansions: [Expansion]

    /// One concrete pattern: its components and the pattern string reported under `Router.patternKey`.
    struct Expansion: Equatable {
        let components: [String]
        let pattern: String
    }

    /// A parsed piece of the pattern: plain text, or an optional group of pieces.
    private indirect enum Piece {
        case text(String)
        case group([Piece])
    }

    init(_ source: String) throws {
        self.source = source
        let pieces = try RoutePattern.parse(source)
        let hasGroups = pieces.contains { if case .group = $0 { return true } else { return false } }

        guard RoutePattern.combinationCount(pieces) <= RoutePattern.combinationLimit else {
            throw RoutePatternError.tooManyCombinations(pattern: source, limit: RoutePattern.combinationLimit)
        }
        var seen: Set<[String]> = []
        var expansions: [Expansion] = []
        let ordered = RoutePattern.expand(pieces).enumerated().sorted { lhs, rhs in
            // Stable: longest first, then generation order.
            lhs.element.count != rhs.element.count ? lhs.element.count > rhs.element.count : lhs.offset < rhs.offset
        }
        for (_, components) in ordered where seen.insert(components).inserted {
            if let wildcard = components.firstIndex(of: "*"), wildcard != components.count - 1 {
                throw RoutePatternError.wildcardNotLast(pattern: source)
            }
            // Without groups the pattern is reported as written, as JLRoutes does; expansions are rebuilt.
            let text = hasGroups ? "/" + components.joined(separator: "/") : source
            expansions.append(Expansion(components: components, pattern: text))
        }
        self.expansions = expansions
    }

    /// Splits text into path components, dropping empty ones.
    static func components(of text: Substring) -> [String] {
        text.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }

    private static func parse(_ source: String) throws -> [Piece] {
        // One entry per open group (plus the top level): its pieces so far and where it opened.
        var stack: [(pieces: [Piece], offset: Int)] = [([], 0)]
        var text = ""
        func flushText() {
            if !text.isEmpty {
                stack[stack.count - 1].pieces.append(.text(text))
                text = ""
            }
        }
        for (offset, character) in source.enumerated() {
            switch character {
            case "(":
                flushText()
                stack.append(([], offset))
            case ")":
                flushText()
                guard stack.count > 1 else {
                    throw RoutePatternError.unopenedGroup(pattern: source, offset: offset)
                }
                let group = stack.removeLast()
                stack[stack.count - 1].pieces.append(.group(group.pieces))
            default:
                text.append(character)
            }
        }
        flushText()
        guard stack.count == 1 else {
            throw RoutePatternError.unclosedGroup(pattern: source, offset: stack[stack.count - 1].offset)
        }
        return stack[0].pieces
    }

    /// How many component lists `expand` would produce, saturating instead of overflowing.
    private static func combinationCount(_ pieces: [Piece]) -> Int {
        var total = 1
        for piece in pieces {
            guard case let .group(inner) = piece else { continue }
            let (product, overflow) = total.multipliedReportingOverflow(by: combinationCount(inner) + 1)
            total = overflow ? Int.max / 2 : min(product, Int.max / 2)
        }
        return total
    }

    /// Every combination of present/absent groups; for each group, "present" comes before "absent".
    private static func expand(_ pieces: [Piece]) -> [[String]] {
        var results: [[String]] = [[]]
        for piece in pieces {
            let variants: [[String]]
            switch piece {
            case let .text(text):
                variants = [components(of: Substring(text))]
            case let .group(inner):
                variants = expand(inner) + [[]]
            }
            results = results.flatMap { prefix in variants.map { prefix + $0 } }
        }
        return results
    }
}
