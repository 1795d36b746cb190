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
        let temp = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
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
