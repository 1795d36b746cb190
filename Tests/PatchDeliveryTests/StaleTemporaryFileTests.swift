import Foundation
import PatchUpdater
import PatchDelivery
import XCTest

/// Temporary files a crash left in the middle of a write are deleted when the client starts; no other file is.
final class StaleTemporaryFileTests: XCTestCase {
    let uuid = "0F5B2E8C-3A41-4C7D-9E20-6B1D8F3A7C55"

    func testOnlyOurTemporaryFilesAreRemovedFromTheStateFolders() throws {
        let f = try ChannelFixture(self)
        try f.release("cart.js", script: "var cart = 1;")
        let config = f.configuration()
        let first = try f.launch(RecordingApplier(), config)
        first.update()
        first.markLaunchSucceeded()

        let state = config.stateDirectory
        let targets = state.appendingPathComponent("targets"), metadata = state.appendingPathComponent("metadata")
        let stale = [
            state.appendingPathComponent(".launch-guard.json.\(uuid).tmp"),
            metadata.appendingPathComponent(".timestamp.json.\(uuid).tmp"),
            targets.appendingPathComponent(".production%2Fcart.js.\(uuid).tmp"),
        ]
        let others = [
            state.appendingPathComponent(".state.json.tmp"),
            state.appendingPathComponent("notes.tmp"),
            state.appendingPathComponent(".state.json.\(uuid).tmp.keep"),
            state.appendingPathComponent(".state.json.\(uuid.lowercased()).tmp"),
            state.appendingPathComponent(".state.json.NOT-A-UUID.tmp"),
            state.appendingPathComponent(".\(uuid).tmp"),
            metadata.appendingPathComponent("x.\(uuid).tmp"),
        ]
        for url in stale + others { try Data("half-written".utf8).write(to: url) }
        let plantedDirectory = targets.appendingPathComponent(".dir.\(uuid).tmp")
        try FileManager.default.createDirectory(at: plantedDirectory, withIntermediateDirectories: false)

        let events = try f.launch(RecordingApplier(), config).applyCached()
        XCTAssertEqual(Array(events.prefix(3)), [
            .temporaryFilesRemoved(directory: state.lastPathComponent, files: [".launch-guard.json.\(uuid).tmp"]),
            .temporaryFilesRemoved(directory: "metadata", files: [".timestamp.json.\(uuid).tmp"]),
            .temporaryFilesRemoved(directory: "targets", files: [".production%2Fcart.js.\(uuid).tmp"]),
        ])
        XCTAssertEqual(events.applied, ["production/cart.js"])
        for url in stale { XCTAssertFalse(FileManager.default.fileExists(atPath: url.path), url.lastPathComponent) }
        for url in others + [plantedDirectory] { XCTAssertTrue(FileManager.default.fileExists(atPath: url.path), url.lastPathComponent) }
        XCTAssertEqual(events[1].description, "removed 1 temporary file left by an interrupted write in metadata: .timestamp.json.\(uuid).tmp")
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
