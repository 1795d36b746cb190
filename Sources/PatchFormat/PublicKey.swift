import Crypto
import _CryptoExtras
import Foundation

/// A public key as root and delegating targets metadata list it (spec §4.2: `keytype`, `scheme`,
/// `keyval`), with the three schemes the specification names:
///
/// | keytype | scheme | `keyval.public` | signature |
/// | --- | --- | --- | --- |
/// | `ed25519` | `ed25519` | 64 hex digits (the raw key) | 128 hex digits |
/// | `ecdsa` or `ecdsa-sha2-nistp256` | `ecdsa-sha2-nistp256` | PEM (SubjectPublicKeyInfo) or hex X9.63 | hex DER, over SHA-256 |
/// | `rsa` | `rsassa-pss-sha256` | PEM (SubjectPublicKeyInfo), 2048 bits or more | hex, PSS with MGF1-SHA-256, salt as long as the digest |
///
/// A key of another type still parses (so metadata listing it stays readable), but no signature
/// by it ever counts towards a threshold.
public struct PublicKey: Equatable, Sendable {
    public var keytype: String
    public var scheme: String
    public var keyval: [String: JSONValue]
    /// Members the specification doesn't define; kept, since the key id covers them.
    public var unrecognized: [String: JSONValue]

    public init(keytype: String, scheme: String, publicValue: String, unrecognized: [String: JSONValue] = [:]) {
        self.keytype = keytype
        self.scheme = scheme
        self.keyval = ["public": .string(publicValue)]
        self.unrecognized = unrecognized
    }

    init(json: JSONValue, context: String) throws {
        var fields = try JSONFields(json, context: context)
        keytype = try fields.string("keytype")
        scheme = try fields.string("scheme")
        keyval = try fields.object("keyval")
        unrecognized = fields.remaining
    }

    public var json: JSONValue {
        .object(unrecognized.merging([
            "keytype": .string(keytype), "scheme": .string(scheme), "keyval": .object(keyval),
        ]))
    }

    /// The member that marks a development key (the live QA loop's, never a release key's):
    /// `"x-patchengine-development": true`. The key id covers it, so it can't be stripped without
    /// making another key.
    public static let developmentMarker = "x-patchengine-development"

    /// Whether this key is marked as a development key (`developmentMarker`).
    public var isDevelopment: Bool { unrecognized[Self.developmentMarker] == .bool(true) }

    /// The key id the specification defines: SHA-256 of the key's canonical JSON, in hex.
    public var keyID: String {
        let bytes = (try? CanonicalJSON.encode(json)) ?? Data()
        return Hex.encode(Data(SHA256.hash(data: bytes)))
    }

    /// The `keyval.public` string, if there is one.
    public var publicValue: String? { keyval["public"]?.stringValue }

    /// The key itself, whatever way metadata writes it: the scheme and the key's raw bytes
    /// (ed25519: the 32-byte key; P-256: X9.63, from PEM or hex, under either ECDSA key type;
    /// RSA: DER). Nil for a key no signature of can be checked. Two entries with equal material
    /// are one key: a threshold counts it once.
    public var material: Data? {
        guard let value = publicValue else { return nil }
        let raw: Data?
        switch (keytype, scheme) {
        case ("ed25519", "ed25519"):
            raw = Hex.decode(value).flatMap { try? Curve25519.Signing.PublicKey(rawRepresentation: $0) }?.rawRepresentation
        case ("ecdsa", "ecdsa-sha2-nistp256"), ("ecdsa-sha2-nistp256", "ecdsa-sha2-nistp256"):
            let key = value.hasPrefix("-----BEGIN") ? try? P256.Signing.PublicKey(pemRepresentation: value)
                : Hex.decode(value).flatMap { try? P256.Signing.PublicKey(x963Representation: $0) }
            raw = key?.x963Representation
        case ("rsa", "rsassa-pss-sha256"):
            raw = (try? _RSA.Signing.PublicKey(pemRepresentation: value))?.derRepresentation
        default:
            raw = nil
        }
        guard let raw else { return nil }
        return Data(scheme.utf8) + Data([0]) + raw
    }

    /// Whether `signatureHex` is a valid signature of `message` by this key. False for keys of an
    /// unsupported type, unreadable keys and malformed signatures alike.
    public func verify(signatureHex: String, message: Data) -> Bool {
        guard let verifier = try? verifier(), let signature = Hex.decode(signatureHex) else { return false }
        return verifier(signature, message)
    }

    /// Throws `FormatError.unsupportedKey` for a key no signature of can be checked.
    public func checkSupported() throws {
        _ = try verifier()
    }

    private func verifier() throws -> (Data, Data) -> Bool {
        guard let value = publicValue else { throw FormatError.unsupportedKey("key has no keyval.public string") }
        switch (keytype, scheme) {
        case ("ed25519", "ed25519"):
            guard let raw = Hex.decode(value), let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw) else {
                throw FormatError.unsupportedKey("unreadable ed25519 public key")
            }
            return { signature, message in key.isValidSignature(signature, for: message) }
        case ("ecdsa", "ecdsa-sha2-nistp256"), ("ecdsa-sha2-nistp256", "ecdsa-sha2-nistp256"):
            let key: P256.Signing.PublicKey
            if value.hasPrefix("-----BEGIN") {
                guard let k = try? P256.Signing.PublicKey(pemRepresentation: value) else {
                    throw FormatError.unsupportedKey("unreadable ecdsa-sha2-nistp256 public key")
                }
                key = k
            } else {
                guard let raw = Hex.decode(value), let k = try? P256.Signing.PublicKey(x963Representation: raw) else {
                    throw FormatError.unsupportedKey("unreadable ecdsa-sha2-nistp256 public key")
                }
                key = k
            }
            return { signature, message in
                guard let sig = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
                return key.isValidSignature(sig, for: message)
            }
        case ("rsa", "rsassa-pss-sha256"):
            guard let key = try? _RSA.Signing.PublicKey(pemRepresentation: value) else {
                throw FormatError.unsupportedKey("unreadable rsassa-pss-sha256 public key (PEM, 2048 bits or more)")
            }
            return { signature, message in
                key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: message, padding: .PSS)
            }
        default:
            throw FormatError.unsupportedKey("unsupported key type \(keytype) with scheme \(scheme)")
        }
    }
}

/// Lowercase hexadecimal, as TUF writes signatures, hashes and raw keys.
public enum Hex {
    public static func encode(_ data: Data) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(data.count * 2)
        for byte in data {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of `text`, or nil when it is not an even number of hex digits (either case).
    public static func decode(_ text: String) -> Data? {
        let chars = Array(text.utf8)
        guard chars.count % 2 == 0 else { return nil }
        var out = Data(capacity: chars.count / 2)
        var i = 0
        while i < chars.count {
            guard let high = nibble(chars[i]), let low = nibble(chars[i + 1]) else { return nil }
            out.append(high << 4 | low)
            i += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
