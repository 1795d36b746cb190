import Crypto
import Foundation

/// Lengths and hashes: what a timestamp says of snapshot, what a snapshot says of each targets
/// role, and (with a required length) what targets metadata says of each target file.
public enum HashCheck {
    /// The algorithms a hash list may name. Any other name fails verification: a hash that
    /// cannot be checked proves nothing.
    public static let supported = ["sha256", "sha384", "sha512"]

    public static func digest(_ algorithm: String, of data: Data) -> String? {
        switch algorithm {
        case "sha256": return Hex.encode(Data(SHA256.hash(data: data)))
        case "sha384": return Hex.encode(Data(SHA384.hash(data: data)))
        case "sha512": return Hex.encode(Data(SHA512.hash(data: data)))
        default: return nil
        }
    }

    /// Throws unless `data` has every hash of `hashes` (lowercase or uppercase hex).
    public static func verify(_ data: Data, hashes: [String: String], what: String) throws {
        for (algorithm, expected) in hashes.sorted(by: { $0.key < $1.key }) {
            guard let actual = digest(algorithm, of: data) else {
                throw FormatError.malformed("\(what): unsupported hash algorithm \(algorithm)")
            }
            guard actual == expected.lowercased() else {
                throw FormatError.malformed("\(what): \(algorithm) hash mismatch")
            }
        }
    }

    static func parse(_ object: [String: JSONValue], context: String) throws -> [String: String] {
        guard !object.isEmpty else { throw FormatError.malformed("\(context): hashes must not be empty") }
        return try object.mapValues {
            guard case .string(let s) = $0 else { throw FormatError.malformed("\(context): each hash must be a string") }
            return s
        }
    }
}

/// What timestamp and snapshot metadata say of another metadata file (spec §4.4, §4.5).
public struct MetaFile: Equatable, Sendable {
    public var version: Int64
    public var length: Int64?
    public var hashes: [String: String]?
    public var unrecognized: [String: JSONValue]

    public init(version: Int64, length: Int64? = nil, hashes: [String: String]? = nil) {
        self.version = version
        self.length = length
        self.hashes = hashes
        self.unrecognized = [:]
    }

    init(json: JSONValue, context: String) throws {
        var fields = try JSONFields(json, context: context)
        version = try fields.integer("version")
        guard version > 0 else { throw FormatError.malformed("\(context): version must be positive") }
        length = try fields.optionalInteger("length")
        if let length, length < 0 { throw FormatError.malformed("\(context): length must not be negative") }
        hashes = try fields.optionalObject("hashes").map { try HashCheck.parse($0, context: context) }
        unrecognized = fields.remaining
    }

    var json: JSONValue {
        var members = unrecognized
        members["version"] = .integer(version)
        if let length { members["length"] = .integer(length) }
        if let hashes { members["hashes"] = .object(hashes.mapValues { .string($0) }) }
        return .object(members)
    }

    /// Throws unless `data` has the listed length and hashes (those listed; both are optional).
    public func verify(_ data: Data, what: String) throws {
        if let length, Int64(data.count) != length {
            throw FormatError.malformed("\(what): length \(data.count), expected \(length)")
        }
        if let hashes { try HashCheck.verify(data, hashes: hashes, what: what) }
    }
}

/// Timestamp metadata (spec §4.5): the current snapshot's version (and optionally its length
/// and hashes). Signed often by an online key: it is what makes stale metadata detectable.
public struct Timestamp: RoleMetadata {
    public static let type = "timestamp"
    public var common: CommonFields
    public var snapshotMeta: MetaFile
    public var unrecognized: [String: JSONValue]

    public init(common: CommonFields, snapshotMeta: MetaFile) {
        self.common = common
        self.snapshotMeta = snapshotMeta
        self.unrecognized = [:]
    }

    public init(json: JSONValue) throws {
        var fields = try JSONFields(json, context: "timestamp")
        common = try CommonFields(&fields, type: Self.type)
        let meta = try fields.object("meta")
        guard meta.count == 1, let snapshot = meta["snapshot.json"] else {
            throw FormatError.malformed("timestamp: meta must list snapshot.json and nothing else")
        }
        snapshotMeta = try MetaFile(json: snapshot, context: "timestamp meta snapshot.json")
        unrecognized = fields.remaining
    }

    public var json: JSONValue {
        var members = unrecognized.merging(common.members(type: Self.type))
        members["meta"] = .object(["snapshot.json": snapshotMeta.json])
        return .object(members)
    }
}

/// Snapshot metadata (spec §4.4): the version of every targets metadata file, so a client never
/// mixes files from different repository states.
public struct Snapshot: RoleMetadata {
    public static let type = "snapshot"
    public var common: CommonFields
    /// Keyed by file name: `targets.json`, `<delegated role>.json`.
    public var meta: [String: MetaFile]
    public var unrecognized: [String: JSONValue]

    public init(common: CommonFields, meta: [String: MetaFile]) {
        self.common = common
        self.meta = meta
        self.unrecognized = [:]
    }

    public init(json: JSONValue) throws {
        var fields = try JSONFields(json, context: "snapshot")
        common = try CommonFields(&fields, type: Self.type)
        var meta: [String: MetaFile] = [:]
        for (name, value) in try fields.object("meta") {
            meta[name] = try MetaFile(json: value, context: "snapshot meta \(name)")
        }
        self.meta = meta
        unrecognized = fields.remaining
    }

    public var json: JSONValue {
        var members = unrecognized.merging(common.members(type: Self.type))
        members["meta"] = .object(meta.mapValues(\.json))
        return .object(members)
    }
}
