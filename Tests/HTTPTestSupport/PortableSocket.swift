import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Blocking POSIX TCP sockets on 127.0.0.1 for the tests' raw clients and servers, which need
/// every byte and every pause under their control (slow readers, idle floods, endless bodies).
/// The differences between Glibc and Darwin are written here once:
/// - `SOCK_STREAM` is an enum on Glibc and an `Int32` on Darwin;
/// - `sockaddr_in` has a length field (`sin_len`) on Darwin;
/// - a write to a closed peer raises SIGPIPE unless `send` gets `MSG_NOSIGNAL` (Linux) or the
///   socket has `SO_NOSIGPIPE` set (Darwin, which has no `MSG_NOSIGNAL`).
/// The Darwin branches are written from Apple's SDK declarations and not compiled here (no Swift
/// for Darwin on the Linux CI); see README, "Apple platforms".
public enum PortableSocket {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(_ call: String) { description = "\(call): \(String(cString: strerror(errno)))" }
    }

    /// A new TCP socket that never raises SIGPIPE (with `send` below), or -1 (errno set).
    public static func tcp() -> Int32 {
        #if canImport(Glibc)
        return socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        return noSigPipe(socket(AF_INET, SOCK_STREAM, 0))
        #endif
    }

    /// 127.0.0.1:`port` (0: any free port, when binding).
    public static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    /// Connects `fd` to 127.0.0.1:`port`: 0, or -1 with errno (EINPROGRESS on a non-blocking socket).
    public static func connectLoopback(_ fd: Int32, port: UInt16) -> Int32 {
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    /// A socket bound to 127.0.0.1 on a free port (SO_REUSEADDR set), listening with `backlog`
    /// unless `backlog` is nil; its descriptor and port.
    public static func bindLoopback(listen backlog: Int32?) throws -> (fd: Int32, port: UInt16) {
        let fd = tcp()
        guard fd >= 0 else { throw Failure("socket") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound, backlog.map({ listen(fd, $0) == 0 }) ?? true else {
            let failure = Failure("bind/listen")
            close(fd)
            throw failure
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    /// A connection accepted on `listener` (SIGPIPE-free like `tcp()`), or -1 (errno set).
    public static func accept(_ listener: Int32) -> Int32 {
        #if canImport(Glibc)
        return Glibc.accept(listener, nil, nil)
        #else
        return noSigPipe(Darwin.accept(listener, nil, nil))
        #endif
    }

    /// `send(2)` that never raises SIGPIPE: the count sent, or -1 (errno set).
    public static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
        #if canImport(Glibc)
        return Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
        #else
        return Darwin.send(fd, bytes.baseAddress, bytes.count, 0)  // SO_NOSIGPIPE is set on every socket made here
        #endif
    }

    /// Sends all of `bytes`, retrying after EINTR; false at the first other failure (the peer
    /// closed or reset, or a send timeout ran out).
    public static func sendAll<Bytes: Collection>(_ fd: Int32, _ bytes: Bytes) -> Bool where Bytes.Element == UInt8 {
        let array = Array(bytes)
        var offset = 0
        while offset < array.count {
            let sent = array[offset...].withUnsafeBytes { send(fd, $0) }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// Sets a socket's SO_RCVTIMEO or SO_SNDTIMEO.
    public static func setTimeout(_ fd: Int32, _ option: Int32, seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, option, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Stops both directions: a thread blocked in accept/recv on `fd` wakes up.
    public static func shutdownBoth(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_RDWR))
    }

    public static func close(_ fd: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(fd)
        #else
        _ = Darwin.close(fd)
        #endif
    }

    #if canImport(Darwin)
    private static func noSigPipe(_ fd: Int32) -> Int32 {
        guard fd >= 0 else { return fd }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
        return fd
    }
    #endif
}
