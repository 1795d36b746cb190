import Foundation
import PatchDelivery
import PatchServer
import XCTest

/// Malicious mirrors preventing updates (TUF): a copy that is down, serves tampered or old files,
/// or replays an old revocation list must not keep the device from a good copy.
final class MirrorTests: XCTestCase {
    /// A second server with its own folder: the good mirror.
    func startMirror() throws -> (server: PatchServer, folder: URL) {
        let folder = try makeTemporaryDirectory(self)
        let server = PatchServer(directory: folder, log: nil)
        try server.start()
        addTeardownBlock { server.stop(gracePeriod: 0.1) }
        return (server, folder)
    }

    func configuration(_ f: DeliveryFixture, mirror: PatchServer, revocations: Bool = false) -> PatchLoader.Configuration {
        var config = f.configuration(revocations: revocations)
        config.mirrorURLs = [mirror.baseURL!]
        return config
    }

    func testATamperedCopyOnTheFirstSourceFallsBackToAGoodMirror() throws {
        let f = try DeliveryFixture(self)
        let mirror = try startMirror()
        let good = try f.patch(version: 2)
        var tampered = try String(data: good.fileData(), encoding: .utf8)!
        tampered = tampered.replacingOccurrences(of: "var fixed = 2;", with: "var fixed = 666;")
        try f.serve(Data(tampered.utf8), as: "patch.json")
        try good.fileData().write(to: mirror.folder.appendingPathComponent("patch.json"))

        let applier = RecordingApplier()
        let events = try f.launch(applier, configuration: configuration(f, mirror: mirror.server)).update()
        XCTAssertEqual(events.refusals.count, 1)
        XCTAssertEqual(events.dropFirst().first, .applied(patchID: "shop-fixes", version: 2, source: .network))
        XCTAssertEqual(applier.live, ["shop-fixes@2/fix.js"])
    }

    func testAFirstSourceHoldingBackAnOldVersionDoesNotHideTheNewOne() throws {
        let f = try DeliveryFixture(self)
        let mirror = try startMirror()
        try f.serve(try f.patch(version: 3))
        try f.launch(RecordingApplier(), configuration: configuration(f, mirror: mirror.server)).update()
        // The first source goes on serving v3 (or rolls back to v2); the mirror has v4.
        try f.serve(try f.patch(version: 2))
        try f.patch(version: 4).fileData().write(to: mirror.folder.appendingPathComponent("patch.json"))
        let events = try f.launch(RecordingApplier(), configuration: configuration(f, mirror: mirror.server)).update()
        XCTAssertEqual(events.refusals, [.versionNotNewer(patchID: "shop-fixes", version: 2, applied: 3)])
        XCTAssertTrue(events.contains(.applied(patchID: "shop-fixes", version: 4, source: .network)), "\(events)")
    }

    func testAnUnreachableFirstSourceIsNamedAndTheMirrorServes() throws {
        let f = try DeliveryFixture(self, startServer: false)
        let mirror = try startMirror()
        try f.patch(version: 1).fileData().write(to: mirror.folder.appendingPathComponent("patch.json"))
        let events = try f.launch(RecordingApplier(), configuration: configuration(f, mirror: mirror.server)).update()
        guard case .fetchFailed("patch.json", _)? = events.first else { return XCTFail("\(events)") }
        XCTAssertEqual(events.dropFirst().first, .applied(patchID: "shop-fixes", version: 1, source: .network))
    }

    func testAFrozenRevocationListOnTheFirstSourceIsReplacedByTheMirrorsFreshOne() throws {
        let f = try DeliveryFixture(self)
        let mirror = try startMirror()
        let old = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 8 * 24 * 3600).rounded(.down))
        try f.serveRevocations([], issued: old)
        let fresh = RevocationList(sequence: 2, issued: Date(), keyID: "", entries: [.init(patchID: "shop-fixes", versions: [1])])
        try PatchSigner(key: f.key).sign(fresh).fileData().write(to: mirror.folder.appendingPathComponent("revocations.json"))
        try f.serve(try f.patch(version: 1))
        try f.patch(version: 2).fileData().write(to: mirror.folder.appendingPathComponent("patch.json"))

        let events = try f.launch(RecordingApplier(), configuration: configuration(f, mirror: mirror.server, revocations: true)).update()
        XCTAssertEqual(Array(events.prefix(2)), [.revocationListUpdated(sequence: 1, revokedCount: 0),
                                                 .revocationListUpdated(sequence: 2, revokedCount: 1)])
        XCTAssertFalse(events.contains { if case .revocationListStale = $0 { return true } else { return false } })
        // v1 on the first source is revoked by the fresh list; the mirror's v2 applies.
        XCTAssertEqual(events.refusals, [.revoked(patchID: "shop-fixes", version: 1)])
        XCTAssertTrue(events.contains(.applied(patchID: "shop-fixes", version: 2, source: .network)), "\(events)")
    }

    func testAMirrorMustBeHTTPSLikeTheBaseURL() throws {
        let f = try DeliveryFixture(self, startServer: false)
        var config = f.configuration()
        config.allowsInsecureHTTP = false
        config.baseURL = URL(string: "https://patches.example.com/")!
        config.mirrorURLs = [URL(string: "http://mirror.example.com/")!]
        XCTAssertThrowsError(try PatchLoader(configuration: config)) { error in
            XCTAssertEqual(error as? PatchLoader.ConfigurationError, .insecureURL("http://mirror.example.com/"))
        }
    }
}
