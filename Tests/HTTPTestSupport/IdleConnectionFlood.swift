import Foundation

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
            let fd = PortableSocket.tcp()
            guard fd >= 0 else { throw RawHTTPConnection.Failure(description: "socket: \(String(cString: strerror(errno))) after \(descriptors.count)") }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            guard PortableSocket.connectLoopback(fd, port: port) == 0 || errno == EINPROGRESS else {
                let message = String(cString: strerror(errno))
                PortableSocket.close(fd)
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
        for fd in descriptors { PortableSocket.close(fd) }
        descriptors = []
    }

    deinit { close() }

    /// Raises the soft open-file limit to at least `wanted` if the hard limit allows; false if it doesn't.
    @discardableResult
    public static func raiseOpenFileLimit(to wanted: Int) -> Bool {
        // getrlimit's resource is an enum on Glibc, an Int32 on Darwin.
        #if canImport(Glibc)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return false }
        guard limit.rlim_cur < rlim_t(wanted) else { return true }
        limit.rlim_cur = min(rlim_t(wanted), limit.rlim_max)
        return setrlimit(resource, &limit) == 0 && limit.rlim_cur >= rlim_t(wanted)
    }
}
