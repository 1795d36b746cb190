import Crypto
import _CryptoExtras
import Foundation

/// A private key that signs metadata, in one of the three schemes `PublicKey` verifies.
public struct SigningKey: Sendable {
    public enum Scheme: String, CaseIterable, Sendable {
        case ed25519
        case ecdsaP256 = "ecdsa-sha2-nistp256"
        case rsaPSS = "rsassa-pss-sha256"
    }

    // swift-crypto 3 does not mark its private keys Sendable on Linux; they are immutable values.
    private enum Backing: @unchecked Sendable {
        case ed25519(Curve25519.Signing.PrivateKey)
        case p256(P256.Signing.PrivateKey)
        case rsa(_RSA.Signing.PrivateKey)
    }

    private let backing: Backing
    /// The public half, as metadata lists it.
    public let publicKey: PublicKey
    /// The key id metadata uses for it (SHA-256 of the public key's canonical JSON).
    public let keyID: String

    private init(_ backing: Backing, development: Bool = false) {
        self.backing = backing
        var publicKey: PublicKey
        switch backing {
        case .ed25519(let k):
            publicKey = PublicKey(keytype: "ed25519", scheme: "ed25519", publicValue: Hex.encode(k.publicKey.rawRepresentation))
        case .p256(let k):
            publicKey = PublicKey(keytype: "ecdsa", scheme: "ecdsa-sha2-nistp256", publicValue: k.publicKey.pemRepresentation + "\n")
        case .rsa(let k):
            publicKey = PublicKey(keytype: "rsa", scheme: "rsassa-pss-sha256", publicValue: k.publicKey.pemRepresentation + "\n")
        }
        if development { publicKey.unrecognized[PublicKey.developmentMarker] = .bool(true) }
        self.publicKey = publicKey
        keyID = publicKey.keyID
    }

    /// The same private key with its public half marked as a development key
    /// (`PublicKey.isDevelopment`; the marker changes the key id). Production clients refuse
    /// metadata that trusts such a key.
    public var forDevelopment: SigningKey { SigningKey(backing, development: true) }

    /// Whether the public half is marked as a development key.
    public var isDevelopment: Bool { publicKey.isDevelopment }

    /// A new random key (RSA keys have 3072 bits).
    public static func generate(_ scheme: Scheme) throws -> SigningKey {
        switch scheme {
        case .ed25519: return SigningKey(.ed25519(Curve25519.Signing.PrivateKey()))
        case .ecdsaP256: return SigningKey(.p256(P256.Signing.PrivateKey()))
        case .rsaPSS: return SigningKey(.rsa(try _RSA.Signing.PrivateKey(keySize: .bits3072)))
        }
    }

    public var scheme: Scheme {
        switch backing {
        case .ed25519: return .ed25519
        case .p256: return .ecdsaP256
        case .rsa: return .rsaPSS
        }
    }

    /// The private key as text: 64 hex digits for ed25519, PKCS#8 PEM for the others.
    public var privateRepresentation: String {
        switch backing {
        case .ed25519(let k): return Hex.encode(k.rawRepresentation)
        case .p256(let k): return k.pemRepresentation
        case .rsa(let k): return k.pemRepresentation
        }
    }

    /// Reads `privateRepresentation` back.
    public init(scheme: Scheme, privateRepresentation text: String) throws {
        switch scheme {
        case .ed25519:
            guard let raw = Hex.decode(text.trimmingCharacters(in: .whitespacesAndNewlines)),
                  let k = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw) else {
                throw FormatError.unsupportedKey("unreadable ed25519 private key")
            }
            self.init(.ed25519(k))
        case .ecdsaP256:
            guard let k = try? P256.Signing.PrivateKey(pemRepresentation: text) else {
                throw FormatError.unsupportedKey("unreadable ecdsa-sha2-nistp256 private key")
            }
            self.init(.p256(k))
        case .rsaPSS:
            guard let k = try? _RSA.Signing.PrivateKey(pemRepresentation: text) else {
                throw FormatError.unsupportedKey("unreadable rsassa-pss-sha256 private key")
            }
            self.init(.rsa(k))
        }
    }

    /// The hex signature of `message`.
    public func sign(_ message: Data) throws -> String {
        switch backing {
        case .ed25519(let k): return Hex.encode(try k.signature(for: message))
        case .p256(let k): return Hex.encode(try k.signature(for: message).derRepresentation)
        case .rsa(let k): return Hex.encode(try k.signature(for: message, padding: .PSS).rawRepresentation)
        }
    }
}

extension SigningKey {
    /// The private key file's bytes: `{"keyid": …, "private": …, "scheme": …}` in canonical JSON
    /// (`KeyFile` writes them with mode 0600; the release service reads its online keys from them),
    /// with `"development": true` for a development key (`forDevelopment`; it is read back as one).
    public var keyFileData: Data {
        get throws {
            var members: [String: JSONValue] = [
                "scheme": .string(scheme.rawValue), "keyid": .string(keyID), "private": .string(privateRepresentation),
            ]
            if isDevelopment { members["development"] = .bool(true) }
            return try CanonicalJSON.encodeFile(.object(members))
        }
    }

    /// Reads a private key file (`keyFileData`); `what` names it in errors.
    public init(keyFile data: Data, what: String) throws {
        guard let object = try JSONValue.parse(data, what: what).objectValue,
              let schemeName = object["scheme"]?.stringValue, let scheme = Scheme(rawValue: schemeName),
              let text = object["private"]?.stringValue else {
            throw FormatError.malformed("\(what) is not a key file")
        }
        let key = try SigningKey(scheme: scheme, privateRepresentation: text)
        self = object["development"] == .bool(true) ? key.forDevelopment : key
        if let keyid = object["keyid"]?.stringValue, keyid != keyID {
            throw FormatError.malformed("\(what): key id \(keyid) is not the key's (\(keyID))")
        }
    }
}
