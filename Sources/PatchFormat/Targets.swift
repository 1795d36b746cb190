import Foundation

/// One target file as targets metadata lists it (spec §4.6): its length, hashes and custom data.
/// PatchEngine keeps what a device checks before applying a patch in `custom`.
public struct TargetFile: Equatable, Sendable {
    public var length: Int64
    public var hashes: [String: String]
    /// The `custom` member, if any (any JSON).
    public var custom: JSONValue?
    public var unrecognized: [String: JSONValue]

    public init(length: Int64, hashes: [String: String], custom: JSONValue? = nil) {
        self.length = length
        self.hashes = hashes
        self.custom = custom
        self.unrecognized = [:]
    }

    /// A target file describing `data` (SHA-256 and SHA-512, the length).
    public init(data: Data, custom: JSONValue? = nil) {
        self.init(length: Int64(data.count),
                  hashes: ["sha256": HashCheck.digest("sha256", of: data)!, "sha512": HashCheck.digest("sha512", of: data)!],
                  custom: custom)
    }

    /// Reads the target `path` lists (`json`).
    init(json: JSONValue, path: String) throws {
        // The common shape read directly: a role of 10,000 targets reads 10,000 of these, and
        // `JSONFields` costs an allocation and a message context each. Anything else goes the
        // long way, which says what is wrong.
        if case .object(let members) = json, case .integer(let length)? = members["length"], length >= 0,
           case .object(let listed)? = members["hashes"], !listed.isEmpty,
           let hashes = try? HashCheck.parse(listed, context: "") {
            let custom = members["custom"]
            self.init(length: length, hashes: hashes, custom: custom)
            if members.count != (custom == nil ? 2 : 3) {
                unrecognized = members.filter { $0.key != "length" && $0.key != "hashes" && $0.key != "custom" }
            }
            return
        }
        try self.init(json: json, context: "target \(path)")
    }

    init(json: JSONValue, context: String) throws {
        var fields = try JSONFields(json, context: context)
        length = try fields.integer("length")
        guard length >= 0 else { throw FormatError.malformed("\(context): length must not be negative") }
        hashes = try HashCheck.parse(try fields.object("hashes"), context: context)
        custom = fields.take("custom")
        unrecognized = fields.remaining
    }

    var json: JSONValue {
        var members = unrecognized
        members["length"] = .integer(length)
        members["hashes"] = .object(hashes.mapValues { .string($0) })
        if let custom { members["custom"] = custom }
        return .object(members)
    }

    /// Throws unless `data` has exactly this length and every listed hash.
    public func verify(_ data: Data, what: String) throws {
        guard Int64(data.count) == length else {
            throw FormatError.malformed("\(what): length \(data.count), expected \(length)")
        }
        try HashCheck.verify(data, hashes: hashes, what: what)
    }
}

/// Targets metadata (spec §4.6), top-level or delegated: target files and delegations.
public struct Targets: RoleMetadata {
    public static let type = "targets"
    public var common: CommonFields
    /// Keyed by target path.
    public var targets: [String: TargetFile]
    public var delegations: Delegations?
    public var unrecognized: [String: JSONValue]

    public init(common: CommonFields, targets: [String: TargetFile] = [:], delegations: Delegations? = nil) {
        self.common = common
        self.targets = targets
        self.delegations = delegations
        self.unrecognized = [:]
    }

    public init(json: JSONValue) throws {
        var fields = try JSONFields(json, context: "targets")
        common = try CommonFields(&fields, type: Self.type)
        let listed = try fields.object("targets")
        var targets: [String: TargetFile] = [:]
        targets.reserveCapacity(listed.count)
        for (path, value) in listed {
            targets[path] = try TargetFile(json: value, path: path)
        }
        self.targets = targets
        delegations = try fields.take("delegations").map { try Delegations(json: $0) }
        unrecognized = fields.remaining
    }

    public var json: JSONValue {
        var members = unrecognized.merging(common.members(type: Self.type))
        members["targets"] = .object(targets.mapValues(\.json))
        if let delegations { members["delegations"] = delegations.json }
        return .object(members)
    }
}

/// The roles a targets role delegates to, and their keys (spec §4.6): either a list of roles
/// with path patterns, or succinct hash bins (TAP 15).
public struct Delegations: Equatable, Sendable {
    public var keys: [String: PublicKey]
    /// Ordered: the search visits roles in this order.
    public var roles: [DelegatedRole]?
    public var succinctRoles: SuccinctRoles?
    public var unrecognized: [String: JSONValue]

    public init(keys: [String: PublicKey], roles: [DelegatedRole]) {
        self.keys = keys
        self.roles = roles
        self.succinctRoles = nil
        self.unrecognized = [:]
    }

    init(json: JSONValue) throws {
        var fields = try JSONFields(json, context: "delegations")
        var keys: [String: PublicKey] = [:]
        for (keyid, value) in try fields.object("keys") {
            keys[keyid] = try PublicKey(json: value, context: "delegation key \(keyid)")
        }
        self.keys = keys
        let rolesJSON = fields.take("roles")
        let succinctJSON = fields.take("succinct_roles")
        switch (rolesJSON, succinctJSON) {
        case (.some(.array(let list)), nil):
            let roles = try list.map { try DelegatedRole(json: $0) }
            var names = Set<String>()
            for role in roles {
                guard names.insert(role.name).inserted else { throw FormatError.malformed("delegations: role \(role.name) is listed twice") }
                guard !Root.topLevelRoles.contains(role.name) else {
                    throw FormatError.malformed("delegations: a delegated role cannot be named \(role.name)")
                }
            }
            self.roles = roles
            self.succinctRoles = nil
        case (nil, .some(let value)):
            self.roles = nil
            self.succinctRoles = try SuccinctRoles(json: value)
        default:
            throw FormatError.malformed("delegations: exactly one of roles (an array) and succinct_roles is required")
        }
        unrecognized = fields.remaining
    }

    var json: JSONValue {
        var members = unrecognized
        members["keys"] = .object(keys.mapValues(\.json))
        if let roles { members["roles"] = .array(roles.map(\.json)) }
        if let succinctRoles { members["succinct_roles"] = succinctRoles.json }
        return .object(members)
    }

    /// The roles to search for `targetPath`, in order, each with whether it is terminating.
    public func roles(for targetPath: String) -> [(name: String, terminating: Bool)] {
        if let roles {
            return roles.filter { $0.delegates(targetPath) }.map { ($0.name, $0.terminating) }
        }
        if let succinctRoles { return [(succinctRoles.roleName(for: targetPath), true)] }
        return []
    }

    /// The key ids and threshold this delegation gives `roleName`, if it delegates to it.
    public func keys(for roleName: String) -> (keyids: [String], threshold: Int64)? {
        if let role = roles?.first(where: { $0.name == roleName }) { return (role.keyids, role.threshold) }
        if let succinctRoles, succinctRoles.isRole(roleName) { return (succinctRoles.keyids, succinctRoles.threshold) }
        return nil
    }
}

/// One delegation in a `roles` list.
public struct DelegatedRole: Equatable, Sendable {
    public var name: String
    public var keyids: [String]
    public var threshold: Int64
    /// A terminating role ends the search (spec §5.6.7.2.1) when it delegates the path.
    public var terminating: Bool
    /// Glob patterns (`*`, `?`, `[...]`; neither crosses `/`); or else `pathHashPrefixes`.
    public var paths: [String]?
    public var pathHashPrefixes: [String]?
    public var unrecognized: [String: JSONValue]

    public init(name: String, keyids: [String], threshold: Int64, terminating: Bool, paths: [String]) {
        self.name = name
        self.keyids = keyids
        self.threshold = threshold
        self.terminating = terminating
        self.paths = paths
        self.pathHashPrefixes = nil
        self.unrecognized = [:]
    }

    init(json: JSONValue) throws {
        var fields = try JSONFields(json, context: "delegated role")
        name = try fields.string("name")
        let context = "delegated role \(name)"
        keyids = try fields.stringArray("keyids")
        threshold = try fields.integer("threshold")
        try RoleKeys.validate(keyids: keyids, threshold: threshold, context: context)
        terminating = try fields.bool("terminating")
        paths = try fields.optionalStringArray("paths")
        pathHashPrefixes = try fields.optionalStringArray("path_hash_prefixes")
        guard (paths == nil) != (pathHashPrefixes == nil) else {
            throw FormatError.malformed("\(context): exactly one of paths and path_hash_prefixes is required")
        }
        unrecognized = fields.remaining
    }

    var json: JSONValue {
        var members = unrecognized
        members["name"] = .string(name)
        members["keyids"] = .array(keyids.map { .string($0) })
        members["threshold"] = .integer(threshold)
        members["terminating"] = .bool(terminating)
        if let paths { members["paths"] = .array(paths.map { .string($0) }) }
        if let pathHashPrefixes { members["path_hash_prefixes"] = .array(pathHashPrefixes.map { .string($0) }) }
        return .object(members)
    }

    /// Whether this role can be trusted for some target under `directory/` (a channel's
    /// targets are `<channel>/<name>`): a path pattern whose first segment matches `directory`
    /// and that has more segments, or hash prefixes (which can match any path).
    public func mayDelegate(under directory: String) -> Bool {
        if pathHashPrefixes != nil { return true }
        return (paths ?? []).contains { pattern in
            let parts = pattern.split(separator: "/", omittingEmptySubsequences: false)
            return parts.count >= 2 && PathPattern.glob(Array(parts[0].unicodeScalars), Array(directory.unicodeScalars))
        }
    }

    /// Whether this role is trusted for every target `directory/<name>` (a pattern
    /// `<matching directory>/*`): a terminating one ends a search for such targets.
    public func delegatesAll(under directory: String) -> Bool {
        (paths ?? []).contains { pattern in
            let parts = pattern.split(separator: "/", omittingEmptySubsequences: false)
            return parts.count == 2 && parts[1] == "*" && PathPattern.glob(Array(parts[0].unicodeScalars), Array(directory.unicodeScalars))
        }
    }

    /// Whether this role is trusted for `targetPath`.
    public func delegates(_ targetPath: String) -> Bool {
        if let paths { return paths.contains { PathPattern.matches(pattern: $0, path: targetPath) } }
        if let pathHashPrefixes {
            let digest = HashCheck.digest("sha256", of: Data(targetPath.utf8))!
            return pathHashPrefixes.contains { digest.hasPrefix($0) }
        }
        return false
    }
}

/// Hash-bin delegation in compact form (TAP 15): `2^bitLength` roles named
/// `<prefix>-<bin in hex>`, a target going to the bin its SHA-256 begins with. Always terminating.
public struct SuccinctRoles: Equatable, Sendable {
    public var keyids: [String]
    public var threshold: Int64
    public var bitLength: Int
    public var namePrefix: String
    public var unrecognized: [String: JSONValue]

    init(json: JSONValue) throws {
        var fields = try JSONFields(json, context: "succinct_roles")
        keyids = try fields.stringArray("keyids")
        threshold = try fields.integer("threshold")
        try RoleKeys.validate(keyids: keyids, threshold: threshold, context: "succinct_roles")
        let bits = try fields.integer("bit_length")
        guard (1...32).contains(bits) else { throw FormatError.malformed("succinct_roles: bit_length must be 1 to 32") }
        bitLength = Int(bits)
        namePrefix = try fields.string("name_prefix")
        unrecognized = fields.remaining
    }

    var json: JSONValue {
        .object(unrecognized.merging([
            "keyids": .array(keyids.map { .string($0) }), "threshold": .integer(threshold),
            "bit_length": .integer(Int64(bitLength)), "name_prefix": .string(namePrefix),
        ]))
    }

    private var suffixLength: Int { String((1 << bitLength) - 1, radix: 16).count }

    public func roleName(for targetPath: String) -> String {
        let digest = Hex.decode(HashCheck.digest("sha256", of: Data(targetPath.utf8))!)!
        let first = digest.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let bin = Int(first >> (32 - UInt32(bitLength)))
        return name(ofBin: bin)
    }

    private func name(ofBin bin: Int) -> String {
        let hex = String(bin, radix: 16)
        return "\(namePrefix)-\(String(repeating: "0", count: suffixLength - hex.count))\(hex)"
    }

    /// Whether `name` is one of the bins.
    public func isRole(_ name: String) -> Bool {
        guard name.hasPrefix(namePrefix + "-") else { return false }
        let suffix = name.dropFirst(namePrefix.count + 1)
        guard suffix.count == suffixLength, let bin = Int(suffix, radix: 16), suffix == suffix.lowercased() else { return false }
        return bin < (1 << bitLength)
    }
}

/// The path patterns of delegated roles: shell-style globs matched segment by segment, so a
/// wildcard never crosses `/` (`releases/*` does not match `releases/x/y`). Case-sensitive.
public enum PathPattern {
    public static func matches(pattern: String, path: String) -> Bool {
        let patternParts = pattern.split(separator: "/", omittingEmptySubsequences: false)
        let pathParts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard patternParts.count == pathParts.count else { return false }
        return zip(patternParts, pathParts).allSatisfy { glob(Array($0.0.unicodeScalars), Array($0.1.unicodeScalars)) }
    }

    /// `fnmatch` without its case folding: `*` any run, `?` one character, `[abc]`, `[a-z]`,
    /// `[!abc]` one character of (or not of) a set. An unclosed `[` is a literal.
    static func glob(_ p: [Unicode.Scalar], _ s: [Unicode.Scalar]) -> Bool {
        var pi = 0, si = 0
        var starP = -1, starS = 0
        while si < s.count {
            if pi < p.count {
                switch p[pi] {
                case "*":
                    starP = pi; starS = si; pi += 1
                    continue
                case "?":
                    pi += 1; si += 1
                    continue
                case "[":
                    if let (matched, next) = matchSet(p, pi, s[si]) {
                        if matched { pi = next; si += 1; continue }
                    } else if s[si] == "[" {
                        pi += 1; si += 1
                        continue
                    }
                default:
                    if p[pi] == s[si] { pi += 1; si += 1; continue }
                }
            }
            guard starP >= 0 else { return false }
            pi = starP + 1
            starS += 1
            si = starS
        }
        while pi < p.count, p[pi] == "*" { pi += 1 }
        return pi == p.count
    }

    /// Matches `c` against the set starting at `p[start] == "["`: nil if the set is unclosed.
    private static func matchSet(_ p: [Unicode.Scalar], _ start: Int, _ c: Unicode.Scalar) -> (Bool, Int)? {
        var i = start + 1
        var negate = false
        if i < p.count, p[i] == "!" { negate = true; i += 1 }
        var matched = false
        var first = true
        while i < p.count {
            if p[i] == "]" && !first { return (matched != negate, i + 1) }
            first = false
            if i + 2 < p.count, p[i + 1] == "-", p[i + 2] != "]" {
                if p[i].value <= c.value && c.value <= p[i + 2].value { matched = true }
                i += 3
            } else {
                if p[i] == c { matched = true }
                i += 1
            }
        }
        return nil
    }
}
