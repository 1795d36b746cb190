import Crypto
import Foundation

extension Data {
    /// SHA-256 of these bytes as 64 lowercase hex digits (the form manifests carry).
    var sha256Hex: String {
        SHA256.hash(data: self).map { String(format: "%02x", $0) }.joined()
    }
}

extension String {
    /// SHA-256 of the string's UTF-8 bytes as 64 lowercase hex digits.
    var sha256Hex: String { Data(utf8).sha256Hex }
}
