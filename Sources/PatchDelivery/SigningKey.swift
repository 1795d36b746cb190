import Crypto
import Foundation

/// A private Ed25519 key with its id: what `patchctl keygen` writes and `patchctl sign` reads.
///
/// Key file (JSON, keep it secret, mode 0600):
///
///     {"keyID":"release-2026","privateKey":"<base64 of the 32-byte raw key>","type":"patchengine-ed25519-private-key"}
public struct SigningKey {
    public static let fileType = "patchengine-ed25519-private-key"

    /// The id written into every manifest this key signs; apps look the public key up by it.
    public let id: String
    public let privateKey: Curve25519.Signing.PrivateKey

    public init(id: String, privateKey: Curve25519.Signing.PrivateKey) {
        self.id = id
        self.privateKey = privateKey
    }

    /// A new random key. Without an id, the id is derived from the public key
    /// (`ed25519-` and the first 16 hex digits of its SHA-256).
    public static func generate(id: String? = nil) -> SigningKey {
        let key = Curve25519.Signing.PrivateKey()
        return SigningKey(id: id ?? "ed25519-" + String(key.publicKey.rawRepresentation.sha256Hex.prefix(16)), privateKey: key)
    }

    /// The public half, as an app would trust it.
    public var trustedKey: TrustedKey { TrustedKey(id: id, publicKey: privateKey.publicKey) }

    /// Reads a private key file.
    public init(fileData: Data) throws {
        let fields = try KeyFile.read(fileData, type: Self.fileType, keyField: "privateKey")
        guard !DevelopmentKey.isDevelopmentKeyID(fields.id) else {
            throw KeyFileError("release key id '\(fields.id)' starts with '\(DevelopmentKey.idPrefix)', which marks development keys")
        }
        do {
            self.init(id: fields.id, privateKey: try Curve25519.Signing.PrivateKey(rawRepresentation: fields.key))
        } catch {
            throw KeyFileError("private key file holds no valid Ed25519 private key")
        }
    }

    public func fileData() -> Data {
        KeyFile.write(type: Self.fileType, id: id, keyField: "privateKey", key: privateKey.rawRepresentation)
    }
}

/// A key file that can't be read, with the reason.
public struct KeyFileError: Error, CustomStringConvertible, Equatable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The JSON layout shared by private and public key files.
enum KeyFile {
    static func read(_ data: Data, type: String, keyField: String) throws -> (id: String, key: Data) {
        let r: JSONObjectReader
        do {
            r = try JSONObjectReader(try JSONValue.parse(data, what: "key file"), context: "key file")
            guard (try? r.string("type")) == type else {
                throw KeyFileError("not a \(type) file (its 'type' is \((try? r.string("type")).map { "'\($0)'" } ?? "missing"))")
            }
            try r.rejectUnknown(["type", "keyID", keyField])
        } catch let refusal as PatchRefusal {
            throw KeyFileError(refusal.description.replacingOccurrences(of: "malformed patch: ", with: ""))
        }
        guard let id = try? r.string("keyID"), !id.isEmpty else { throw KeyFileError("key file has no 'keyID'") }
        guard let text = try? r.string(keyField), let key = Data(base64Encoded: text) else {
            throw KeyFileError("key file field '\(keyField)' is missing or not base64")
        }
        return (id, key)
    }

    static func write(type: String, id: String, keyField: String, key: Data) -> Data {
        CanonicalJSON.object(["type": .string(type), "keyID": .string(id), keyField: .string(key.base64EncodedString())]).bytes + Data("\n".utf8)
    }
}
