import Crypto
import NIOCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One regular file opened for a response: its descriptor (owned by `handle`, closed by whoever
/// sends it), its size and its ETag. The ETag is hashed from the same descriptor the body is sent
/// from, in fixed-size chunks, so a large file is never held in memory and a file replaced
/// between the two can't get the old file's tag.
struct ServedFile {
    let handle: NIOFileHandle
    let size: Int
    let etag: String

    /// Why a file that passed the path check still can't be served.
    enum Failure: Error {
        /// No descriptor left (EMFILE, ENFILE): the client may retry. 503.
        case exhausted
        /// Gone, not a regular file any more, or shorter than its size while hashed: 404.
        case vanished
        /// Any other error from the system: 500.
        case failed(errno: Int32)
    }

    /// Bytes read per `pread` while hashing.
    static let chunkSize = 64 * 1024

    /// Opens `realPath` (from `ServedPath.resolve`) and hashes it. Blocking: run it on the thread pool.
    static func open(realPath: String) throws -> ServedFile {
        // O_NOFOLLOW: a symlink swapped in after the real path was checked is not followed.
        // O_NONBLOCK: a FIFO swapped in can't block the thread (fstat refuses it next).
        let fd = Self.systemOpen(realPath, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            if code == EMFILE || code == ENFILE { throw Failure.exhausted }
            if code == ENOENT || code == ELOOP || code == ENOTDIR { throw Failure.vanished }
            throw Failure.failed(errno: code)
        }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            _ = close(fd)
            throw Failure.vanished
        }
        // Between the path check and open(), a folder on the way could have been swapped for a
        // symlink leading out (O_NOFOLLOW guards only the last name): ask the kernel where the
        // descriptor really points, and refuse it unless that is the path that was checked.
        guard openedPath(fd).map({ $0 == realPath }) ?? true else {
            _ = close(fd)
            throw Failure.vanished
        }
        let size = Int(info.st_size)
        do {
            let etag = try hash(fd, size: size)
            return ServedFile(handle: NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: fd), size: size, etag: etag)
        } catch {
            _ = close(fd)
            throw error
        }
    }

    /// The path the kernel has for an open descriptor (Linux: /proc/self/fd; Darwin: fcntl
    /// F_GETPATH, symlinks resolved as realpath does), or nil where unknown.
    static func openedPath(_ fd: Int32) -> String? {
        #if os(Linux)
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/fd/\(fd)", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #elseif canImport(Darwin)
        var buffer = [CChar](repeating: 0, count: Int(MAXPATHLEN) + 1)     // F_GETPATH writes up to MAXPATHLEN
        guard fcntl(fd, F_GETPATH, &buffer) != -1 else { return nil }
        return String(cString: buffer)
        #else
        return nil
        #endif
    }

    private static func systemOpen(_ path: String, _ flags: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.open(path, flags)
        #else
        Darwin.open(path, flags)
        #endif
    }

    /// The ETag of the first `size` bytes of `fd`.
    private static func hash(_ fd: Int32, size: Int) throws -> String {
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        var offset = 0
        while offset < size {
            let wanted = min(chunkSize, size - offset)
            let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, wanted, off_t(offset)) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure.failed(errno: errno)
            }
            // Truncated while we read: what we would send no longer matches Content-Length.
            guard count > 0 else { throw Failure.vanished }
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
            offset += count
        }
        return EntityTag.make(from: hasher.finalize())
    }
}
