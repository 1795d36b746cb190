import Foundation
import PatchDelivery
import XCTest

final class RevocationTests: XCTestCase {
    func testRevocationRevertsALivePatchAtRunTimeAndItNeverLoadsAgain() throws {
        let f = try DeliveryFixture(self)
        let config = f.configuration(revocations: true)
        try f.serve(try f.patch(version: 1))
        try f.serveRevocations([])
        let applier = RecordingApplier()
        let loader = try f.launch(applier, configuration: config)
        XCTAssertEqual(loader.update(), [
            .revocationListUpdated(sequence: 1, revokedCount: 0),
            .applied(patchID: "shop-fixes", version: 1, source: .network),
            .cached(file: "patch.json", patchID: "shop-fixes", version: 1),
        ])

        try f.serveRevocations([.init(patchID: "shop-fixes")], sequence: 2)
        let events = loader.update()
        XCTAssertEqual(Array(events.prefix(2)), [
            .revocationListUpdated(sequence: 2, revokedCount: 1),
            .reverted(patchID: "shop-fixes", version: 1, reason: .revoked),
        ])
        XCTAssertEqual(Array(events.dropFirst(2)), [.refused(file: "patch.json", reason: .revoked(patchID: "shop-fixes", version: 1))],
                       "the patch file still on the server is refused")
        XCTAssertEqual(applier.calls, [.apply("shop-fixes@1/fix.js"), .revert("shop-fixes@1/fix.js")])
        XCTAssertEqual(applier.live, [])
        XCTAssertEqual(loader.livePatches, [])

        // Next launch: nothing cached to apply; even with the list gone from the server, never loaded again.
        try FileManager.default.removeItem(at: f.served.appendingPathComponent("revocations.json"))
        let next = RecordingApplier()
        let relaunched = try f.launch(next, configuration: config)
        XCTAssertEqual(relaunched.applyCachedPatches(), [])
        XCTAssertEqual(relaunched.update().refusals, [.revoked(patchID: "shop-fixes", version: 1)])
        XCTAssertEqual(next.calls, [])
    }

    func testRevokingOneVersionLetsANewerVersionThrough() throws {
        let f = try DeliveryFixture(self)
        let config = f.configuration(revocations: true)
        try f.serve(try f.patch(version: 1))
        try f.serveRevocations([])
        let applier = RecordingApplier()
        let loader = try f.launch(applier, configuration: config)
        loader.update()
        try f.serveRevocations([.init(patchID: "shop-fixes", versions: [1])], sequence: 2)
        try f.serve(try f.patch(version: 2))
        let events = loader.update()
        XCTAssertEqual(events, [
            .revocationListUpdated(sequence: 2, revokedCount: 1),
            .reverted(patchID: "shop-fixes", version: 1, reason: .revoked),
            .applied(patchID: "shop-fixes", version: 2, source: .network),
            .cached(file: "patch.json", patchID: "shop-fixes", version: 2),
        ])
        XCTAssertEqual(applier.live, ["shop-fixes@2/fix.js"])
    }

    func testForgedRevocationListIsRefusedAndChangesNothing() throws {
        let f = try DeliveryFixture(self)
        let config = f.configuration(revocations: true)
        try f.serveRevocations([])
        try f.serve(try f.patch(version: 1))
        let applier = RecordingApplier()
        let loader = try f.launch(applier, configuration: config)
        loader.update()
        try f.serveRevocations([.init(patchID: "shop-fixes")], sequence: 2, key: .generate(id: "release-1"))
        XCTAssertEqual(loader.update(), [
            .revocationListRefused(reason: .badSignature(keyID: "release-1")),
            .upToDate(file: "patch.json", patchID: "shop-fixes", version: 1),
        ])
        XCTAssertEqual(applier.live, ["shop-fixes@1/fix.js"])
    }

    func testUnchangedRevocationListCostsOne304() throws {
        let f = try DeliveryFixture(self)
        try f.serveRevocations([.init(patchID: "old-patch")])
        try f.serve(try f.patch(version: 1))
        let loader = try f.launch(RecordingApplier(), configuration: f.configuration(revocations: true))
        loader.update()
        loader.update()
        XCTAssertEqual(f.requests("/revocations.json").map(\.status), [200, 304])
    }
}
