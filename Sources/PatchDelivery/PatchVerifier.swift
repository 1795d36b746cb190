import Foundation

/// Decides whether a patch file may be evaluated. Checks, in this order, and throws the first
/// failure as a `PatchRefusal`: the file parses; the signing key is of the kind this verifier takes
/// (a release verifier refuses development keys, a development one takes nothing else); the signing
/// key is known and not retired; the signature matches the canonical manifest bytes; every script matches its SHA-256 and nothing
/// unsigned is carried; the app id and app version fit; the patch hasn't expired.
/// (Revocation and replay depend on state kept elsewhere: the release service checks them.)
public struct PatchVerifier {
    /// The app a patch must fit; nil skips the app checks (as `patchctl verify` does).
    public struct Target: Sendable {
        public var appID: String
        public var appVersion: SemanticVersion
        public init(appID: String, appVersion: SemanticVersion) {
            self.appID = appID
            self.appVersion = appVersion
        }
    }

    /// Which signing keys a verifier takes (see `DevelopmentKey`).
    public enum KeyKind: Sendable {
        /// Release keys only: what every production path uses.
        case release
        /// Development keys only: a `DevelopmentSession`.
        case development
    }

    public var trustStore: TrustStore
    public var target: Target?
    /// The clock expiry is checked against.
    public var now: () -> Date
    /// Release by default: a development-signed patch or list is refused.
    public var keyKind: KeyKind

    public init(trustStore: TrustStore, target: Target? = nil, keyKind: KeyKind = .release, now: @escaping () -> Date = { Date() }) {
        self.trustStore = trustStore
        self.target = target
        self.keyKind = keyKind
        self.now = now
    }

    /// Refuses a key of the other kind. Checked before the key is looked up, so a production
    /// device names the reason ("development key") even when it doesn't hold that key.
    private func checkKind(of keyID: String) throws {
        switch (keyKind, DevelopmentKey.isDevelopmentKeyID(keyID)) {
        case (.release, true): throw PatchRefusal.developmentKey(keyID: keyID)
        case (.development, false): throw PatchRefusal.releaseKeyInDevelopment(keyID: keyID)
        default: break
        }
    }

    /// Parses and verifies a patch file; returns the patch only when every check passes.
    public func verify(patchFile data: Data) throws -> SignedPatch {
        let patch = try SignedPatch(fileData: data)
        try verify(patch)
        return patch
    }

    /// Parses and verifies a patch file that must carry `patchID` (the id the app bound the file
    /// to): a validly signed patch with another id is refused as mix-and-match.
    public func verify(patchFile data: Data, patchID: String) throws -> SignedPatch {
        let patch = try verify(patchFile: data)
        guard patch.manifest.patchID == patchID else {
            throw PatchRefusal.unexpectedPatchID(expected: patchID, found: patch.manifest.patchID)
        }
        return patch
    }

    /// Verifies an already parsed patch.
    public func verify(_ patch: SignedPatch) throws {
        let m = patch.manifest
        try checkKind(of: m.keyID)
        try trustStore.verify(signature: patch.signature, of: m.canonicalBytes, keyID: m.keyID)
        for script in m.scripts {
            guard let text = patch.scripts[script.name] else {
                throw PatchRefusal.scriptHashMismatch(script: script.name, expected: script.sha256, actual: nil)
            }
            let actual = text.sha256Hex
            guard actual == script.sha256 else {
                throw PatchRefusal.scriptHashMismatch(script: script.name, expected: script.sha256, actual: actual)
            }
        }
        let listed = Set(m.scripts.map(\.name))
        if let extra = patch.scripts.keys.sorted().first(where: { !listed.contains($0) }) {
            throw PatchRefusal.unsignedScript(extra)
        }
        if let target {
            guard m.appID == "*" || m.appID == target.appID else {
                throw PatchRefusal.wrongApp(expected: target.appID, patchAppID: m.appID)
            }
            guard m.appVersions.contains(target.appVersion) else {
                throw PatchRefusal.appVersionOutOfRange(appVersion: target.appVersion.description, range: m.appVersions.description)
            }
        }
        if let expires = m.expires, now() >= expires {
            throw PatchRefusal.expired(patchID: m.patchID, at: expires)
        }
    }

    /// Parses and verifies a revocation list file (format, key, signature).
    public func verify(revocationListFile data: Data) throws -> SignedRevocationList {
        let signed = try SignedRevocationList(fileData: data)
        try checkKind(of: signed.list.keyID)
        try trustStore.verify(signature: signed.signature, of: signed.list.canonicalBytes, keyID: signed.list.keyID)
        return signed
    }
}
