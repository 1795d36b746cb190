import Foundation
import PatchFormat
import PatchUpdater

/// A private key on disk: `{"scheme": …, "keyid": …, "private": …}`, mode 0600. Key holders keep
/// theirs apart (root and targets keys offline); commands sign with every key found in the
/// folders they are given whose key id the role lists.
public enum KeyFile {
    public static func write(_ key: SigningKey, to url: URL) throws {
        try AtomicFile.write(try key.keyFileData, to: url)
    }

    public static func read(_ url: URL) throws -> SigningKey {
        guard let data = FileManager.default.contents(atPath: url.path) else { throw RepositoryError("cannot read key \(url.path)") }
        do { return try SigningKey(keyFile: data, what: url.path) } catch { throw RepositoryError("\(url.path): \(error)") }
    }

    /// Every `*.key` file in `directory`.
    public static func readAll(in directory: URL) throws -> [SigningKey] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return try names.filter { $0.hasSuffix(".key") }.sorted().map { try read(directory.appendingPathComponent($0)) }
    }
}
