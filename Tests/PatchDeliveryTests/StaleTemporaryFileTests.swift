import Foundation
import PatchUpdater
import PatchDelivery
import XCTest

/// Temporary files a crash left in the middle of a write are deleted when the loader starts; no other file is.
final class StaleTemporaryFileTests: XCTestCase {
    let uuid = "0F5B2E8C-3A41-4C7D-9E20-6B1D8F3A7C55"

    func testOnlyOurTemporaryFilesAreRemovedFromTheStateAndCacheFolders() throws {
        let f = try DeliveryFixture(self)
        try f.serve(try f.patch(version: 1))
        let first = try f.launch(RecordingApplier())
        first.update()
        first.markLaunchSucceeded()

        let cache = f.stateDirectory.appendingPathComponent("cache")
        let stale = [
            f.stateDirectory.appendingPathComponent(".state.json.\(uuid).tmp"),
            f.stateDirectory.appendingPathComponent(".launch-guard.json.\(uuid).tmp"),
            cache.appendingPathComponent(".0123456789ab-patch.json.patch.\(uuid).tmp"),
        ]
        let others = [
            f.stateDirectory.appendingPathComponent(".state.json.tmp"),
            f.stateDirectory.appendingPathComponent("notes.tmp"),
            f.stateDirectory.appendingPathComponent(".state.json.\(uuid).tmp.keep"),
            f.stateDirectory.appendingPathComponent(".state.json.\(uuid.lowercased()).tmp"),
            f.stateDirectory.appendingPathComponent(".state.json.NOT-A-UUID.tmp"),
            f.stateDirectory.appendingPathComponent(".\(uuid).tmp"),
            cache.appendingPathComponent("x.\(uuid).tmp"),
        ]
        for url in stale + others { try Data("half-written".utf8).write(to: url) }
        let plantedDirectory = cache.appendingPathComponent(".dir.\(uuid).tmp")
        try FileManager.default.createDirectory(at: plantedDirectory, withIntermediateDirectories: false)

        let applier = RecordingApplier()
        let events = try f.launch(applier).applyCachedPatches()
        XCTAssertEqual(events, [
            .temporaryFilesRemoved(directory: "device", files: [".launch-guard.json.\(uuid).tmp", ".state.json.\(uuid).tmp"]),
            .temporaryFilesRemoved(directory: "cache", files: [".0123456789ab-patch.json.patch.\(uuid).tmp"]),
            .applied(patchID: "shop-fixes", version: 1, source: .cache),
        ])
        for url in stale { XCTAssertFalse(FileManager.default.fileExists(atPath: url.path), url.lastPathComponent) }
        for url in others + [plantedDirectory] { XCTAssertTrue(FileManager.default.fileExists(atPath: url.path), url.lastPathComponent) }
        XCTAssertEqual(events[0].description, "removed 2 temporary files left by an interrupted write in device: "
                       + ".launch-guard.json.\(uuid).tmp, .state.json.\(uuid).tmp")
    }

    func testTheNamePatternIsExactlyAtomicFilesOwn() throws {
        XCTAssertTrue(AtomicFile.isTemporaryName(".state.json.\(uuid).tmp"))
        XCTAssertTrue(AtomicFile.isTemporaryName(".a.b.c.\(uuid).tmp"))
        for name in [".\(uuid).tmp", "state.json.\(uuid).tmp", ".state.json.\(uuid).tmp2", ".state.json.\(uuid.lowercased()).tmp",
                     ".state.json.\(uuid.dropLast())X.tmp", ".state.json.tmp", ".tmp", ""] {
            XCTAssertFalse(AtomicFile.isTemporaryName(name), name)
        }
        // A write that fails (here its rename: a directory is in the target's place) removes its own
        // temporary file; only a crash leaves one behind.
        let dir = try makeTemporaryDirectory(self)
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("target"), withIntermediateDirectories: false)
        XCTAssertThrowsError(try AtomicFile.write(Data("x".utf8), to: dir.appendingPathComponent("target")))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["target"])
    }
}
