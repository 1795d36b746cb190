import Crypto
import Foundation

/// Strong entity tags from the content (not the modification time, whose resolution is too coarse
/// to see a file rewritten twice in a few milliseconds), and `If-None-Match` matching.
enum EntityTag {
    /// `"…"`: the first 16 bytes of the SHA-256 of the content, in hex.
    static func make(from digest: SHA256.Digest) -> String {
        let hex: [Character] = Array("0123456789abcdef")
        var text = "\""
        for byte in digest.prefix(16) {
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0f)])
        }
        return text + "\""
    }

    /// RFC 9110 If-None-Match: `*`, or a list of entity tags compared weakly.
    static func matches(_ header: String, etag: String) -> Bool {
        let opaque = { (tag: Substring) -> Substring in tag.hasPrefix("W/") ? tag.dropFirst(2) : tag }
        return header.split(separator: ",").contains { raw in
            let trimmed = Substring(raw.trimmingCharacters(in: .whitespaces))
            return trimmed == "*" || opaque(trimmed) == opaque(Substring(etag))
        }
    }
}
