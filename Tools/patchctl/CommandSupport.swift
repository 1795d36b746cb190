import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
/// The C library's read(2), which a method named `read` in this file would otherwise shadow.
private let posixRead = Glibc.read
#elseif canImport(Darwin)
import Darwin
private let posixRead = Darwin.read
#endif

/// A failure a subcommand reports: printed to standard error as `error: <message>`, exit status 1.
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

enum CommandSupport {
    /// The most any command reads from one file or from standard input: far above any real patch,
    /// script or key, low enough that a wrong path (a device, a FIFO, a log) can't fill memory.
    static let inputLimit = 16 << 20

    /// Reads a file, or fails with a message naming it.
    static func read(_ path: String, what: String) throws -> Data {
        switch readBounded(path) {
        case .success(let data): return data
        case .failure(let failure):
            // The wording patchctl has always used for the common case.
            let why = failure.isMissingFile ? "no such file" : failure.description
            throw CommandFailure("cannot read \(what) \(path): \(why)")
        }
    }

    /// Why `readBounded` failed: the system's word for it (with its errno), or the size limit.
    struct ReadFailure: Error, CustomStringConvertible {
        var description: String
        /// The errno of the failing call; nil for the size limit.
        var code: Int32?
        var isMissingFile: Bool { code == ENOENT }

        init(errno code: Int32) { self.code = code; description = String(cString: strerror(code)) }
        init(_ description: String) { self.description = description }
    }

    /// Reads at most `limit` bytes from `path` ("-" for standard input) with POSIX calls, so a
    /// failure names the real cause; more than `limit` bytes is a failure, not a truncation.
    /// `regularFileOnly`: anything but a regular file (a FIFO, a device, a socket) is refused
    /// without a read; it is opened non-blocking, since opening a FIFO waits for a writer.
    static func readBounded(_ path: String, limit: Int = inputLimit, regularFileOnly: Bool = false) -> Result<Data, ReadFailure> {
        let fd = path == "-" ? STDIN_FILENO : open(path, regularFileOnly ? O_RDONLY | O_NONBLOCK : O_RDONLY)
        guard fd >= 0 else { return .failure(ReadFailure(errno: errno)) }
        defer { if fd != STDIN_FILENO { close(fd) } }
        var info = stat()
        let statted = fstat(fd, &info) == 0
        if statted && (info.st_mode & S_IFMT) == S_IFDIR {
            return .failure(ReadFailure(errno: EISDIR))
        }
        if regularFileOnly && !(statted && (info.st_mode & S_IFMT) == S_IFREG) {
            return .failure(ReadFailure("not a regular file"))
        }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { posixRead(fd, $0.baseAddress, $0.count) }
            if count == 0 { return .success(data) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(ReadFailure(errno: errno))
            }
            guard data.count + count <= limit else {
                return .failure(ReadFailure("larger than the \(limit)-byte limit"))
            }
            data.append(contentsOf: buffer[0..<count])
        }
    }

    static func readText(_ path: String, what: String) throws -> String {
        guard let text = String(data: try read(path, what: what), encoding: .utf8) else {
            throw CommandFailure("\(what) \(path) is not UTF-8 text")
        }
        return text
    }

    /// The most useful words of a Foundation error.
    static func reason(_ error: Error) -> String {
        let ns = error as NSError
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if ns.domain == NSCocoaErrorDomain, ns.code == NSFileReadNoSuchFileError { return "no such file" }
        return ns.localizedDescription
    }

    /// Routes SIGINT and SIGTERM to a semaphore that `waitForStop()` waits on. Install it before
    /// anything else a long-running command does, so an interrupt that arrives as soon as a port
    /// is announced still stops the command cleanly.
    final class StopSignals {
        private let stopRequested = DispatchSemaphore(value: 0)
        private var sources: [DispatchSourceSignal] = []

        init() {
            for sig in [SIGINT, SIGTERM] {
                signal(sig, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
                source.setEventHandler { [stopRequested] in stopRequested.signal() }
                source.resume()
                sources.append(source)
            }
        }

        deinit { sources.forEach { $0.cancel() } }

        /// Blocks until SIGINT or SIGTERM arrives.
        func waitForStop() { stopRequested.wait() }
    }

    /// Writes to standard error (diagnostics and warnings never go to standard output).
    static func printError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
