import Foundation
import PatchUpdater
import PatchSupport

/// The metadata a `PatchClient` last verified in full (fresh, consistent, the channel listed),
/// kept apart from the updater's working folder. A refresh that fails half-way (a new timestamp
/// taken, its snapshot withheld) leaves the working folder inconsistent; launches without the
/// network read this copy instead, so such a failure can't take away what the device verified.
///
/// Replaced as a whole: the new copy is written beside the old one and renamed into place
/// (`current` → `previous`, `next` → `current`); a reader finding no `current` (a crash between
/// the two renames) uses `previous`. It is not a rollback floor: only the updater's working
/// folder and the metadata's own versions are. Its `root.json` is never trusted: the copy is
/// verified against the root `RootAnchor` anchored at launch.
struct VerifiedMetadataCopy {
    let directory: URL
    /// Files in the metadata folder larger than this are not copied (the updater never stores one).
    static let maxFileBytes: Int64 = 5_000_000

    var current: URL { directory.appendingPathComponent("current") }
    private var previous: URL { directory.appendingPathComponent("previous") }
    private var next: URL { directory.appendingPathComponent("next") }

    /// Copies every metadata file of `metadataDirectory`.
    func save(from metadataDirectory: URL) throws {
        let fm = FileManager.default
        try? fm.removeItem(at: next)
        try fm.createDirectory(at: next, withIntermediateDirectories: true)
        for name in try fm.contentsOfDirectory(atPath: metadataDirectory.path) where name.hasSuffix(".json") {
            let source = metadataDirectory.appendingPathComponent(name)
            guard let data = (try? BoundedFile.contents(of: source, limit: Self.maxFileBytes)) ?? nil else { continue }
            try AtomicFile.write(data, to: next.appendingPathComponent(name))
        }
        try? fm.removeItem(at: previous)
        if fm.fileExists(atPath: current.path) { try fm.moveItem(at: current, to: previous) }
        try fm.moveItem(at: next, to: current)
        try? fm.removeItem(at: previous)
    }

    /// Deletes the copy: what it holds can no longer be used (it is stale, or was verified under
    /// a root that is no longer trusted).
    func discard() throws {
        let fm = FileManager.default
        for folder in [next, current, previous] where fm.fileExists(atPath: folder.path) {
            try fm.removeItem(at: folder)
        }
    }

    /// The folder to read the last verified metadata from, if there is one.
    func folder() -> URL? {
        let fm = FileManager.default
        if fm.fileExists(atPath: current.path) { return current }
        if fm.fileExists(atPath: previous.path) { return previous }
        return nil
    }
}
