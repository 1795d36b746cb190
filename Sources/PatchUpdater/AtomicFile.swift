import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Crash-safe file replacement: a reader sees the old bytes or the new ones, never a mix.
///
/// Writes a temporary file in the same directory, `fsync`s it, `rename`s it over the target
/// (atomic within one file system), then `fsync`s the directory so the rename itself is durable.
public enum AtomicFile {
    /// Replaces `url`'s contents with `data`; creates missing parent directories.
    /// The file gets mode 0600: caches and state are the app's private business.
    public static func write(_ data: Data, to url: URL) throws {
        let directory = url.deletingLastPathComponent()
        do { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) } catch {
            throw AtomicFileError(description: "cannot create directory \(directory.path): \((error as NSError).localizedDescription)")
        }
        let temp = directory.appendingPathComponent(temporaryName(for: url.lastPathComponent))
        let fd = open(temp.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else { throw error("create", temp) }
        var ok = false
        defer {
            if !ok { unlink(temp.path) }
        }
        do {
            defer { close(fd) }
            try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
                var offset = 0
                while offset < buffer.count {
                    let n = Glue.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                    if n < 0 {
                        if errno == EINTR { continue }
                        throw error("write", temp)
                    }
                    offset += n
                }
            }
            guard fsync(fd) == 0 else { throw error("fsync", temp) }
        }
        guard rename(temp.path, url.path) == 0 else { throw error("rename", url) }
        ok = true
        let dirFD = open(directory.path, O_RDONLY)
        if dirFD >= 0 {
            _ = fsync(dirFD)
            close(dirFD)
        }
    }

    /// Removes `url` if it exists.
    public static func remove(_ url: URL) {
        unlink(url.path)
    }

    /// The temporary file `write` uses for `name`: `.<name>.<UUID>.tmp`.
    static func temporaryName(for name: String) -> String {
        ".\(name).\(UUID().uuidString).tmp"
    }

    /// Whether `name` is one of `write`'s temporary names (the exact pattern, an uppercase UUID included).
    public static func isTemporaryName(_ name: String) -> Bool {
        guard name.hasPrefix("."), name.hasSuffix(".tmp") else { return false }
        let body = name.dropFirst().dropLast(4)  // "<name>.<UUID>"
        guard let dot = body.lastIndex(of: "."), dot != body.startIndex else { return false }
        let uuid = body[body.index(after: dot)...]
        return uuid.count == 36 && UUID(uuidString: String(uuid))?.uuidString == String(uuid)
    }

    /// Deletes the temporary files a crash in the middle of `write` left in `directory` (only
    /// regular files with `write`'s own temporary names; other files are never touched). Call it
    /// before writing there: a write under way in the same folder would lose its file. Returns
    /// the names removed, sorted.
    @discardableResult
    public static func removeStaleTemporaryFiles(in directory: URL) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return [] }
        var removed: [String] = []
        // Bounded by the folder's listing, taken once.
        for name in names.sorted() where isTemporaryName(name) {
            let path = directory.appendingPathComponent(name).path
            var info = stat()
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            if unlink(path) == 0 { removed.append(name) }
        }
        return removed
    }

    private static func error(_ step: String, _ url: URL) -> AtomicFileError {
        AtomicFileError(description: "cannot \(step) \(url.path): \(String(cString: strerror(errno)))")
    }

    /// `write(2)`, under a name that doesn't clash with this type's own `write`.
    private enum Glue {
        static func write(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int {
            #if canImport(Glibc)
            return Glibc.write(fd, p, n)
            #elseif canImport(Musl)
            return Musl.write(fd, p, n)
            #else
            return Darwin.write(fd, p, n)
            #endif
        }
    }
}

/// A failed file operation, with the path and the system's reason.
public struct AtomicFileError: Error, CustomStringConvertible {
    public var description: String
}
