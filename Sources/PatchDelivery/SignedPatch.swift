import Foundation

/// A patch file: the manifest, its Ed25519 signature, and the scripts.
///
/// File format (UTF-8 JSON; whitespace and member order don't matter, unknown members are refused):
///
///     {
///       "manifest": { …PatchManifest fields… },
///       "scripts": { "total.js": "defineClass('Cart', { … })", … },
///       "signature": "<base64 of the 64-byte Ed25519 signature of manifest.canonicalBytes>"
///     }
///
/// Only the manifest is signed; each script is bound to it by its SHA-256, so changing a script,
/// adding one or leaving one out is detected.
public struct SignedPatch: Equatable, Sendable {
    public var manifest: PatchManifest
    /// Ed25519 signature of `manifest.canonicalBytes`.
    public var signature: Data
    /// Script text by name.
    public var scripts: [String: String]

    public init(manifest: PatchManifest, signature: Data, scripts: [String: String]) {
        self.manifest = manifest
        self.signature = signature
        self.scripts = scripts
    }

    /// Parses a patch file. Throws `PatchRefusal.malformed` saying what is wrong; checks nothing
    /// about trust (see `PatchVerifier`).
    public init(fileData: Data) throws {
        let r = try JSONObjectReader(try JSONValue.parse(fileData, what: "patch file"), context: "patch file")
        try r.rejectUnknown(["manifest", "scripts", "signature"])
        let manifest = try PatchManifest(json: try r.value("manifest"))
        let signature = try r.base64("signature")
        var scripts: [String: String] = [:]
        for (name, value) in try r.object("scripts") {
            guard case .string(let text) = value else {
                throw PatchRefusal.malformed("script '\(LogSafe.escape(name))' must be a string, found \(value.typeName)")
            }
            scripts[name] = text
        }
        self.init(manifest: manifest, signature: signature, scripts: scripts)
    }

    /// The file's bytes: pretty-printed JSON with sorted keys (stable, diff-friendly).
    public func fileData() -> Data {
        let m = manifest
        let file = FileLayout(
            manifest: .init(
                type: PatchManifest.typeName, format: PatchManifest.currentFormat, patchID: m.patchID,
                version: m.version, appID: m.appID, appVersions: m.appVersions.description,
                created: Int(m.created.timeIntervalSince1970), expires: m.expires.map { Int($0.timeIntervalSince1970) },
                keyID: m.keyID, scripts: m.scripts.map { .init(name: $0.name, sha256: $0.sha256) }),
            scripts: scripts,
            signature: signature.base64EncodedString())
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Encoding plain strings and integers cannot fail.
        return try! encoder.encode(file) + Data("\n".utf8)
    }

    /// The scripts in evaluation order (the manifest's order), each with its text.
    /// Only meaningful after verification, which guarantees every listed script is present.
    public var orderedScripts: [(name: String, source: String)] {
        manifest.scripts.compactMap { s in scripts[s.name].map { (s.name, $0) } }
    }

    /// SHA-256 of the signed manifest bytes (hex): identifies exactly this signed content.
    public var digest: String { manifest.canonicalBytes.sha256Hex }

    private struct FileLayout: Encodable {
        struct Manifest: Encodable {
            var type: String
            var format: Int
            var patchID: String
            var version: Int
            var appID: String
            var appVersions: String
            var created: Int
            var expires: Int?
            var keyID: String
            var scripts: [Script]
        }
        struct Script: Encodable { var name: String; var sha256: String }
        var manifest: Manifest
        var scripts: [String: String]
        var signature: String
    }
}
