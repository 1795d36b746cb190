import Crypto
import Foundation

/// Development keys: the keys `patchctl dev` signs with for the live QA loop. They are marked as
/// such in two places, so one slip can't carry them into production:
/// - their key files have their own types (`…-development-private-key`, `…-development-public-key`),
///   which the release readers (`SigningKey(fileData:)`, `TrustedKey(fileData:)`) refuse;
/// - their ids start with `dev-`, and the id is part of every signed manifest, so a production
///   verifier recognises a development-signed patch even if someone embedded the public key by hand.
/// Production readers (`PatchVerifier` on a release path) refuse every
/// patch or revocation list signed by one (`PatchRefusal.developmentKey`); a `DevelopmentSession`
/// refuses to start without one and accepts only patches signed by one.
public enum DevelopmentKey {
    /// The prefix of every development key id (and of no release key id).
    public static let idPrefix = "dev-"
    public static let privateFileType = "patchengine-ed25519-development-private-key"
    public static let publicFileType = "patchengine-ed25519-development-public-key"

    /// Whether `keyID` names a development key.
    public static func isDevelopmentKeyID(_ keyID: String) -> Bool { keyID.hasPrefix(idPrefix) }

    /// A new random development key (its id: `dev-` and 16 hex digits of the public key's SHA-256).
    public static func generate() -> SigningKey {
        let key = Curve25519.Signing.PrivateKey()
        return SigningKey(id: idPrefix + String(key.publicKey.rawRepresentation.sha256Hex.prefix(16)), privateKey: key)
    }

    /// Reads a development private key file.
    public static func signingKey(fileData: Data) throws -> SigningKey {
        let fields = try KeyFile.read(fileData, type: privateFileType, keyField: "privateKey")
        guard isDevelopmentKeyID(fields.id) else { throw KeyFileError("development key id '\(fields.id)' does not start with '\(idPrefix)'") }
        guard let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: fields.key) else {
            throw KeyFileError("development key file holds no valid Ed25519 private key")
        }
        return SigningKey(id: fields.id, privateKey: key)
    }

    /// Reads a development public key file, for the trust store of a development build.
    public static func trustedKey(fileData: Data) throws -> TrustedKey {
        let fields = try KeyFile.read(fileData, type: publicFileType, keyField: "publicKey")
        guard isDevelopmentKeyID(fields.id) else { throw KeyFileError("development key id '\(fields.id)' does not start with '\(idPrefix)'") }
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: fields.key) else {
            throw KeyFileError("development key file holds no valid Ed25519 public key")
        }
        return TrustedKey(id: fields.id, publicKey: key)
    }

    /// The private key file of a development key.
    public static func privateFileData(_ key: SigningKey) -> Data {
        KeyFile.write(type: privateFileType, id: key.id, keyField: "privateKey", key: key.privateKey.rawRepresentation)
    }

    /// The public key file of a development key.
    public static func publicFileData(_ key: SigningKey) -> Data {
        KeyFile.write(type: publicFileType, id: key.id, keyField: "publicKey", key: key.privateKey.publicKey.rawRepresentation)
    }
}

extension TrustedKey {
    /// Whether this is a development key (its id says so; see `DevelopmentKey`).
    public var isDevelopment: Bool { DevelopmentKey.isDevelopmentKeyID(id) }
}

extension TrustStore {
    /// The development keys in this store, sorted by id.
    public var developmentKeyIDs: [String] { keyIDs.filter(DevelopmentKey.isDevelopmentKeyID) }
}
