import Foundation

/// What a patch claims about itself; the part of a patch file that is signed.
///
/// Its signed form is `canonicalBytes`: the `CanonicalJSON` serialization of this object
/// (keys in byte order, no whitespace, times as integer seconds since 1970 UTC):
///
///     {"appID":"com.example.shop","appVersions":">=1.0.0 <2.0.0","created":1763700000,
///      "expires":1766300000,"format":1,"keyID":"release-2026","patchID":"shop-fixes",
///      "scripts":[{"name":"total.js","sha256":"9f86…"}],"type":"patch-manifest","version":3}
///
/// (shown wrapped; the real bytes are one line). `expires` is left out when there is none.
/// `type` separates patch manifests from revocation lists signed by the same keys.
public struct PatchManifest: Equatable, Sendable {
    /// The value of the signed `type` field.
    public static let typeName = "patch-manifest"
    /// The manifest format this library reads and writes.
    public static let currentFormat = 1

    /// One script of the patch: its name in the file and the SHA-256 of its UTF-8 text (lowercase hex).
    public struct Script: Equatable, Sendable {
        public var name: String
        public var sha256: String
        public init(name: String, sha256: String) { self.name = name; self.sha256 = sha256 }
    }

    /// Stable identity of the patch across versions (letters, digits, `.`, `_`, `-`).
    public var patchID: String
    /// Monotonic version: a device only accepts a version higher than the one it applied.
    public var version: Int
    /// The app this patch is for (its bundle id), or `*` for any app.
    public var appID: String
    /// The app versions this patch applies to.
    public var appVersions: AppVersionRange
    /// When the patch was signed (whole seconds).
    public var created: Date
    /// After this time the patch is refused (whole seconds); nil for never.
    public var expires: Date?
    /// The id of the key that signed the manifest.
    public var keyID: String
    /// The scripts, in the order they are evaluated.
    public var scripts: [Script]

    public init(patchID: String, version: Int, appID: String, appVersions: AppVersionRange = .any,
                created: Date, expires: Date? = nil, keyID: String, scripts: [Script]) {
        self.patchID = patchID
        self.version = version
        self.appID = appID
        self.appVersions = appVersions
        self.created = Date(timeIntervalSince1970: created.timeIntervalSince1970.rounded(.down))
        self.expires = expires.map { Date(timeIntervalSince1970: $0.timeIntervalSince1970.rounded(.down)) }
        self.keyID = keyID
        self.scripts = scripts
    }

    /// The manifest as the canonical JSON value that is signed.
    public var canonical: CanonicalJSON {
        var members: [String: CanonicalJSON] = [
            "type": .string(Self.typeName),
            "format": .integer(Self.currentFormat),
            "patchID": .string(patchID),
            "version": .integer(version),
            "appID": .string(appID),
            "appVersions": .string(appVersions.description),
            "created": .integer(Int(created.timeIntervalSince1970)),
            "keyID": .string(keyID),
            "scripts": .array(scripts.map { .object(["name": .string($0.name), "sha256": .string($0.sha256)]) }),
        ]
        if let expires { members["expires"] = .integer(Int(expires.timeIntervalSince1970)) }
        return .object(members)
    }

    /// The bytes the signature covers.
    public var canonicalBytes: Data { canonical.bytes }

    /// Checks the values a signer could get wrong; throws `PatchRefusal.malformed` saying which.
    public func validate() throws {
        try Self.validateIdentifier(patchID, field: "patchID")
        guard version >= 1 else { throw PatchRefusal.malformed("manifest field 'version' must be at least 1, found \(version)") }
        try Self.validateName(appID, field: "appID")
        try Self.validateName(keyID, field: "keyID")
        guard !scripts.isEmpty else { throw PatchRefusal.malformed("manifest lists no scripts") }
        var seen = Set<String>()
        for script in scripts {
            guard !script.name.isEmpty, !script.name.contains("/"), !script.name.contains("\\"), LogSafe.isPrintable(script.name) else {
                throw PatchRefusal.malformed("script name '\(LogSafe.escape(script.name))' must be a plain file name")
            }
            guard seen.insert(script.name).inserted else {
                throw PatchRefusal.malformed("script '\(script.name)' is listed twice")
            }
            guard script.sha256.count == 64, script.sha256.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else {
                throw PatchRefusal.malformed("script '\(script.name)' has a sha256 that is not 64 lowercase hex digits")
            }
        }
        // Year 0001…9999 keeps the seconds exact through `TimeInterval`, so canonical bytes round-trip.
        let times: [(String, Date?)] = [("created", created), ("expires", expires)]
        for (field, date) in times {
            if let date, !(Self.timeRange).contains(date.timeIntervalSince1970) {
                throw PatchRefusal.malformed("manifest field '\(field)' is out of range")
            }
        }
        if let expires, expires <= created {
            throw PatchRefusal.malformed("manifest expires before it was created")
        }
    }

    static let timeRange: ClosedRange<TimeInterval> = -62_135_596_800 ... 253_402_300_799

    static func validateIdentifier(_ id: String, field: String) throws {
        let allowed = id.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0)) }
        guard !id.isEmpty, id.count <= 128, allowed else {
            throw PatchRefusal.malformed("\(field) '\(LogSafe.escape(id))' must be 1–128 letters, digits, '.', '_' or '-'")
        }
    }

    /// A free-form name (app id, key id): not empty, and nothing that would need escaping in a log.
    static func validateName(_ name: String, field: String) throws {
        guard !name.isEmpty else { throw PatchRefusal.malformed("manifest field '\(field)' is empty") }
        guard LogSafe.isPrintable(name) else {
            throw PatchRefusal.malformed("manifest field '\(field)' '\(LogSafe.escape(name))' has control or format characters")
        }
    }

    /// Reads a manifest from parsed JSON, refusing unknown fields and invalid values.
    init(json: JSONValue) throws {
        let r = try JSONObjectReader(json, context: "manifest")
        try r.rejectUnknown(["type", "format", "patchID", "version", "appID", "appVersions", "created", "expires", "keyID", "scripts"])
        guard try r.string("type") == Self.typeName else {
            throw PatchRefusal.malformed("manifest type must be '\(Self.typeName)'")
        }
        let format = try r.integer("format")
        guard format == Self.currentFormat else {
            throw PatchRefusal.malformed("manifest format \(format) is not supported (this library reads format \(Self.currentFormat))")
        }
        let range: AppVersionRange
        do { range = try AppVersionRange(parsing: try r.string("appVersions")) } catch let e as VersionSyntaxError {
            throw PatchRefusal.malformed("manifest field 'appVersions': \(e)")
        }
        var scripts: [Script] = []
        for (index, item) in try r.array("scripts").enumerated() {
            let s = try JSONObjectReader(item, context: "manifest script #\(index + 1)")
            try s.rejectUnknown(["name", "sha256"])
            scripts.append(Script(name: try s.string("name"), sha256: try s.string("sha256")))
        }
        self.init(
            patchID: try r.string("patchID"),
            version: try r.integer("version"),
            appID: try r.string("appID"),
            appVersions: range,
            created: Date(timeIntervalSince1970: TimeInterval(try r.integer("created"))),
            expires: r.has("expires") ? Date(timeIntervalSince1970: TimeInterval(try r.integer("expires"))) : nil,
            keyID: try r.string("keyID"),
            scripts: scripts)
        try validate()
        // The range text is signed as written; refuse spellings that don't survive normalization,
        // so that re-deriving the canonical bytes reproduces exactly what was signed.
        if try r.string("appVersions") != range.description {
            throw PatchRefusal.malformed("manifest field 'appVersions' is not in normalized form ('\(range.description)')")
        }
    }
}
