/// The app versions a patch applies to.
///
/// Syntax: `*` (any version), or one or more comparators separated by spaces, all of which must
/// hold. A comparator is an operator (`>=`, `>`, `<=`, `<`, `=`) followed by a version, or a bare
/// version meaning `=`. Examples: `>=1.2.0 <2.0.0`, `=1.4.2`, `1.4.2`, `>1.0`, `*`.
/// Versions are `SemanticVersion`s and compare as such, so `<2.0.0` excludes `2.0.0` but
/// includes `2.0.0-beta` (a pre-release sorts before its release).
public struct AppVersionRange: Equatable, CustomStringConvertible, Sendable {
    public enum Operator: String, CaseIterable, Sendable {
        case greaterOrEqual = ">=", greater = ">", lessOrEqual = "<=", less = "<", equal = "="
    }

    public struct Comparator: Equatable, Sendable {
        public var op: Operator
        public var version: SemanticVersion

        public func isSatisfied(by v: SemanticVersion) -> Bool {
            switch op {
            case .greaterOrEqual: return v >= version
            case .greater: return v > version
            case .lessOrEqual: return v <= version
            case .less: return v < version
            case .equal: return v == version
            }
        }
    }

    /// Every comparator must hold; an empty list is `*`.
    public var comparators: [Comparator]

    /// Any app version.
    public static let any = AppVersionRange(comparators: [])

    public init(comparators: [Comparator]) { self.comparators = comparators }

    /// Parses the syntax described on the type; throws `VersionSyntaxError` with the reason.
    public init(parsing text: String) throws {
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard !tokens.isEmpty else { throw VersionSyntaxError(text: text, reason: "empty version range (use * for any version)") }
        if tokens == ["*"] { self = .any; return }
        var comparators: [Comparator] = []
        for token in tokens {
            // Longest operator first, so ">=" isn't read as ">" followed by "=1.0".
            let op = [Operator.greaterOrEqual, .lessOrEqual, .greater, .less, .equal].first { token.hasPrefix($0.rawValue) }
            let versionText = String(token.dropFirst(op?.rawValue.count ?? 0))
            guard !versionText.isEmpty else {
                throw VersionSyntaxError(text: text, reason: "operator '\(token)' has no version")
            }
            do {
                comparators.append(Comparator(op: op ?? .equal, version: try SemanticVersion(parsing: versionText)))
            } catch let error as VersionSyntaxError {
                throw VersionSyntaxError(text: text, reason: error.reason + " in '\(token)'")
            }
        }
        self.comparators = comparators
    }

    public func contains(_ version: SemanticVersion) -> Bool {
        comparators.allSatisfy { $0.isSatisfied(by: version) }
    }

    /// The normalized text: comparators separated by one space, `*` for any.
    public var description: String {
        comparators.isEmpty ? "*" : comparators.map { $0.op.rawValue + $0.version.description }.joined(separator: " ")
    }
}
