import Crypto
import Foundation
import PatchDelivery

/// Publisher requests to the release service are signed with the publisher's own Ed25519 key
/// (not the release key: that one signs patches and channel documents and never leaves the
/// publisher). The signed text binds the method, the path, a timestamp, a one-time nonce and
/// the body's SHA-256:
///
///     patchserver-request-v1\n<METHOD>\n<path>\n<unix seconds>\n<nonce>\n<sha256 hex of body>
///
/// Headers: `X-Publisher-Key` (key id), `X-Publisher-Timestamp`, `X-Publisher-Nonce`
/// (16–64 characters of letters, digits, `-`, `_`), `X-Publisher-Signature` (base64).
/// The service refuses a timestamp more than `maxSkew` away from its clock and a nonce it has
/// seen (nonces are kept in the shared storage, so a replay to another instance fails too).
public enum PublisherSignature {
    public static let keyHeader = "X-Publisher-Key"
    public static let timestampHeader = "X-Publisher-Timestamp"
    public static let nonceHeader = "X-Publisher-Nonce"
    public static let signatureHeader = "X-Publisher-Signature"
    /// How far a request's timestamp may be from the service's clock, seconds.
    public static let maxSkew: TimeInterval = 300

    static func signedText(method: String, path: String, timestamp: Int, nonce: String, body: Data) -> Data {
        let digest = SHA256.hash(data: body).map { String(format: "%02x", $0) }.joined()
        return Data("patchserver-request-v1\n\(method.uppercased())\n\(path)\n\(timestamp)\n\(nonce)\n\(digest)".utf8)
    }

    /// The headers that authenticate one request.
    public static func headers(method: String, path: String, body: Data, key: SigningKey, now: Date = Date(),
                               nonce: String = UUID().uuidString) throws -> [String: String] {
        let timestamp = Int(now.timeIntervalSince1970)
        let signature = try key.privateKey.signature(for: signedText(method: method, path: path, timestamp: timestamp, nonce: nonce, body: body))
        return [keyHeader: key.id, timestampHeader: String(timestamp), nonceHeader: nonce, signatureHeader: signature.base64EncodedString()]
    }

    /// A verified request's identity: who, and the nonce the caller must record as used.
    public struct Verified: Equatable, Sendable {
        public var keyID: String
        public var nonce: String
        public var timestamp: Int
    }

    /// Checks, in this order: every header present and well-formed; the key is a known, not
    /// retired publisher key; the timestamp is within `maxSkew`; the signature matches.
    /// (Whether the nonce is fresh is the storage's answer: `ReleaseStore.useNonce`.)
    public static func verify(method: String, path: String, body: Data, header: (String) -> String?,
                              publishers: TrustStore, now: Date) throws -> Verified {
        guard let keyID = header(keyHeader), let stamp = header(timestampHeader), let nonce = header(nonceHeader),
              let signatureText = header(signatureHeader) else {
            throw PublisherRefusal.missingHeaders
        }
        guard let timestamp = Int(stamp), String(timestamp) == stamp else { throw PublisherRefusal.malformed("timestamp") }
        guard (16...64).contains(nonce.count),
              nonce.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_".unicodeScalars.contains($0)) }) else {
            throw PublisherRefusal.malformed("nonce")
        }
        guard let signature = Data(base64Encoded: signatureText), signature.count == 64 else { throw PublisherRefusal.malformed("signature") }
        guard publishers.isTrusted(keyID) else { throw PublisherRefusal.unknownPublisher(LogSafe(keyID)) }
        guard abs(now.timeIntervalSince1970 - TimeInterval(timestamp)) <= maxSkew else { throw PublisherRefusal.staleTimestamp }
        let key = try publishers.key(for: keyID)
        guard key.isValidSignature(signature, for: signedText(method: method, path: path, timestamp: timestamp, nonce: nonce, body: body)) else {
            throw PublisherRefusal.badSignature
        }
        return Verified(keyID: keyID, nonce: nonce, timestamp: timestamp)
    }

    /// Escapes text from a request before it reaches a message.
    private static func LogSafe(_ text: String) -> String {
        String(text.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?" }.prefix(64))
    }
}

/// Why a publisher request was refused (the service answers 401, or 409 for a replay).
public enum PublisherRefusal: Error, Equatable, CustomStringConvertible, Sendable {
    case missingHeaders
    case malformed(String)
    case unknownPublisher(String)
    case staleTimestamp
    case badSignature
    case replayed

    public var description: String {
        switch self {
        case .missingHeaders: return "publisher request is not signed (X-Publisher-* headers missing)"
        case .malformed(let what): return "publisher request has a malformed \(what)"
        case .unknownPublisher(let id): return "publisher key '\(id)' is not trusted"
        case .staleTimestamp: return "publisher request timestamp is more than \(Int(PublisherSignature.maxSkew)) s from the server's clock"
        case .badSignature: return "publisher request signature does not match"
        case .replayed: return "publisher request nonce was already used (replay)"
        }
    }
}
