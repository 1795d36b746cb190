import Foundation
import PatchDelivery
import XCTest

/// Fast-forward (TUF): a key that leaked signs a version (or a revocation sequence) far beyond the
/// real ones; the device takes it in and would then refuse every real release as a rollback.
/// Retiring the leaked key in the app's trust store must end that, without reopening rollback
/// for the keys still trusted.
final class FastForwardTests: XCTestCase {
    func testAVersionPushedAheadByARetiredKeyStopsBlockingRealReleases() throws {
        let f = try DeliveryFixture(self)
        let leaked = SigningKey.generate(id: "leaked-1")
        let before = TrustStore(keys: [f.key.trustedKey, leaked.trustedKey])
        try f.serve(try f.patch(version: 5))
        try f.launch(RecordingApplier(), configuration: f.configuration(trustStore: before)).update()
        try f.serve(try f.patch(version: 999_999, key: leaked))
        let pushed = try f.launch(RecordingApplier(), configuration: f.configuration(trustStore: before)).update()
        XCTAssertEqual(pushed.first, .applied(patchID: "shop-fixes", version: 999_999, source: .network))

        // The next app release retires the leaked key.
        var after = before
        after.retire("leaked-1")
        let config = f.configuration(trustStore: after)
        try f.serve(try f.patch(version: 4))
        XCTAssertEqual(try f.launch(RecordingApplier(), configuration: config).update().refusals,
                       [.versionNotNewer(patchID: "shop-fixes", version: 4, applied: 5)],
                       "the trusted key's own history still refuses a rollback")
        try f.serve(try f.patch(version: 6))
        let applier = RecordingApplier()
        XCTAssertEqual(try f.launch(applier, configuration: config).update().first,
                       .applied(patchID: "shop-fixes", version: 6, source: .network))
        XCTAssertEqual(applier.live, ["shop-fixes@6/fix.js"])
    }

    func testTheSameVersionWithOtherContentIsStillRefused() throws {
        let f = try DeliveryFixture(self)
        try f.serve(try f.patch(version: 5))
        try f.launch(RecordingApplier()).update()
        try f.serve(try f.patch(version: 5, scripts: [("fix.js", "var other = 1;\n")]))
        XCTAssertEqual(try f.launch(RecordingApplier()).update().refusals,
                       [.versionNotNewer(patchID: "shop-fixes", version: 5, applied: 5)])
    }

    func testARevocationSequencePushedAheadByARetiredKeyStopsBlockingRealLists() throws {
        let f = try DeliveryFixture(self)
        let leaked = SigningKey.generate(id: "leaked-1")
        let before = TrustStore(keys: [f.key.trustedKey, leaked.trustedKey])
        try f.serveRevocations([], sequence: 7)
        try f.launch(RecordingApplier(), configuration: f.configuration(trustStore: before, revocations: true)).update()
        try f.serveRevocations([], sequence: 1_000_000, issued: Date().addingTimeInterval(300 * 24 * 3600), key: leaked)
        XCTAssertEqual(try f.launch(RecordingApplier(), configuration: f.configuration(trustStore: before, revocations: true))
                        .update().first, .revocationListUpdated(sequence: 1_000_000, revokedCount: 0))

        var after = before
        after.retire("leaked-1")
        let config = f.configuration(trustStore: after, revocations: true)
        try f.serveRevocations([], sequence: 6)
        XCTAssertEqual(try f.launch(RecordingApplier(), configuration: config).update().first,
                       .revocationListRefused(reason: .revocationListRollback(sequence: 6, current: 7)))
        try f.serveRevocations([.init(patchID: "shop-fixes")], sequence: 8)
        try f.serve(try f.patch(version: 1))
        let events = try f.launch(RecordingApplier(), configuration: config).update()
        XCTAssertEqual(events.first, .revocationListUpdated(sequence: 8, revokedCount: 1))
        XCTAssertEqual(events.refusals, [.revoked(patchID: "shop-fixes", version: 1)])
    }

    func testAListDatedFarAheadByARetiredKeyDoesNotKeepTheDeviceFresh() throws {
        let f = try DeliveryFixture(self)
        let leaked = SigningKey.generate(id: "leaked-1")
        let before = TrustStore(keys: [f.key.trustedKey, leaked.trustedKey])
        try f.serveRevocations([], sequence: 1_000_000, issued: Date().addingTimeInterval(300 * 24 * 3600), key: leaked)
        try f.launch(RecordingApplier(), configuration: f.configuration(trustStore: before, revocations: true)).update()

        var after = before
        after.retire("leaked-1")
        // A real list, eight days old: the device is stale, whatever the leaked list claimed.
        let issued = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 8 * 24 * 3600).rounded(.down))
        try f.serveRevocations([], sequence: 3, issued: issued)
        try f.serve(try f.patch(version: 1))
        let applier = RecordingApplier()
        XCTAssertEqual(try f.launch(applier, configuration: f.configuration(trustStore: after, revocations: true)).update(),
                       [.revocationListUpdated(sequence: 3, revokedCount: 0), .revocationListStale(sequence: 3, issued: issued)])
        XCTAssertEqual(applier.calls, [])
    }
}
