import Foundation
import PatchUpdater
import PatchDelivery
import XCTest

final class PatchCacheTests: XCTestCase {
    /// Applies v1 once so it is cached, and returns the cached file's URL.
    func cachedPatch(_ f: DeliveryFixture) throws -> URL {
        try f.serve(try f.patch(version: 1))
        let loader = try f.launch(RecordingApplier())
        loader.update()
        loader.markLaunchSucceeded()
        let url = loader.cache.url(forPatchFile: "patch.json")
        XCTAssertTrue(FileManager.default.fileExists(atPath: url.path))
        return url
    }

    func testTruncatedCacheIsDiscardedReportedAndDownloadedAgain() throws {
        let f = try DeliveryFixture(self)
        let url = try cachedPatch(f)
        let data = try Data(contentsOf: url)
        try data.prefix(data.count / 2).write(to: url)

        let applier = RecordingApplier()
        let loader = try f.launch(applier)
        let events = loader.applyCachedPatches()
        guard events.count == 1, case .cacheDiscarded("patch.json", .malformed(let why)) = events[0] else { return XCTFail("\(events)") }
        XCTAssertTrue(why.hasPrefix("patch file is not valid JSON: "), why)
        XCTAssertEqual(applier.calls, [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: url.path), "the corrupt copy is deleted")
        // No copy, so no If-None-Match: the full patch comes back and is applied.
        XCTAssertEqual(loader.update().first, .applied(patchID: "shop-fixes", version: 1, source: .network))
        XCTAssertNil(f.requests("/patch.json").last?.ifNoneMatch)
        XCTAssertEqual(f.requests("/patch.json").last?.status, 200)
        XCTAssertTrue(FileManager.default.fileExists(atPath: url.path))
    }

    func testTamperedCachedScriptIsDetectedByItsHash() throws {
        let f = try DeliveryFixture(self)
        let url = try cachedPatch(f)
        let text = try String(contentsOf: url, encoding: .utf8)
        try text.replacingOccurrences(of: "var fixed = 1;", with: "var fixed = 666;").write(to: url, atomically: false, encoding: .utf8)

        let applier = RecordingApplier()
        let events = try f.launch(applier).applyCachedPatches()
        guard case .cacheDiscarded("patch.json", .scriptHashMismatch("fix.js", _, _?))? = events.first else {
            return XCTFail("\(events)")
        }
        XCTAssertEqual(applier.calls, [])
    }

    func testAtomicWriteReplacesWholeFileWithPrivateMode() throws {
        let dir = try makeTemporaryDirectory(self)
        let url = dir.appendingPathComponent("sub/state.json")
        try AtomicFile.write(Data("first".utf8), to: url)
        try AtomicFile.write(Data("second, longer".utf8), to: url)
        XCTAssertEqual(try String(contentsOf: url, encoding: .utf8), "second, longer")
        let mode = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path), ["state.json"],
                       "no temporary file left behind")
        XCTAssertThrowsError(try AtomicFile.write(Data(), to: URL(fileURLWithPath: "/proc/nope/x"))) {
            XCTAssertTrue("\($0)".hasPrefix("cannot "), "\($0)")
        }
    }
}
