import Foundation

/// The keys and threshold of one role, as root (top-level roles) lists them (spec §4.3).
public struct RoleKeys: Equatable, Sendable {
    /// Distinct key ids (a list with a repeated id is refused: it would count one key twice).
    public var keyids: [String]
    public var threshold: Int64
    public var unrecognized: [String: JSONValue]

    public init(keyids: [String], threshold: Int64, unrecognized: [String: JSONValue] = [:]) {
        self.keyids = keyids
        self.threshold = threshold
        self.unrecognized = unrecognized
    }

    init(json: JSONValue, context: String) throws {
        var fields = try JSONFields(json, context: context)
        keyids = try fields.stringArray("keyids")
        threshold = try fields.integer("threshold")
        unrecognized = fields.remaining
        try Self.validate(keyids: keyids, threshold: threshold, context: context)
    }

    static func validate(keyids: [String], threshold: Int64, context: String) throws {
        guard Set(keyids).count == keyids.count else { throw FormatError.malformed("\(context): a key id is listed twice") }
        guard threshold >= 1 else { throw FormatError.malformed("\(context): threshold must be at least 1, found \(threshold)") }
    }

    var json: JSONValue {
        .object(unrecognized.merging(["keyids": .array(keyids.map { .string($0) }), "threshold": .integer(threshold)]))
    }
}

/// Root metadata (spec §4.3): the keys and thresholds of the four top-level roles, and whether
/// the repository publishes consistent snapshots.
public struct Root: RoleMetadata {
    public static let type = "root"
    public static let topLevelRoles = ["root", "timestamp", "snapshot", "targets"]

    public var common: CommonFields
    /// Absent is false (spec §4.3); kept optional so a file without it re-serializes the same.
    public var consistentSnapshot: Bool?
    public var keys: [String: PublicKey]
    /// Exactly the four top-level roles.
    public var roles: [String: RoleKeys]
    public var unrecognized: [String: JSONValue]

    public init(common: CommonFields, consistentSnapshot: Bool = true, keys: [String: PublicKey], roles: [String: RoleKeys]) {
        self.common = common
        self.consistentSnapshot = consistentSnapshot
        self.keys = keys
        self.roles = roles
        self.unrecognized = [:]
    }

    public init(json: JSONValue) throws {
        var fields = try JSONFields(json, context: "root")
        common = try CommonFields(&fields, type: Self.type)
        consistentSnapshot = try fields.optionalBool("consistent_snapshot")
        var keys: [String: PublicKey] = [:]
        for (keyid, value) in try fields.object("keys") {
            keys[keyid] = try PublicKey(json: value, context: "root key \(keyid)")
        }
        self.keys = keys
        var roles: [String: RoleKeys] = [:]
        for (name, value) in try fields.object("roles") {
            roles[name] = try RoleKeys(json: value, context: "root role \(name)")
        }
        guard Set(roles.keys) == Set(Self.topLevelRoles) else {
            throw FormatError.malformed("root: roles must be exactly root, timestamp, snapshot and targets")
        }
        self.roles = roles
        unrecognized = fields.remaining
    }

    public var json: JSONValue {
        var members = unrecognized.merging(common.members(type: Self.type))
        if let consistentSnapshot { members["consistent_snapshot"] = .bool(consistentSnapshot) }
        members["keys"] = .object(keys.mapValues(\.json))
        members["roles"] = .object(roles.mapValues(\.json))
        return .object(members)
    }

    /// Whether file names carry versions (metadata) and hashes (targets).
    public var usesConsistentSnapshots: Bool { consistentSnapshot ?? false }

    /// Adds `key` to `role` (and to the key list); no-op if it is there already.
    public mutating func add(key: PublicKey, to role: String) {
        let id = key.keyID
        keys[id] = key
        if roles[role]?.keyids.contains(id) == false { roles[role]?.keyids.append(id) }
    }

    /// The first top-level role (by name) that trusts a development key (`PublicKey.isDevelopment`),
    /// if any: a production client refuses such a root.
    public var firstRoleTrustingDevelopmentKey: String? {
        roles.sorted { $0.key < $1.key }.first { _, role in role.keyids.contains { keys[$0]?.isDevelopment == true } }?.key
    }

    /// The first top-level role (by name) that trusts a key that is not a development key, if
    /// any: nil for a development root (the live QA loop's, which a `DevelopmentSession` requires).
    public var firstRoleTrustingReleaseKey: String? {
        roles.sorted { $0.key < $1.key }.first { _, role in role.keyids.contains { keys[$0]?.isDevelopment != true } }?.key
    }

    /// Removes `keyid` from `role`, and from the key list when no role uses it any more.
    public mutating func revoke(keyid: String, from role: String) {
        roles[role]?.keyids.removeAll { $0 == keyid }
        if !roles.values.contains(where: { $0.keyids.contains(keyid) }) { keys[keyid] = nil }
    }
}

/// Checks signatures against the keys a delegator assigned to a role.
public enum ThresholdCheck {
    /// The key ids of `role` whose signature over `bytes` is valid, one per public key: a key id
    /// counts once however many signatures name it, and one key listed under several key ids
    /// (hex in other case, a P-256 key under both ECDSA key types, other unrecognized members)
    /// counts once (`PublicKey.material`). A key id missing from `keys` or a key of an
    /// unsupported type counts for nothing.
    public static func validSigners(keys: [String: PublicKey], keyids: [String], signatures: [Signature], bytes: Data) -> Set<String> {
        var valid = Set<String>()
        var counted = Set<Data>()
        for keyid in Set(keyids).sorted() {
            guard let key = keys[keyid], let material = key.material,
                  let signature = signatures.first(where: { $0.keyid == keyid }) else { continue }
            if !counted.contains(material), key.verify(signatureHex: signature.sig, message: bytes) {
                counted.insert(material)
                valid.insert(keyid)
            }
        }
        return valid
    }

    /// Whether at least `threshold` distinct keys of the role signed `bytes`.
    public static func isMet(keys: [String: PublicKey], keyids: [String], threshold: Int64, signatures: [Signature], bytes: Data) -> Bool {
        Int64(validSigners(keys: keys, keyids: keyids, signatures: signatures, bytes: bytes).count) >= threshold
    }
}
