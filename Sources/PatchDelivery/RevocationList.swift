import Foundation

/// A signed list of revoked patches (the kill switch). Fetched with the patches; a revoked patch
/// that is running is reverted at once and never loaded again on that device.
///
/// Signed bytes: the `CanonicalJSON` serialization of
///
///     {"format":1,"issued":1763700000,"keyID":"release-2026",
///      "revoked":[{"patchID":"shop-fixes"},{"patchID":"promo","versions":[2,3]}],
///      "sequence":4,"type":"revocation-list"}
///
/// An entry without `versions` revokes every version of the id. `sequence` grows with each list
/// issued. An optional `"expires"` (whole seconds) ends the list's freshness early: a device
/// treats a list as fresh until its expiry or until the app's `revocationListMaxAge` after
/// `issued`, whichever comes first, and holds network patches back while it has no fresh list. File: `{"list": {…}, "signature": "<base64 Ed25519 signature of the signed bytes>"}`.
public struct RevocationList: Equatable, Sendable {
    public static let typeName = "revocation-list"
    public static let currentFormat = 1

    public struct Entry: Equatable, Sendable {
        public var patchID: String
        /// The revoked versions, sorted; nil revokes every version.
        public var versions: [Int]?
        public init(patchID: String, versions: [Int]? = nil) {
            self.patchID = patchID
            self.versions = versions.map { Array(Set($0)).sorted() }
        }
    }

    /// Grows with each list issued.
    public var sequence: Int
    /// When the list was signed (whole seconds).
    public var issued: Date
    /// After this time the list is no longer fresh (whole seconds); nil for no signed expiry.
    public var expires: Date?
    /// The key that signed it.
    public var keyID: String
    /// Entries, one per patch id, sorted by id.
    public private(set) var entries: [Entry]

    public init(sequence: Int, issued: Date, expires: Date? = nil, keyID: String, entries: [Entry] = []) {
        self.sequence = sequence
        self.issued = Date(timeIntervalSince1970: issued.timeIntervalSince1970.rounded(.down))
        self.expires = expires.map { Date(timeIntervalSince1970: $0.timeIntervalSince1970.rounded(.down)) }
        self.keyID = keyID
        self.entries = []
        for entry in entries { revoke(entry.patchID, versions: entry.versions) }
    }

    /// Adds a revocation, merging with an entry for the same id (all versions wins over a list).
    public mutating func revoke(_ patchID: String, versions: [Int]? = nil) {
        if let i = entries.firstIndex(where: { $0.patchID == patchID }) {
            if let old = entries[i].versions, let new = versions {
                entries[i] = Entry(patchID: patchID, versions: old + new)
            } else {
                entries[i] = Entry(patchID: patchID, versions: nil)
            }
        } else {
            entries.append(Entry(patchID: patchID, versions: versions))
            entries.sort { $0.patchID.utf8.lexicographicallyPrecedes($1.patchID.utf8) }
        }
    }

    /// Whether `version` of `patchID` is revoked.
    public func revokes(patchID: String, version: Int) -> Bool {
        guard let entry = entries.first(where: { $0.patchID == patchID }) else { return false }
        return entry.versions?.contains(version) ?? true
    }

    public var canonical: CanonicalJSON {
        var members: [String: CanonicalJSON] = [
            "type": .string(Self.typeName),
            "format": .integer(Self.currentFormat),
            "sequence": .integer(sequence),
            "issued": .integer(Int(issued.timeIntervalSince1970)),
            "keyID": .string(keyID),
            "revoked": .array(entries.map { entry in
                var o: [String: CanonicalJSON] = ["patchID": .string(entry.patchID)]
                if let versions = entry.versions { o["versions"] = .array(versions.map { .integer($0) }) }
                return .object(o)
            }),
        ]
        if let expires { members["expires"] = .integer(Int(expires.timeIntervalSince1970)) }
        return .object(members)
    }

    /// The bytes the signature covers.
    public var canonicalBytes: Data { canonical.bytes }

    init(json: JSONValue) throws {
        let r = try JSONObjectReader(json, context: "revocation list")
        try r.rejectUnknown(["type", "format", "sequence", "issued", "expires", "keyID", "revoked"])
        guard try r.string("type") == Self.typeName else {
            throw PatchRefusal.malformed("revocation list type must be '\(Self.typeName)'")
        }
        guard try r.integer("format") == Self.currentFormat else {
            throw PatchRefusal.malformed("revocation list format \(try r.integer("format")) is not supported")
        }
        let issued = try r.integer("issued")
        guard PatchManifest.timeRange.contains(TimeInterval(issued)) else {
            throw PatchRefusal.malformed("revocation list field 'issued' is out of range")
        }
        let expires = r.has("expires") ? try r.integer("expires") : nil
        if let expires, !(issued < expires && PatchManifest.timeRange.contains(TimeInterval(expires))) {
            throw PatchRefusal.malformed("revocation list field 'expires' must be after 'issued' and in range")
        }
        var entries: [Entry] = []
        for (index, item) in try r.array("revoked").enumerated() {
            let e = try JSONObjectReader(item, context: "revocation entry #\(index + 1)")
            try e.rejectUnknown(["patchID", "versions"])
            let id = try e.string("patchID")
            try PatchManifest.validateIdentifier(id, field: "revoked patchID")
            var versions: [Int]?
            if e.has("versions") {
                versions = try e.array("versions").map {
                    guard case .integer(let v) = $0 else { throw PatchRefusal.malformed("revocation entry '\(id)' has a version that is not an integer") }
                    return v
                }
            }
            entries.append(Entry(patchID: id, versions: versions))
        }
        let keyID = try r.string("keyID")
        guard LogSafe.isPrintable(keyID) else {
            throw PatchRefusal.malformed("revocation list field 'keyID' '\(LogSafe.escape(keyID))' has control or format characters")
        }
        self.init(sequence: try r.integer("sequence"), issued: Date(timeIntervalSince1970: TimeInterval(issued)),
                  expires: expires.map { Date(timeIntervalSince1970: TimeInterval($0)) }, keyID: keyID, entries: entries)
        // Re-deriving the signed bytes must reproduce what was signed: refuse unsorted or duplicate entries
        // (which merging would silently rewrite) with a clear message instead of a bad signature.
        if self.entries != entries {
            throw PatchRefusal.malformed("revocation list entries are not sorted by patch id, unique, with sorted versions")
        }
    }
}

/// A revocation list with its signature, as stored in a file.
public struct SignedRevocationList: Equatable, Sendable {
    public var list: RevocationList
    public var signature: Data

    public init(list: RevocationList, signature: Data) {
        self.list = list
        self.signature = signature
    }

    /// Parses a revocation list file; throws `PatchRefusal.malformed` saying what is wrong.
    public init(fileData: Data) throws {
        let r = try JSONObjectReader(try JSONValue.parse(fileData, what: "revocation list file"), context: "revocation list file")
        try r.rejectUnknown(["list", "signature"])
        let signature = try r.base64("signature")
        self.init(list: try RevocationList(json: try r.value("list")), signature: signature)
    }

    /// The file's bytes: `{"list":<canonical list>,"signature":"…"}` on one line.
    public func fileData() -> Data {
        var out = Data("{\"list\":".utf8)
        out += list.canonicalBytes
        out += Data(",\"signature\":".utf8)
        out += CanonicalJSON.string(signature.base64EncodedString()).bytes
        out += Data("}\n".utf8)
        return out
    }
}
