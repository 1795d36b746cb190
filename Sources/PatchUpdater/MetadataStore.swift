import Foundation
import PatchSupport

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

    /// The stored bytes for `role`, or nil when there are none, they are longer than
    /// `maxLength` (a file that large was never accepted) or the file is not a regular file.
    public func read(_ role: String, maxLength: Int64) -> Data? {
        (try? BoundedFile.contents(of: url(for: role), limit: maxLength)) ?? nil
    }

    public func write(_ role: String, _ data: Data) throws {
        do { try AtomicFile.write(data, to: url(for: role)) } catch {
            throw UpdaterError.storage("\(error)")
        }
    }

    /// The folder of every root version accepted after the one the app ships
    /// (`root-history/<version>.root.json`): the chain `RootAnchor` verifies at each launch.
    /// A folder, so no delegated role's file can take a name in it.
    public var rootHistoryDirectory: URL { directory.appendingPathComponent("root-history") }

    /// The stored root of `version` in the chain, if any.
    public func readRoot(version: Int64, maxLength: Int64) -> Data? {
        (try? BoundedFile.contents(of: rootHistoryDirectory.appendingPathComponent("\(version).root.json"), limit: maxLength)) ?? nil
    }

    /// Adds `data`, the root of `version`, to the chain.
    public func writeRoot(version: Int64, _ data: Data) throws {
        do {
            try FileManager.default.createDirectory(at: rootHistoryDirectory, withIntermediateDirectories: true)
            try AtomicFile.write(data, to: rootHistoryDirectory.appendingPathComponent("\(version).root.json"))
        } catch {
            throw UpdaterError.storage("\(error)")
        }
    }

    /// Deletes every file of the folder (and the root chain): the state of a root that is no
    /// longer trusted.
    public func removeAll() throws {
        let fm = FileManager.default
        guard let names = try? fm.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names {
            do { try fm.removeItem(at: directory.appendingPathComponent(name)) } catch {
                throw UpdaterError.storage("\(error)")
            }
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
