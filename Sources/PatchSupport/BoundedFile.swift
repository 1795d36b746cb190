import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one bounded reader of files: the device's state files (trusted metadata, the last verified copy, cached
/// targets, the crash-loop guard, the telemetry spool). Only a regular file is read: a planted
/// FIFO, device (`/dev/zero`) or a symbolic link is refused instead of blocking, filling memory
/// or pointing elsewhere. A limit below zero is refused and a file over the limit is refused
/// before it is read; no arithmetic on the limit can overflow (a signed length of `Int64.max`
/// is an ordinary refusal), and memory grows with the bytes actually read, never with the limit.
public enum BoundedFile {
    /// Why a file was not read.
    public struct Refusal: Error, CustomStringConvertible, Equatable {
        public var description: String
    }

    /// Bytes read per `read(2)` call.
    static let chunk = 64 << 10

    /// The file's bytes, or nil when there is no file.
    public static func contents(of url: URL, limit: Int64) throws -> Data? {
        let name = url.lastPathComponent
        guard limit >= 0 else { throw Refusal(description: "\(name): negative size limit \(limit)") }
        // O_NONBLOCK: opening a FIFO must not wait for a writer; O_NOFOLLOW: a planted link is not followed.
        let fd = open(url.path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw Refusal(description: "cannot open \(name): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw Refusal(description: "\(name) is not a regular file")
        }
        guard Int64(info.st_size) <= limit else {
            throw Refusal(description: "\(name) is \(info.st_size) bytes, more than the \(limit)-byte limit")
        }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: chunk)
        while true {
            // One byte past the limit is asked for, to see a file that grew since fstat.
            let room = limit - Int64(data.count)
            let want = room >= Int64(chunk) ? chunk : Int(room) + 1
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, want) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Refusal(description: "cannot read \(name): \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            data.append(buffer, count: n)
            // The size can change between fstat and read: the bytes read are what counts.
            guard Int64(data.count) <= limit else {
                throw Refusal(description: "\(name) is more than the \(limit)-byte limit")
            }
        }
        return data
    }
}
