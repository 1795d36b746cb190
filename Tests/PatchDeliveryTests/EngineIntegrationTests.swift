import Foundation
import PatchDelivery
import PatchEngine
import XCTest

/// The loader with its default applier, i.e. the real `PatchEngine`.
final class EngineIntegrationTests: XCTestCase {
    func engineLoader(_ f: DeliveryFixture, patchID: String, revocations: Bool = false) throws -> PatchLoader {
        try PatchLoader(configuration: f.configuration(patchFiles: [.init("patch.json", patchID: patchID)], revocations: revocations),
                        sleep: { _ in })
    }

    func testAppliesThroughTheEngineAndRevocationRevertsIt() throws {
        let f = try DeliveryFixture(self)
        try f.serve(try f.patch(id: "engine-live", version: 1, scripts: [("probe.js", "var deliveryProbe = 40 + 2;")]))
        try f.serveRevocations([])
        let loader = try engineLoader(f, patchID: "engine-live", revocations: true)
        XCTAssertTrue(loader.update().contains(.applied(patchID: "engine-live", version: 1, source: .network)))
        XCTAssertTrue(PatchEngine.appliedPatchNames.contains("engine-live@1/probe.js"), "\(PatchEngine.appliedPatchNames)")

        try f.serveRevocations([.init(patchID: "engine-live")], sequence: 2)
        XCTAssertTrue(loader.update().contains(.reverted(patchID: "engine-live", version: 1, reason: .revoked)))
        XCTAssertFalse(PatchEngine.appliedPatchNames.contains("engine-live@1/probe.js"), "reverted in the engine")
    }

    func testIncludeResolvesOnlyAmongThePatchsOwnSignedScripts() throws {
        let f = try DeliveryFixture(self)
        try f.serve(try f.patch(id: "engine-bundle", version: 1, scripts: [
            ("main.js", "include('helper.js'); var bundleResult = bundleHelper + 1;"),
            ("helper.js", "var bundleHelper = 41;"),
        ]))
        let events = try engineLoader(f, patchID: "engine-bundle").update()
        XCTAssertEqual(events.first, .applied(patchID: "engine-bundle", version: 1, source: .network))
        XCTAssertEqual(try PatchEngine.evaluate("bundleResult") as? Double, 42)
    }

    func testIncludeOfAFileOnDiskIsRefusedInADeliveredPatch() throws {
        // A real file at an absolute path and in the working directory: a signed patch must not run it.
        let f = try DeliveryFixture(self)
        let planted = f.root.appendingPathComponent("planted.js")
        try "var plantedRan = true;".write(to: planted, atomically: true, encoding: .utf8)
        let cwdName = "planted-\(UUID().uuidString).js"
        let cwdFile = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(cwdName)
        try "var plantedRan = true;".write(to: cwdFile, atomically: true, encoding: .utf8)
        addTeardownBlock { try? FileManager.default.removeItem(at: cwdFile) }
        for (version, path) in [(1, planted.path), (2, cwdName)] {
            try f.serve(try f.patch(id: "engine-planted", version: version, scripts: [("main.js", "include('\(path)');")]))
            let events = try engineLoader(f, patchID: "engine-planted").update()
            guard case .failed("engine-planted", version, let message)? = events.first else { return XCTFail("\(events)") }
            XCTAssertTrue(message.contains("carries no script of that name"), message)
            XCTAssertEqual(try PatchEngine.evaluate("typeof plantedRan") as? String, "undefined", "the planted file never ran")
        }
    }

    func testRefusedPatchNeverReachesTheEngine() throws {
        let f = try DeliveryFixture(self)
        let data = try tamper(try f.patch(id: "engine-refused", version: 1, scripts: [("probe.js", "var x = 1;")])) { file in
            file["scripts"] = ["probe.js": "var x = 2;"]
        }
        try f.serve(data, as: "patch.json")
        let events = try engineLoader(f, patchID: "engine-refused").update()
        XCTAssertEqual(events.refusals.map(\.code), ["script-hash-mismatch"])
        XCTAssertFalse(PatchEngine.appliedPatchNames.contains { $0.hasPrefix("engine-refused@") })
    }

    func testThrowingScriptIsRolledBackAndReported() throws {
        let f = try DeliveryFixture(self)
        try f.serve(try f.patch(id: "engine-throws", version: 1,
                                scripts: [("first.js", "var first = 1;"), ("second.js", "throw new Error('boom from patch');")]))
        let events = try engineLoader(f, patchID: "engine-throws").update()
        guard case .failed("engine-throws", 1, let message)? = events.first else { return XCTFail("\(events)") }
        XCTAssertTrue(message.contains("boom from patch"), message)
        XCTAssertFalse(PatchEngine.appliedPatchNames.contains { $0.hasPrefix("engine-throws@") },
                       "neither script stays applied: \(PatchEngine.appliedPatchNames)")
    }
}
