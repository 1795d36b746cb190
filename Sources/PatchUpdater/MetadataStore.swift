import Foundation

/// The trusted metadata on disk: one file per role, `<role>.json` with the role name
/// percent-encoded (delegated role names are chosen by whoever holds a delegating key: `../x`
/// or `/x` must never name a path outside this folder). Every write replaces the whole file
/// atomically.
public struct MetadataStore: Sendable {
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    /// The file for `role`.
    public func url(for role: String) -> URL {
        directory.appendingPathComponent(RoleName.encoded(role) + ".json")
    }

    /// The stored bytes for `role`, or nil when there are none or they are longer than
    /// `maxLength` (a file that large was never accepted).
    public func read(_ role: String, maxLength: Int64) -> Data? {
        BoundedRead.contents(of: url(for: role), maxLength: maxLength)
    }

    public func write(_ role: String, _ data: Data) throws {
        do { try AtomicFile.write(data, to: url(for: role)) } catch {
            throw UpdaterError.storage("\(error)")
        }
    }
}

/// Role names and target paths in URLs and file names.
public enum RoleName {
    /// Percent-encodes everything but ASCII letters, digits and `-._~` (the unreserved set), as
    /// python-tuf's `quote(name, "")` does: the result is one URL path segment and one file name.
    public static func encoded(_ name: String) -> String {
        percentEncoded(name, keepSlash: false)
    }

    static func percentEncoded(_ text: String, keepSlash: Bool) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "/") where keepSlash:
                out.append("/")
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }
}

/// Reads a file without trusting its size.
enum BoundedRead {
    static func contents(of url: URL, maxLength: Int64) -> Data? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: Int(maxLength) + 1), Int64(data.count) <= maxLength else { return nil }
        return data
    }
}
