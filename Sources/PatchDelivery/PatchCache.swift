import Foundation
import PatchUpdater

/// The last verified copy of each patch file, on disk, so patches
/// apply at launch before (or without) the network.
///
/// Writes are atomic (`AtomicFile`: temporary file, fsync, rename). Reads are bounded
/// (`BoundedFile`) and verify the copy again in full (signature, script hashes, the patch id the
/// file is bound to): a corrupt, oversized or tampered file is detected, deleted, and reported
/// with the reason. A copy refused only because it expired by this device's clock is kept: the
/// clock may be wrong for this launch.
public final class PatchCache {
    /// What reading a cached patch found.
    public enum Lookup {
        case missing
        case valid(SignedPatch)
        /// The file failed verification and has been deleted.
        case discarded(PatchRefusal)
        /// The file is intact but not acceptable now (expired by this clock); it was kept.
        case skipped(PatchRefusal)
    }

    public let directory: URL
    /// Larger cached files are refused without being read whole.
    public let sizeLimit: Int

    public init(directory: URL, sizeLimit: Int = 4 << 20) {
        self.directory = directory
        self.sizeLimit = sizeLimit
    }

    /// Where the copy of patch file `file` (a path relative to the loader's base URL) lives.
    /// The name keeps the file's last component for people and a hash of the whole path for uniqueness.
    public func url(forPatchFile file: String) -> URL {
        let readable = (file as NSString).lastPathComponent.filter { $0.isLetter || $0.isNumber || "._-".contains($0) }
        return directory.appendingPathComponent("\(file.sha256Hex.prefix(12))-\(readable).patch")
    }

    public func store(patch data: Data, forFile file: String) throws {
        try AtomicFile.write(data, to: url(forPatchFile: file))
    }

    /// Reads and re-verifies the cached copy of `file`, which must carry `patchID`.
    public func patch(forFile file: String, patchID: String, verifier: PatchVerifier) -> Lookup {
        let url = url(forPatchFile: file)
        let data: Data
        do {
            guard let read = try BoundedFile.contents(of: url, limit: sizeLimit) else { return .missing }
            data = read
        } catch {
            AtomicFile.remove(url)
            return .discarded(.malformed("cached copy: \(error)"))
        }
        do {
            return .valid(try verifier.verify(patchFile: data, patchID: patchID))
        } catch let refusal as PatchRefusal {
            if case .expired = refusal { return .skipped(refusal) }
            AtomicFile.remove(url)
            return .discarded(refusal)
        } catch {
            AtomicFile.remove(url)
            return .discarded(.malformed("\(error)"))
        }
    }

    public func removePatch(forFile file: String) {
        AtomicFile.remove(url(forPatchFile: file))
    }
}
