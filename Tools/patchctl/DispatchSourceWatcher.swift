#if canImport(Darwin)
import Darwin
import Foundation

/// Apple platforms' `FileWatcher`: a Dispatch file-system source (kqueue) on the directory's
/// descriptor. A directory's vnode changes when an entry is added, removed or renamed — which is
/// how editors save — but not when a file inside it is rewritten in place; the kqueue event
/// doesn't name the entry, so callers re-read the directory (`onChange(nil)`).
final class DispatchSourceWatcher: FileWatcher {
    private let source: DispatchSourceFileSystemObject

    init(directory: URL, queue: DispatchQueue, onChange: @escaping (String?) -> Void) throws {
        let fd = open(directory.path, O_EVTONLY)
        guard fd >= 0 else { throw FileWatcherError.cannotWatch(directory.path, String(cString: strerror(errno))) }
        source = DispatchSource.makeFileSystemObjectSource(fileDescriptor: fd, eventMask: [.write, .rename, .delete, .extend], queue: queue)
        source.setEventHandler { onChange(nil) }
        source.setCancelHandler { close(fd) }
        source.resume()
    }

    deinit { source.cancel() }

    func stop() { source.cancel() }
}
#endif
