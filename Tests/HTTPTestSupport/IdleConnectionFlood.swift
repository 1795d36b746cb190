import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An attacker's connections to 127.0.0.1 that send nothing and are held open: connected without
/// blocking (a server whose backlog is full leaves a blocking connect() waiting for seconds), so
/// thousands are opened at once. Raises this process's own open-file limit as far as allowed.
public final class IdleConnectionFlood {
    public private(set) var descriptors: [Int32] = []

    /// Opens `count` connections to `port`, at most `timeout` seconds in all.
    public init(port: UInt16, count: Int, timeout: TimeInterval = 30) throws {
        Self.raiseOpenFileLimit(to: count + 256)
        let deadline = Date().addingTimeInterval(timeout)
        for _ in 0..<count where Date() < deadline {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw RawHTTPConnection.Failure(description: "socket: \(String(cString: strerror(errno))) after \(descriptors.count)") }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard result == 0 || errno == EINPROGRESS else {
                let message = String(cString: strerror(errno))
                _ = Glibc.close(fd)
                throw RawHTTPConnection.Failure(description: "connect: \(message) after \(descriptors.count)")
            }
            descriptors.append(fd)
        }
    }

    /// Connections the server has closed (or reset) so far, of those held.
    public var closedByServer: Int {
        var closed = 0
        var byte: UInt8 = 0
        for fd in descriptors {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 0) > 0 else { continue }
            if descriptor.revents & Int16(POLLHUP | POLLERR) != 0 || recv(fd, &byte, 1, Int32(MSG_PEEK)) <= 0 { closed += 1 }
        }
        return closed
    }

    public func close() {
        for fd in descriptors { _ = Glibc.close(fd) }
        descriptors = []
    }

    deinit { close() }

    /// Raises the soft open-file limit to at least `wanted` if the hard limit allows; false if it doesn't.
    @discardableResult
    public static func raiseOpenFileLimit(to wanted: Int) -> Bool {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return false }
        guard limit.rlim_cur < rlim_t(wanted) else { return true }
        limit.rlim_cur = min(rlim_t(wanted), limit.rlim_max)
        return setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 && limit.rlim_cur >= rlim_t(wanted)
    }
}
