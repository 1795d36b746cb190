import Foundation
import PatchDelivery
import XCTest

/// Every refusal reason, end to end: the device downloads the patch over HTTP, refuses it with
/// the right reason and message, and evaluates none of it.
final class PatchRefusalTests: XCTestCase {
    /// Serves `data`, runs one launch + update, and returns the refusals; asserts the update evaluated nothing.
    func refusals(_ f: DeliveryFixture, serving data: Data, configuration: PatchLoader.Configuration? = nil,
                  file: StaticString = #filePath, line: UInt = #line) throws -> [PatchRefusal] {
        try f.serve(data, as: "patch.json")
        let applier = RecordingApplier()
        let loader = try f.launch(applier, configuration: configuration)
        loader.applyCachedPatches()  // what an earlier launch left (if anything) is applied as usual
        loader.markLaunchSucceeded()
        let before = applier.calls
        let events = loader.update()
        XCTAssertEqual(applier.calls, before, "nothing of a refused patch is evaluated", file: file, line: line)
        XCTAssertFalse(events.contains { if case .cached = $0 { return true } else { return false } }, "not cached", file: file, line: line)
        return events.refusals
    }

    func testBadSignature() throws {
        let f = try DeliveryFixture(self)
        let data = try tamper(try f.patch(version: 1)) { file in
            var m = file["manifest"] as! [String: Any]
            m["appVersions"] = "*"  // widen the range: a signed value changed
            file["manifest"] = m
        }
        XCTAssertEqual(try refusals(f, serving: data), [.badSignature(keyID: "release-1")])
    }

    func testUnknownKey() throws {
        let f = try DeliveryFixture(self)
        let data = try f.patch(version: 1, key: .generate(id: "attacker")).fileData()
        XCTAssertEqual(try refusals(f, serving: data), [.unknownKey(keyID: "attacker")])
    }

    func testRetiredKey() throws {
        let f = try DeliveryFixture(self)
        var store = f.trustStore
        store.retire("release-1")
        XCTAssertEqual(try refusals(f, serving: try f.patch(version: 1).fileData(), configuration: f.configuration(trustStore: store)),
                       [.retiredKey(keyID: "release-1")])
    }

    func testScriptHashMismatch() throws {
        let f = try DeliveryFixture(self)
        let patch = try f.patch(version: 1)
        let data = try tamper(patch) { file in file["scripts"] = ["fix.js": "evil();"] }
        XCTAssertEqual(try refusals(f, serving: data),
                       [.scriptHashMismatch(script: "fix.js", expected: patch.manifest.scripts[0].sha256, actual: sha256Hex("evil();"))])
    }

    func testAppVersionOutsideRange() throws {
        let f = try DeliveryFixture(self)
        XCTAssertEqual(try refusals(f, serving: try f.patch(version: 1).fileData(), configuration: f.configuration(appVersion: "2.0.0")),
                       [.appVersionOutOfRange(appVersion: "2.0.0", range: ">=1.0.0 <2.0.0")])
    }

    func testWrongApp() throws {
        let f = try DeliveryFixture(self)
        XCTAssertEqual(try refusals(f, serving: try f.patch(version: 1, appID: "com.example.bank").fileData()),
                       [.wrongApp(expected: "com.example.shop", patchAppID: "com.example.bank")])
    }

    func testExpired() throws {
        let f = try DeliveryFixture(self)
        let expires = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 60).rounded(.down))
        let data = try f.patch(version: 1, created: expires.addingTimeInterval(-3600), expires: expires).fileData()
        XCTAssertEqual(try refusals(f, serving: data), [.expired(patchID: "shop-fixes", at: expires)])
    }

    func testManifestThatDoesNotParse() throws {
        let f = try DeliveryFixture(self)
        XCTAssertEqual(try refusals(f, serving: Data("{\"manifest\": {\"patchID\": ".utf8)),
                       [.malformed("patch file is not valid JSON: unexpected end at byte 25")])
        let data = try tamper(try f.patch(version: 1)) { file in
            var m = file["manifest"] as! [String: Any]
            m["version"] = nil
            file["manifest"] = m
        }
        XCTAssertEqual(try refusals(f, serving: data), [.malformed("manifest is missing field 'version'")])
    }

    func testRollbackToAnOlderVersionAndReplayOfADifferentPatchWithTheSameVersion() throws {
        let f = try DeliveryFixture(self)
        try f.serve(try f.patch(version: 2))
        try f.launch(RecordingApplier()).update()

        // An old, validly signed version served again (rollback to a buggy or vulnerable patch).
        XCTAssertEqual(try refusals(f, serving: try f.patch(version: 1).fileData()),
                       [.versionNotNewer(patchID: "shop-fixes", version: 1, applied: 2)])
        // Another signed patch reusing version 2.
        let other = try f.patch(version: 2, scripts: [("fix.js", "var other = true;")])
        XCTAssertEqual(try refusals(f, serving: other.fileData()),
                       [.versionNotNewer(patchID: "shop-fixes", version: 2, applied: 2)])
        XCTAssertEqual(PatchRefusal.versionNotNewer(patchID: "shop-fixes", version: 1, applied: 2).description,
                       "patch 'shop-fixes' version 1 is not newer than the applied version 2 (rollback or replay)")
    }

    func testVersionStateSurvivesLosingTheCache() throws {
        let f = try DeliveryFixture(self)
        try f.serve(try f.patch(version: 3))
        let first = try f.launch(RecordingApplier())
        first.update()
        try FileManager.default.removeItem(at: first.cache.directory)

        // Same signed patch again: fine (re-downloaded, re-applied).
        let applier = RecordingApplier()
        let events = try f.launch(applier).update()
        XCTAssertEqual(events.first, .applied(patchID: "shop-fixes", version: 3, source: .network))
        XCTAssertEqual(applier.live, ["shop-fixes@3/fix.js"])
        // An older one: still refused, from the persisted version state alone.
        try FileManager.default.removeItem(at: first.cache.directory)
        XCTAssertEqual(try refusals(f, serving: try f.patch(version: 2).fileData()),
                       [.versionNotNewer(patchID: "shop-fixes", version: 2, applied: 3)])
    }

    func testMixAndMatchAnotherValidlySignedPatchUnderTheFileNameIsRefused() throws {
        let f = try DeliveryFixture(self)
        // Same app, same trusted key, valid in every other way, but not the patch this file is bound to.
        let promo = try f.patch(id: "promo", version: 7)
        XCTAssertEqual(try refusals(f, serving: promo.fileData()), [.unexpectedPatchID(expected: "shop-fixes", found: "promo")])
        XCTAssertEqual(PatchRefusal.unexpectedPatchID(expected: "shop-fixes", found: "promo").description,
                       "unexpected patch id: the file must carry patch 'shop-fixes', it carries 'promo' (mix-and-match)")

        // Planted in the cache under the file's name: discarded, not applied.
        let loader = try f.launch(RecordingApplier())
        try loader.cache.store(patch: promo.fileData(), forFile: "patch.json")
        let applier = RecordingApplier()
        XCTAssertEqual(try f.launch(applier).applyCachedPatches(),
                       [.cacheDiscarded(file: "patch.json", reason: .unexpectedPatchID(expected: "shop-fixes", found: "promo"))])
        XCTAssertEqual(applier.calls, [])
    }

    func testConfigurationBindsEachFileToOnePatchID() throws {
        let f = try DeliveryFixture(self)
        let twice = f.configuration(patchFiles: [.init("a.json", patchID: "p"), .init("b.json", patchID: "p")])
        XCTAssertThrowsError(try f.launch(RecordingApplier(), configuration: twice)) {
            XCTAssertEqual("\($0)", "invalid patch files: patch id 'p' is bound to two files")
        }
        let bad = f.configuration(patchFiles: [.init("a.json", patchID: "no/slash")])
        XCTAssertThrowsError(try f.launch(RecordingApplier(), configuration: bad)) {
            XCTAssertEqual("\($0)", "invalid patch files: patchID 'no/slash' must be 1–128 letters, digits, '.', '_' or '-'")
        }
    }

    func testRevokedPatchIsNotLoaded() throws {
        let f = try DeliveryFixture(self)
        try f.serveRevocations([.init(patchID: "shop-fixes")])
        XCTAssertEqual(try refusals(f, serving: try f.patch(version: 5).fileData(), configuration: f.configuration(revocations: true)),
                       [.revoked(patchID: "shop-fixes", version: 5)])
    }
}
