import Foundation

/// Watches one directory and calls back when entries in it change: created, written and closed,
/// renamed in or out, deleted. Editors save by writing a temporary file and renaming it over the
/// original, so the directory is watched, not the files. Callbacks name the entry when the
/// platform says which one (nil: "something changed", re-read them all).
///
/// The platform seam: `FileWatcher.make` picks `InotifyWatcher` on Linux and
/// `DispatchSourceWatcher` (kqueue through Dispatch) on Apple platforms; nothing else in
/// patchctl knows which one runs.
protocol FileWatcher: AnyObject {
    /// Stops watching; no callback runs after it returns.
    func stop()
}

enum FileWatcherError: Error, CustomStringConvertible {
    case cannotWatch(String, String)
    var description: String {
        switch self {
        case let .cannotWatch(path, why): return "cannot watch \(path): \(why)"
        }
    }
}

enum FileWatchers {
    /// Starts watching `directory`; `onChange` runs on `queue` with the changed entry's name.
    static func make(directory: URL, queue: DispatchQueue, onChange: @escaping (String?) -> Void) throws -> FileWatcher {
        #if os(Linux)
        return try InotifyWatcher(directory: directory, queue: queue, onChange: onChange)
        #else
        return try DispatchSourceWatcher(directory: directory, queue: queue, onChange: onChange)
        #endif
    }
}
