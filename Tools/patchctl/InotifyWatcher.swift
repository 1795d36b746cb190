#if os(Linux)
import Foundation
import Glibc

/// Linux's `FileWatcher`: one inotify descriptor on the directory, read by a Dispatch read source
/// (no thread of its own, no polling). Reports the entry names of close-after-write, rename in
/// and out, create and delete events.
final class InotifyWatcher: FileWatcher {
    private let fd: Int32
    private let source: DispatchSourceRead
    private let onChange: (String?) -> Void

    init(directory: URL, queue: DispatchQueue, onChange: @escaping (String?) -> Void) throws {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw FileWatcherError.cannotWatch(directory.path, String(cString: strerror(errno))) }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF)
        guard inotify_add_watch(fd, directory.path, mask) >= 0 else {
            let why = String(cString: strerror(errno))
            close(fd)
            throw FileWatcherError.cannotWatch(directory.path, why)
        }
        self.fd = fd
        self.onChange = onChange
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler { [weak self] in self?.drain() }
        source.setCancelHandler { close(fd) }
        source.resume()
    }

    deinit { source.cancel() }

    func stop() { source.cancel() }

    /// Reads what is pending (a bounded number of reads per wake-up; the source fires again for the rest).
    private func drain() {
        let size = 64 * 1024
        var buffer = [UInt8](repeating: 0, count: size)
        for _ in 0..<16 {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, size) }
            guard count > 0 else { return }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= count {
                let (length, name): (Int, String?) = buffer.withUnsafeBytes { raw in
                    let event = raw.load(fromByteOffset: offset, as: inotify_event.self)
                    let length = Int(event.len)
                    guard length > 0, offset + header + length <= count else { return (length, nil) }
                    let bytes = raw[(offset + header)..<(offset + header + length)].prefix { $0 != 0 }
                    return (length, String(decoding: bytes, as: UTF8.self))
                }
                onChange(name)
                offset += header + length
            }
        }
    }
}
#endif
