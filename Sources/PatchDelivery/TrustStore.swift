import Crypto
import Foundation

/// A public key an app trusts, with its id. A retired key verifies nothing any more: patches and
/// revocation lists it signed are refused (`PatchRefusal.retiredKey`), whatever their dates say,
/// because a signer holding a compromised key could backdate them.
///
/// Public key file (JSON):
///
///     {"keyID":"release-2026","publicKey":"<base64 of the 32-byte raw key>","type":"patchengine-ed25519-public-key"}
public struct TrustedKey {
    public static let fileType = "patchengine-ed25519-public-key"

    public let id: String
    public let publicKey: Curve25519.Signing.PublicKey
    public var isRetired: Bool

    public init(id: String, publicKey: Curve25519.Signing.PublicKey, isRetired: Bool = false) {
        self.id = id
        self.publicKey = publicKey
        self.isRetired = isRetired
    }

    /// A key from its base64 raw representation, as an app would embed it in code.
    public init(id: String, base64 publicKey: String, isRetired: Bool = false) throws {
        guard let raw = Data(base64Encoded: publicKey), let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw) else {
            throw KeyFileError("public key '\(id)' is not a base64 Ed25519 public key")
        }
        self.init(id: id, publicKey: key, isRetired: isRetired)
    }

    /// Reads a public key file.
    public init(fileData: Data, isRetired: Bool = false) throws {
        let fields = try KeyFile.read(fileData, type: Self.fileType, keyField: "publicKey")
        guard !DevelopmentKey.isDevelopmentKeyID(fields.id) else {
            throw KeyFileError("release key id '\(fields.id)' starts with '\(DevelopmentKey.idPrefix)', which marks development keys")
        }
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: fields.key) else {
            throw KeyFileError("public key file holds no valid Ed25519 public key")
        }
        self.init(id: fields.id, publicKey: key, isRetired: isRetired)
    }

    public func fileData() -> Data {
        KeyFile.write(type: Self.fileType, id: id, keyField: "publicKey", key: publicKey.rawRepresentation)
    }

    /// The raw public key in base64, for embedding in an app.
    public var base64: String { publicKey.rawRepresentation.base64EncodedString() }
}

/// The keys an app trusts, by id. Several keys allow rotation: sign with the new key, ship it
/// in the trust store, later retire the old one.
public struct TrustStore {
    private var keys: [String: TrustedKey] = [:]

    public init(keys: [TrustedKey] = []) {
        for key in keys { self.keys[key.id] = key }
    }

    /// Reads public key files.
    public init(publicKeyFiles: [URL]) throws {
        self.init(keys: try publicKeyFiles.map { try TrustedKey(fileData: try Data(contentsOf: $0)) })
    }

    /// Adds or replaces a key.
    public mutating func add(_ key: TrustedKey) { keys[key.id] = key }

    /// Marks a key retired: it keeps its id (so refusals say "retired", not "unknown") but verifies nothing.
    public mutating func retire(_ id: String) { keys[id]?.isRetired = true }

    /// All key ids, sorted.
    public var keyIDs: [String] { keys.keys.sorted() }

    /// Whether `id` names a key that verifies signatures (present and not retired).
    public func isTrusted(_ id: String) -> Bool { keys[id].map { !$0.isRetired } ?? false }

    /// The usable key for `id`; throws `unknownKey` or `retiredKey`.
    public func key(for id: String) throws -> Curve25519.Signing.PublicKey {
        guard let key = keys[id] else { throw PatchRefusal.unknownKey(keyID: id) }
        guard !key.isRetired else { throw PatchRefusal.retiredKey(keyID: id) }
        return key.publicKey
    }

    /// Checks `signature` over `bytes` with the key `keyID`.
    public func verify(signature: Data, of bytes: Data, keyID: String) throws {
        let key = try key(for: keyID)
        guard key.isValidSignature(signature, for: bytes) else { throw PatchRefusal.badSignature(keyID: keyID) }
    }
}
