import Foundation

/// A semantic version (semver.org 2.0.0): `MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD]`.
///
/// Parsing accepts one to three numeric components (`2` and `2.1` mean `2.0.0` and `2.1.0`,
/// because app versions such as "1.4" are common); numbers have no leading zeros. Ordering
/// follows semver §11: numeric components first, then a pre-release sorts before the release
/// (`1.0.0-beta < 1.0.0`), pre-release identifiers compare numerically when both are numeric,
/// otherwise by ASCII, numeric before alphanumeric, and a longer list wins a tie. Build metadata
/// is kept for display and ignored for ordering and equality.
public struct SemanticVersion: Comparable, Hashable, CustomStringConvertible, Sendable {
    public var major: Int
    public var minor: Int
    public var patch: Int
    /// Dot-separated pre-release identifiers (`["beta", "2"]` for `-beta.2`); empty for a release.
    public var prerelease: [String]
    /// Build metadata (`+build.7`), not part of ordering.
    public var build: [String]

    public init(_ major: Int, _ minor: Int = 0, _ patch: Int = 0, prerelease: [String] = [], build: [String] = []) {
        self.major = major; self.minor = minor; self.patch = patch
        self.prerelease = prerelease; self.build = build
    }

    /// Parses a version string; throws `VersionSyntaxError` with the reason when it isn't one.
    public init(parsing text: String) throws {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        guard !rest.isEmpty else { throw VersionSyntaxError(text: text, reason: "empty version") }
        var build: [String] = []
        if let plus = rest.firstIndex(of: "+") {
            build = try Self.identifiers(rest[rest.index(after: plus)...], in: text, what: "build metadata", numericRules: false)
            rest = rest[..<plus]
        }
        var prerelease: [String] = []
        if let dash = rest.firstIndex(of: "-") {
            prerelease = try Self.identifiers(rest[rest.index(after: dash)...], in: text, what: "pre-release", numericRules: true)
            rest = rest[..<dash]
        }
        let parts = rest.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else {
            throw VersionSyntaxError(text: text, reason: "expected MAJOR.MINOR.PATCH")
        }
        var numbers: [Int] = []
        for part in parts {
            guard let n = Self.number(part) else {
                throw VersionSyntaxError(text: text, reason: "'\(part)' is not a number without leading zeros")
            }
            numbers.append(n)
        }
        while numbers.count < 3 { numbers.append(0) }
        self.init(numbers[0], numbers[1], numbers[2], prerelease: prerelease, build: build)
    }

    public var description: String {
        var s = "\(major).\(minor).\(patch)"
        if !prerelease.isEmpty { s += "-" + prerelease.joined(separator: ".") }
        if !build.isEmpty { s += "+" + build.joined(separator: ".") }
        return s
    }

    public static func == (a: SemanticVersion, b: SemanticVersion) -> Bool {
        a.major == b.major && a.minor == b.minor && a.patch == b.patch && a.prerelease == b.prerelease
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(major); hasher.combine(minor); hasher.combine(patch); hasher.combine(prerelease)
    }

    public static func < (a: SemanticVersion, b: SemanticVersion) -> Bool {
        if a.major != b.major { return a.major < b.major }
        if a.minor != b.minor { return a.minor < b.minor }
        if a.patch != b.patch { return a.patch < b.patch }
        // A release sorts after every pre-release of the same numbers.
        switch (a.prerelease.isEmpty, b.prerelease.isEmpty) {
        case (true, _): return false
        case (false, true): return true
        case (false, false): break
        }
        for (x, y) in zip(a.prerelease, b.prerelease) where x != y {
            switch (Self.number(Substring(x)), Self.number(Substring(y))) {
            case let (m?, n?): return m < n
            case (_?, nil): return true
            case (nil, _?): return false
            case (nil, nil): return x.utf8.lexicographicallyPrecedes(y.utf8)
            }
        }
        return a.prerelease.count < b.prerelease.count
    }

    /// A non-negative decimal without leading zeros (and small enough for `Int`), or nil.
    private static func number(_ s: Substring) -> Int? {
        guard !s.isEmpty, s.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        if s.count > 1 && s.first == "0" { return nil }
        return Int(s)
    }

    private static func identifiers(_ s: Substring, in text: String, what: String, numericRules: Bool) throws -> [String] {
        let ids = s.split(separator: ".", omittingEmptySubsequences: false)
        for id in ids {
            guard !id.isEmpty, id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
                throw VersionSyntaxError(text: text, reason: "bad \(what) identifier '\(id)'")
            }
            if numericRules, id.allSatisfy({ $0.isNumber }), number(id) == nil {
                throw VersionSyntaxError(text: text, reason: "numeric \(what) identifier '\(id)' has a leading zero")
            }
        }
        return ids.map(String.init)
    }
}

/// A version or version-range string that doesn't parse, with the reason.
public struct VersionSyntaxError: Error, Equatable, CustomStringConvertible, Sendable {
    public var text: String
    public var reason: String
    public var description: String { "invalid version '\(text)': \(reason)" }
}
