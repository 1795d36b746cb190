import Foundation
import PatchUpdater

/// The metadata a `PatchClient` last verified in full (fresh, consistent, the channel listed),
/// kept apart from the updater's working folder. A refresh that fails half-way (a new timestamp
/// taken, its snapshot withheld) leaves the working folder inconsistent; launches without the
/// network read this copy instead, so such a failure can't take away what the device verified.
///
/// Replaced as a whole: the new copy is written beside the old one and renamed into place
/// (`current` → `previous`, `next` → `current`); a reader finding no `current` (a crash between
/// the two renames) uses `previous`. It is not a rollback floor: only the updater's working
/// folder and the metadata's own versions are.
struct VerifiedMetadataCopy {
    let directory: URL
    /// Files in the metadata folder larger than this are not copied (the updater never stores one).
    static let maxFileBytes = 5_000_000

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
            guard let handle = try? FileHandle(forReadingFrom: source) else { continue }
            defer { try? handle.close() }
            guard let data = try handle.read(upToCount: Self.maxFileBytes + 1), data.count <= Self.maxFileBytes else { continue }
            try AtomicFile.write(data, to: next.appendingPathComponent(name))
        }
        try? fm.removeItem(at: previous)
        if fm.fileExists(atPath: current.path) { try fm.moveItem(at: current, to: previous) }
        try fm.moveItem(at: next, to: current)
        try? fm.removeItem(at: previous)
    }

    /// The folder to read the last verified metadata from, if there is one.
    func folder() -> URL? {
        let fm = FileManager.default
        if fm.fileExists(atPath: current.path) { return current }
        if fm.fileExists(atPath: previous.path) { return previous }
        return nil
    }
}
