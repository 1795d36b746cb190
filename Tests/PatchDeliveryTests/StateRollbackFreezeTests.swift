import Foundation
#if canImport(Glibc)
import Glibc
#endif
import PatchDelivery
import XCTest

/// Rollback and indefinite freeze (TUF) through the device's own state: a lost or corrupted state
/// file, an old or stale revocation list, planted files in the state folder, a wrong clock.
final class StateRollbackFreezeTests: XCTestCase {
    func stateFile(_ f: DeliveryFixture, _ name: String = "state.json") -> URL {
        f.stateDirectory.appendingPathComponent(name)
    }

    func testLosingOneStateCopyKeepsRollbackProtection() throws {
        let f = try DeliveryFixture(self)
        try f.serve(try f.patch(version: 3))
        try f.launch(RecordingApplier()).update()
        try Data("{ garbage".utf8).write(to: stateFile(f))

        try f.serve(try f.patch(version: 2))
        let loader = try f.launch(RecordingApplier())
        let events = loader.update()
        guard case .stateRestored("state.json", let message)? = events.first else { return XCTFail("\(events)") }
        XCTAssertTrue(message.hasPrefix("state.json does not parse"), message)
        XCTAssertEqual(events.refusals, [.versionNotNewer(patchID: "shop-fixes", version: 2, applied: 3)])
        // Both copies are whole again.
        XCTAssertEqual(try Data(contentsOf: stateFile(f)), try Data(contentsOf: stateFile(f, "state.backup.json")))
    }

    func testAPlantedLinkToADeviceOrAFIFOIsNotReadAsState() throws {
        let f = try DeliveryFixture(self)
        try f.serve(try f.patch(version: 3))
        try f.launch(RecordingApplier()).update()
        try FileManager.default.removeItem(at: stateFile(f))
        try FileManager.default.createSymbolicLink(atPath: stateFile(f).path, withDestinationPath: "/dev/zero")
        let backup = stateFile(f, "state.backup.json")
        try FileManager.default.removeItem(at: backup)
        XCTAssertEqual(mkfifo(backup.path, 0o600), 0)

        let events = try f.launch(RecordingApplier()).applyCachedPatches()
        guard case .stateReset("state.json", let message)? = events.first else { return XCTFail("\(events)") }
        XCTAssertTrue(message.contains("state.backup.json is not a regular file"), message)
    }

    func testLosingBothCopiesHoldsEverythingUntilAFreshRevocationList() throws {
        let f = try DeliveryFixture(self)
        let config = f.configuration(revocations: true)
        try f.serveRevocations([])
        try f.serve(try f.patch(version: 1))
        try f.launch(RecordingApplier(), configuration: config).update()
        for name in ["state.json", "state.backup.json"] { try Data("x".utf8).write(to: stateFile(f, name)) }
        try FileManager.default.removeItem(at: f.served.appendingPathComponent("revocations.json"))

        let applier = RecordingApplier()
        let loader = try f.launch(applier, configuration: config)
        let launch = loader.applyCachedPatches()
        XCTAssertEqual(launch.count, 2)
        guard case .stateReset("state.json", _) = launch[0] else { return XCTFail("\(launch)") }
        XCTAssertEqual(launch[1], .revocationListStale(sequence: nil, issued: nil))
        XCTAssertEqual(launch[1].description, "no revocation list taken in yet: patches are held until one arrives")
        XCTAssertEqual(loader.update(), [.fetchFailed(file: "revocations.json", message: "HTTP 404 Not Found"),
                                         .revocationListStale(sequence: nil, issued: nil)])
        XCTAssertEqual(applier.calls, [], "neither the cached copy nor the network patch")
        XCTAssertEqual(f.requests("/patch.json").count, 1, "not even downloaded again")

        try f.serveRevocations([], sequence: 2)
        XCTAssertEqual(loader.update(), [.revocationListUpdated(sequence: 2, revokedCount: 0),
                                         .applied(patchID: "shop-fixes", version: 1, source: .network),
                                         .cached(file: "patch.json", patchID: "shop-fixes", version: 1)])
    }

    func testARevocationListWithALowerSequenceIsRefused() throws {
        let f = try DeliveryFixture(self)
        try f.serveRevocations([.init(patchID: "shop-fixes")], sequence: 5)
        let loader = try f.launch(RecordingApplier(), configuration: f.configuration(revocations: true))
        loader.update()
        // An older list that didn't revoke it yet.
        try f.serveRevocations([], sequence: 4)
        try f.serve(try f.patch(version: 1))
        let events = loader.update()
        XCTAssertEqual(events.first, .revocationListRefused(reason: .revocationListRollback(sequence: 4, current: 5)))
        XCTAssertEqual(events.refusals, [.revoked(patchID: "shop-fixes", version: 1)])
        XCTAssertEqual(PatchRefusal.revocationListRollback(sequence: 4, current: 5).description,
                       "revocation list #4 is older than the list #5 already taken in (rollback)")
    }

    func testAStaleRevocationListHoldsNetworkPatchesUntilAFreshOneArrives() throws {
        let f = try DeliveryFixture(self)
        let config = f.configuration(revocations: true)
        XCTAssertEqual(config.revocationListMaxAge, 7 * 24 * 3600, "a week by default")
        try f.serve(try f.patch(version: 1))
        // A mirror replaying an old list (freeze attack): validly signed, 8 days old.
        let issued = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 8 * 24 * 3600).rounded(.down))
        try f.serveRevocations([], issued: issued)
        let applier = RecordingApplier()
        let loader = try f.launch(applier, configuration: config)
        XCTAssertEqual(loader.update(), [.revocationListUpdated(sequence: 1, revokedCount: 0),
                                         .revocationListStale(sequence: 1, issued: issued)])
        XCTAssertEqual(applier.calls, [])
        XCTAssertEqual(f.requests("/patch.json").count, 0)
        XCTAssertTrue(PatchEvent.revocationListStale(sequence: 1, issued: issued).description
                        .hasSuffix("is no longer fresh: network patches are held until a fresh one arrives"))

        // Fresh by its issue date but past its signed expiry: still stale.
        try f.serveRevocations([], sequence: 2, issued: Date().addingTimeInterval(-3600), expires: Date().addingTimeInterval(-60))
        XCTAssertEqual(loader.update().last?.description.hasSuffix("is no longer fresh: network patches are held until a fresh one arrives"), true)

        try f.serveRevocations([], sequence: 3, expires: Date().addingTimeInterval(3600))
        XCTAssertEqual(loader.update().suffix(2), [.applied(patchID: "shop-fixes", version: 1, source: .network),
                                                   .cached(file: "patch.json", patchID: "shop-fixes", version: 1)])
    }

    func testACachedPatchStillAppliesWhileTheListIsStale() throws {
        let f = try DeliveryFixture(self)
        let config = f.configuration(revocations: true)
        try f.serveRevocations([])
        try f.serve(try f.patch(version: 1))
        try f.launch(RecordingApplier(), configuration: config).update()
        // Nine days later, by the device's clock.
        let later = Date().addingTimeInterval(9 * 24 * 3600)
        let loader = try f.launch(RecordingApplier(), configuration: config, now: { later })
        XCTAssertEqual(loader.applyCachedPatches(), [.applied(patchID: "shop-fixes", version: 1, source: .cache)])
    }

    func testNoETagIsSentForACachedCopyThatDoesNotVerify() throws {
        let f = try DeliveryFixture(self)
        try f.serve(try f.patch(version: 1))
        let first = try f.launch(RecordingApplier())
        first.update()
        let cached = first.cache.url(forPatchFile: "patch.json")
        let text = try String(contentsOf: cached, encoding: .utf8)
        try text.replacingOccurrences(of: "var fixed = 1;", with: "var fixed = 2;").write(to: cached, atomically: true, encoding: .utf8)

        // update() without applyCachedPatches() first: the copy is checked before its ETag is used.
        let applier = RecordingApplier()
        XCTAssertEqual(try f.launch(applier).update().first, .applied(patchID: "shop-fixes", version: 1, source: .network))
        XCTAssertNil(f.requests("/patch.json").last?.ifNoneMatch)
        XCTAssertEqual(f.requests("/patch.json").last?.status, 200)
        XCTAssertEqual(applier.live, ["shop-fixes@1/fix.js"])
    }

    func testAWrongClockForOneLaunchKeepsAValidCachedPatch() throws {
        let f = try DeliveryFixture(self)
        let expires = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 24 * 3600).rounded(.down))
        try f.serve(try f.patch(version: 1, expires: expires))
        try f.launch(RecordingApplier()).update()

        // The clock jumps two days ahead for one launch.
        let skewed = try f.launch(RecordingApplier(), now: { expires.addingTimeInterval(24 * 3600) })
        XCTAssertEqual(skewed.applyCachedPatches(), [.cacheSkipped(file: "patch.json", reason: .expired(patchID: "shop-fixes", at: expires))])
        XCTAssertTrue(FileManager.default.fileExists(atPath: skewed.cache.url(forPatchFile: "patch.json").path), "kept")

        // Right again: the cached patch applies, no network needed.
        XCTAssertEqual(try f.launch(RecordingApplier()).applyCachedPatches(), [.applied(patchID: "shop-fixes", version: 1, source: .cache)])
    }

    func testOversizedOrNonRegularCachedFilesAreDiscardedWithoutReadingThem() throws {
        let f = try DeliveryFixture(self)
        var config = f.configuration()
        config.maxDownloadBytes = 4096
        let loader = try f.launch(RecordingApplier(), configuration: config)
        let cached = loader.cache.url(forPatchFile: "patch.json")
        try FileManager.default.createDirectory(at: cached.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(count: 4097).write(to: cached)
        XCTAssertEqual(loader.applyCachedPatches(),
                       [.cacheDiscarded(file: "patch.json", reason: .malformed("cached copy: \(cached.lastPathComponent) is 4097 bytes, more than the 4096-byte limit"))])
        XCTAssertEqual(mkfifo(cached.path, 0o600), 0)
        XCTAssertEqual(loader.applyCachedPatches(),
                       [.cacheDiscarded(file: "patch.json", reason: .malformed("cached copy: \(cached.lastPathComponent) is not a regular file"))])
        XCTAssertFalse(FileManager.default.fileExists(atPath: cached.path))
    }
}
