import Foundation
import PatchDelivery
import PatchEngine
import XCTest

/// The loader with its default applier, i.e. the real `PatchEngine`.
final class EngineIntegrationTests: XCTestCase {
    func engineLoader(_ f: DeliveryFixture, revocations: Bool = false) throws -> PatchLoader {
        try PatchLoader(configuration: f.configuration(revocations: revocations), sleep: { _ in })
    }

    func testAppliesThroughTheEngineAndRevocationRevertsIt() throws {
        let f = try DeliveryFixture(self)
        try f.serve(try f.patch(id: "engine-live", version: 1, scripts: [("probe.js", "var deliveryProbe = 40 + 2;")]))
        try f.serveRevocations([])
        let loader = try engineLoader(f, revocations: true)
        XCTAssertTrue(loader.update().contains(.applied(patchID: "engine-live", version: 1, source: .network)))
        XCTAssertTrue(PatchEngine.appliedPatchNames.contains("engine-live@1/probe.js"), "\(PatchEngine.appliedPatchNames)")

        try f.serveRevocations([.init(patchID: "engine-live")], sequence: 2)
        XCTAssertTrue(loader.update().contains(.reverted(patchID: "engine-live", version: 1, reason: .revoked)))
        XCTAssertFalse(PatchEngine.appliedPatchNames.contains("engine-live@1/probe.js"), "reverted in the engine")
    }

    func testRefusedPatchNeverReachesTheEngine() throws {
        let f = try DeliveryFixture(self)
        let data = try tamper(try f.patch(id: "engine-refused", version: 1, scripts: [("probe.js", "var x = 1;")])) { file in
            file["scripts"] = ["probe.js": "var x = 2;"]
        }
        try f.serve(data, as: "patch.json")
        let events = try engineLoader(f).update()
        XCTAssertEqual(events.refusals.map(\.code), ["script-hash-mismatch"])
        XCTAssertFalse(PatchEngine.appliedPatchNames.contains { $0.hasPrefix("engine-refused@") })
    }

    func testThrowingScriptIsRolledBackAndReported() throws {
        let f = try DeliveryFixture(self)
        try f.serve(try f.patch(id: "engine-throws", version: 1,
                                scripts: [("first.js", "var first = 1;"), ("second.js", "throw new Error('boom from patch');")]))
        let events = try engineLoader(f).update()
        guard case .failed("engine-throws", 1, let message)? = events.first else { return XCTFail("\(events)") }
        XCTAssertTrue(message.contains("boom from patch"), message)
        XCTAssertFalse(PatchEngine.appliedPatchNames.contains { $0.hasPrefix("engine-throws@") },
                       "neither script stays applied: \(PatchEngine.appliedPatchNames)")
    }
}
