import Foundation

/// The signed state of one release channel (`staging`, `production`, …): which patch releases
/// exist, in publication order, and for each its rollout, targeting and whether it is enabled.
///
/// Everything that decides which devices run a release is inside the signature, so a mirror or
/// CDN can't widen a rollout, re-enable a disabled release or retarget one. A release refers to
/// its patch by id, version and digest (`SignedPatch.digest`): promoting a release to another
/// channel or changing its rollout re-signs this small document, never the scripts.
///
/// Signed bytes: the `CanonicalJSON` serialization of
///
///     {"appID":"com.example.shop","channel":"production","format":1,"issued":1763700000,
///      "keyID":"release-2026","releases":[{"digest":"…","file":"patches/shop-fixes-3.json",
///      "patchID":"shop-fixes","releaseID":"shop-fixes-3","rollout":1000,"state":"enabled",
///      "targeting":{"appVersions":">=1.4.0","models":["iPhone15,2"]},"version":3}],
///      "sequence":7,"type":"release-channel"}
///
/// `sequence` grows with every document signed for the channel: a device refuses a lower one
/// (a replayed older document can't bring back a wider rollout or a disabled release).
/// `rollout` is in hundredths of a percent (0–10000; 1000 = 10 %). `state` is `enabled` or
/// `disabled` (the strict reader has no booleans). An optional `expires` ends the document's
/// freshness. File: `{"channel": {…}, "signature": "<base64>"}`.
public struct ReleaseChannel: Equatable, Sendable {
    public static let typeName = "release-channel"
    public static let currentFormat = 1
    /// `rollout` of a release that reaches every device.
    public static let fullRollout = 10_000

    /// Which devices a release is for. Every present criterion must hold; absent means any.
    public struct Targeting: Equatable, Sendable {
        /// App versions (same syntax as a manifest's range).
        public var appVersions: AppVersionRange?
        /// OS versions, as semantic versions (`17.4` reads as `17.4.0`).
        public var osVersions: AppVersionRange?
        /// Device models, exactly as the app reports them (`iPhone15,2`); nil for any.
        public var models: [String]?
        /// App-supplied attributes: for each key, the values a device may have (`tier: [beta, staff]`).
        public var attributes: [String: [String]]?

        public init(appVersions: AppVersionRange? = nil, osVersions: AppVersionRange? = nil,
                    models: [String]? = nil, attributes: [String: [String]]? = nil) {
            self.appVersions = appVersions
            self.osVersions = osVersions
            self.models = models
            self.attributes = attributes
        }

        public var isEmpty: Bool { appVersions == nil && osVersions == nil && models == nil && attributes == nil }

        var canonical: CanonicalJSON {
            var members: [String: CanonicalJSON] = [:]
            if let appVersions { members["appVersions"] = .string(appVersions.description) }
            if let osVersions { members["osVersions"] = .string(osVersions.description) }
            if let models { members["models"] = .array(models.map { .string($0) }) }
            if let attributes { members["attributes"] = .object(attributes.mapValues { .array($0.map { .string($0) }) }) }
            return .object(members)
        }
    }

    /// One release: a signed patch, who gets it, and whether it is live.
    public struct Release: Equatable, Sendable {
        public enum State: String, Sendable { case enabled, disabled }

        /// Unique within the channel's history (and, by convention, across channels: promoting
        /// keeps the id, so a device's bucket for it stays the same).
        public var releaseID: String
        public var patchID: String
        public var version: Int
        /// `SignedPatch.digest` of the patch: only exactly that signed patch is applied.
        public var digest: String
        /// The patch file, relative to the delivery base URL.
        public var file: String
        /// Hundredths of a percent of devices (0–10000).
        public var rollout: Int
        public var state: State
        public var targeting: Targeting

        public init(releaseID: String, patchID: String, version: Int, digest: String, file: String,
                    rollout: Int = ReleaseChannel.fullRollout, state: State = .enabled, targeting: Targeting = Targeting()) {
            self.releaseID = releaseID
            self.patchID = patchID
            self.version = version
            self.digest = digest
            self.file = file
            self.rollout = rollout
            self.state = state
            self.targeting = targeting
        }

        var canonical: CanonicalJSON {
            var members: [String: CanonicalJSON] = [
                "releaseID": .string(releaseID), "patchID": .string(patchID), "version": .integer(version),
                "digest": .string(digest), "file": .string(file), "rollout": .integer(rollout),
                "state": .string(state.rawValue),
            ]
            if !targeting.isEmpty { members["targeting"] = targeting.canonical }
            return .object(members)
        }
    }

    public var appID: String
    public var channel: String
    public var sequence: Int
    public var issued: Date
    public var expires: Date?
    public var keyID: String
    /// In publication order: a later release of a patch id takes precedence over an earlier one.
    public var releases: [Release]

    public init(appID: String, channel: String, sequence: Int, issued: Date, expires: Date? = nil,
                keyID: String = "", releases: [Release] = []) {
        self.appID = appID
        self.channel = channel
        self.sequence = sequence
        self.issued = Date(timeIntervalSince1970: issued.timeIntervalSince1970.rounded(.down))
        self.expires = expires.map { Date(timeIntervalSince1970: $0.timeIntervalSince1970.rounded(.down)) }
        self.keyID = keyID
        self.releases = releases
    }

    public func release(_ id: String) -> Release? { releases.first { $0.releaseID == id } }

    public var canonical: CanonicalJSON {
        var members: [String: CanonicalJSON] = [
            "type": .string(Self.typeName), "format": .integer(Self.currentFormat),
            "appID": .string(appID), "channel": .string(channel), "sequence": .integer(sequence),
            "issued": .integer(Int(issued.timeIntervalSince1970)), "keyID": .string(keyID),
            "releases": .array(releases.map(\.canonical)),
        ]
        if let expires { members["expires"] = .integer(Int(expires.timeIntervalSince1970)) }
        return .object(members)
    }

    /// The bytes the signature covers.
    public var canonicalBytes: Data { canonical.bytes }

    /// Checks what a publisher could get wrong; throws `PatchRefusal.malformed` saying which.
    public func validate() throws {
        try PatchManifest.validateName(appID, field: "appID")
        try PatchManifest.validateIdentifier(channel, field: "channel")
        try PatchManifest.validateName(keyID, field: "keyID")
        guard sequence >= 1 else { throw PatchRefusal.malformed("release channel 'sequence' must be at least 1") }
        for (field, date) in [("issued", issued), ("expires", expires)] as [(String, Date?)] {
            if let date, !PatchManifest.timeRange.contains(date.timeIntervalSince1970) {
                throw PatchRefusal.malformed("release channel field '\(field)' is out of range")
            }
        }
        if let expires, expires <= issued { throw PatchRefusal.malformed("release channel expires before it was issued") }
        var ids = Set<String>()
        for r in releases {
            try PatchManifest.validateIdentifier(r.releaseID, field: "releaseID")
            try PatchManifest.validateIdentifier(r.patchID, field: "release patchID")
            guard ids.insert(r.releaseID).inserted else { throw PatchRefusal.malformed("release '\(r.releaseID)' is listed twice") }
            guard r.version >= 1 else { throw PatchRefusal.malformed("release '\(r.releaseID)' has version \(r.version)") }
            guard r.digest.count == 64, r.digest.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else {
                throw PatchRefusal.malformed("release '\(r.releaseID)' has a digest that is not 64 lowercase hex digits")
            }
            try Self.validateFile(r.file, release: r.releaseID)
            guard (0...Self.fullRollout).contains(r.rollout) else {
                throw PatchRefusal.malformed("release '\(r.releaseID)' rollout \(r.rollout) is outside 0–\(Self.fullRollout)")
            }
            for model in r.targeting.models ?? [] {
                try PatchManifest.validateName(model, field: "targeting model")
            }
            for (key, values) in r.targeting.attributes ?? [:] {
                try PatchManifest.validateIdentifier(key, field: "targeting attribute")
                for value in values { try PatchManifest.validateName(value, field: "targeting attribute '\(key)'") }
            }
        }
    }

    /// A relative path of plain segments: a signed document can't point a device outside the base URL.
    static func validateFile(_ file: String, release: String) throws {
        let segments = file.split(separator: "/", omittingEmptySubsequences: false)
        let ok = !file.isEmpty && file.count <= 512 && segments.allSatisfy { segment in
            !segment.isEmpty && segment != "." && segment != ".." &&
                segment.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0)) }
        }
        guard ok else { throw PatchRefusal.malformed("release '\(release)' file '\(LogSafe.escape(file))' must be a relative path of letters, digits, '.', '_', '-'") }
    }

    init(json: JSONValue) throws {
        let r = try JSONObjectReader(json, context: "release channel")
        try r.rejectUnknown(["type", "format", "appID", "channel", "sequence", "issued", "expires", "keyID", "releases"])
        guard try r.string("type") == Self.typeName else { throw PatchRefusal.malformed("release channel type must be '\(Self.typeName)'") }
        let format = try r.integer("format")
        guard format == Self.currentFormat else { throw PatchRefusal.malformed("release channel format \(format) is not supported") }
        var releases: [Release] = []
        for (index, item) in try r.array("releases").enumerated() {
            let e = try JSONObjectReader(item, context: "release #\(index + 1)")
            try e.rejectUnknown(["releaseID", "patchID", "version", "digest", "file", "rollout", "state", "targeting"])
            guard let state = Release.State(rawValue: try e.string("state")) else {
                throw PatchRefusal.malformed("release #\(index + 1) state must be 'enabled' or 'disabled'")
            }
            releases.append(Release(
                releaseID: try e.string("releaseID"), patchID: try e.string("patchID"), version: try e.integer("version"),
                digest: try e.string("digest"), file: try e.string("file"), rollout: try e.integer("rollout"), state: state,
                targeting: e.has("targeting") ? try Self.targeting(try e.value("targeting"), context: "release #\(index + 1) targeting") : Targeting()))
        }
        let issued = try r.integer("issued")
        self.init(appID: try r.string("appID"), channel: try r.string("channel"), sequence: try r.integer("sequence"),
                  issued: Date(timeIntervalSince1970: TimeInterval(issued)),
                  expires: r.has("expires") ? Date(timeIntervalSince1970: TimeInterval(try r.integer("expires"))) : nil,
                  keyID: try r.string("keyID"), releases: releases)
        try validate()
    }

    private static func targeting(_ json: JSONValue, context: String) throws -> Targeting {
        let t = try JSONObjectReader(json, context: context)
        try t.rejectUnknown(["appVersions", "osVersions", "models", "attributes"])
        func range(_ key: String) throws -> AppVersionRange? {
            guard t.has(key) else { return nil }
            let text = try t.string(key)
            let range: AppVersionRange
            do { range = try AppVersionRange(parsing: text) } catch { throw PatchRefusal.malformed("\(context) '\(key)': \(error)") }
            // Signed as written: a spelling that doesn't survive normalization would not re-derive the signed bytes.
            guard range.description == text else { throw PatchRefusal.malformed("\(context) '\(key)' is not in normalized form ('\(range.description)')") }
            return range
        }
        func strings(_ value: JSONValue, _ what: String) throws -> [String] {
            guard case .array(let items) = value else { throw PatchRefusal.malformed("\(context) '\(what)' must be an array") }
            return try items.map {
                guard case .string(let s) = $0 else { throw PatchRefusal.malformed("\(context) '\(what)' must hold strings") }
                return s
            }
        }
        var attributes: [String: [String]]?
        if t.has("attributes") {
            attributes = try t.object("attributes").mapValues { try strings($0, "attributes") }
        }
        let targeting = Targeting(appVersions: try range("appVersions"), osVersions: try range("osVersions"),
                                  models: t.has("models") ? try strings(try t.value("models"), "models") : nil,
                                  attributes: attributes)
        // An empty targeting object would be dropped by the canonical writer: refuse it so bytes re-derive.
        guard !targeting.isEmpty else { throw PatchRefusal.malformed("\(context) is empty (leave it out instead)") }
        return targeting
    }
}

/// A release channel document with its signature, as stored in a file.
public struct SignedReleaseChannel: Equatable, Sendable {
    public var channel: ReleaseChannel
    public var signature: Data

    public init(channel: ReleaseChannel, signature: Data) {
        self.channel = channel
        self.signature = signature
    }

    /// Parses a channel file; throws `PatchRefusal.malformed` saying what is wrong (checks no trust).
    public init(fileData: Data) throws {
        let r = try JSONObjectReader(try JSONValue.parse(fileData, what: "release channel file"), context: "release channel file")
        try r.rejectUnknown(["channel", "signature"])
        let signature = try r.base64("signature")
        self.init(channel: try ReleaseChannel(json: try r.value("channel")), signature: signature)
    }

    /// `{"channel":<canonical document>,"signature":"…"}` on one line.
    public func fileData() -> Data {
        var out = Data("{\"channel\":".utf8)
        out += channel.canonicalBytes
        out += Data(",\"signature\":".utf8)
        out += CanonicalJSON.string(signature.base64EncodedString()).bytes
        out += Data("}\n".utf8)
        return out
    }

    /// SHA-256 of the signed bytes: identifies exactly this document.
    public var digest: String { channel.canonicalBytes.sha256Hex }
}

extension PatchSigner {
    /// Signs a release channel document; its `keyID` is set to this signer's key.
    public func sign(_ channel: ReleaseChannel) throws -> SignedReleaseChannel {
        var channel = channel
        channel.keyID = key.id
        try channel.validate()
        return SignedReleaseChannel(channel: channel, signature: try key.privateKey.signature(for: channel.canonicalBytes))
    }
}

extension PatchVerifier {
    /// Parses a release channel file and checks its key and signature (freshness and sequence
    /// are the release service's to check).
    public func verify(releaseChannelFile data: Data) throws -> SignedReleaseChannel {
        let signed = try SignedReleaseChannel(fileData: data)
        try trustStore.verify(signature: signed.signature, of: signed.channel.canonicalBytes, keyID: signed.channel.keyID)
        return signed
    }
}

extension ReleaseChannel.Release {
    /// Throws unless `file` is a path a release may name (relative, plain segments): what a
    /// server or a static tree may write to.
    public static func checkFile(_ file: String) throws {
        try ReleaseChannel.validateFile(file, release: "-")
    }
}
