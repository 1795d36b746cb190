import Foundation
import PatchUpdater
import PatchDelivery

/// The signed files laid out as a device reads them, for any static host or CDN:
/// `channels/<channel>.json`, the patch files at the paths the releases name, and
/// `revocations.json` when there is one. Devices need nothing else (no service).
public enum StaticTree {
    /// Writes the tree under `directory` (files replaced atomically); returns the relative paths written.
    @discardableResult
    public static func write(channels: [SignedReleaseChannel], patches: [String: Data], revocations: Data? = nil,
                             to directory: URL) throws -> [String] {
        var written: [String] = []
        for signed in channels {
            let path = "channels/\(signed.channel.channel).json"
            try AtomicFile.write(signed.fileData(), to: directory.appendingPathComponent(path))
            written.append(path)
        }
        for (path, data) in patches.sorted(by: { $0.key < $1.key }) {
            try ReleaseChannel.Release.checkFile(path)
            try AtomicFile.write(data, to: directory.appendingPathComponent(path))
            written.append(path)
        }
        if let revocations {
            try AtomicFile.write(revocations, to: directory.appendingPathComponent("revocations.json"))
            written.append("revocations.json")
        }
        return written
    }
}
