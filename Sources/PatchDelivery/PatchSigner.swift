import Foundation

/// Signs patches and revocation lists with a private key (what `patchctl sign` and `revoke` use).
public struct PatchSigner {
    public let key: SigningKey

    public init(key: SigningKey) { self.key = key }

    /// Builds the manifest for `scripts` (in evaluation order), checks it and signs it.
    /// Throws `PatchRefusal.malformed` when a value is invalid (bad id, version < 1, duplicate script…).
    public func sign(patchID: String, version: Int, appID: String, appVersions: AppVersionRange = .any,
                     created: Date = Date(), expires: Date? = nil,
                     scripts: [(name: String, source: String)]) throws -> SignedPatch {
        let manifest = PatchManifest(
            patchID: patchID, version: version, appID: appID, appVersions: appVersions,
            created: created, expires: expires, keyID: key.id,
            scripts: scripts.map { PatchManifest.Script(name: $0.name, sha256: $0.source.sha256Hex) })
        try manifest.validate()
        var texts: [String: String] = [:]
        for script in scripts { texts[script.name] = script.source }
        return SignedPatch(manifest: manifest, signature: try signature(of: manifest.canonicalBytes), scripts: texts)
    }

    /// Signs a revocation list; its `keyID` is set to this signer's key.
    public func sign(_ list: RevocationList) throws -> SignedRevocationList {
        var list = list
        list.keyID = key.id
        return SignedRevocationList(list: list, signature: try signature(of: list.canonicalBytes))
    }

    private func signature(of bytes: Data) throws -> Data {
        try key.privateKey.signature(for: bytes)
    }
}
