import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file of the state folder with a size limit. Only a regular file is read: a planted
/// FIFO, device (`/dev/zero`) or a symbolic link to one is refused instead of blocking or
/// filling memory, and a file over the limit is refused without reading it whole.
enum BoundedFile {
    struct Refusal: Error, CustomStringConvertible {
        var description: String
    }

    /// The file's bytes, or nil when there is no file.
    static func contents(of url: URL, limit: Int) throws -> Data? {
        // O_NONBLOCK: opening a FIFO must not wait for a writer; O_NOFOLLOW: a planted link is not followed.
        let fd = open(url.path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw Refusal(description: "cannot open \(url.lastPathComponent): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw Refusal(description: "\(url.lastPathComponent) is not a regular file")
        }
        guard Int(info.st_size) <= limit else {
            throw Refusal(description: "\(url.lastPathComponent) is \(info.st_size) bytes, more than the \(limit)-byte limit")
        }
        var data = Data(count: limit + 1)
        var total = 0
        while total <= limit {
            let n = data.withUnsafeMutableBytes { read(fd, $0.baseAddress! + total, limit + 1 - total) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Refusal(description: "cannot read \(url.lastPathComponent): \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            total += n
        }
        // The size can change between fstat and read: the bytes read are what counts.
        guard total <= limit else {
            throw Refusal(description: "\(url.lastPathComponent) is more than the \(limit)-byte limit")
        }
        return data.prefix(total)
    }
}
