import Foundation
import PatchDelivery
import PatchEngine
import XCTest

/// `PatchClient` with the real engine behind it (`EnginePatchApplier`): what runs, what a
/// delivered script may reach, and what a failed one leaves behind.
final class PatchClientEngineTests: XCTestCase {
    private func engineNames(_ fragment: String) -> [String] {
        PatchEngine.appliedPatchNames.filter { $0.contains(fragment) }
    }

    func testAReleaseRunsInTheEngineAndRevokingItRevertsIt() throws {
        let fixture = try ChannelFixture(self)
        try fixture.release("engine-live.js", script: "var deliveryProbe = 40 + 2;", patchID: "engine-live")
        let client = try fixture.launch(EnginePatchApplier())
        XCTAssertEqual(client.update().applied, ["production/engine-live.js"])
        XCTAssertEqual(try PatchEngine.evaluate("deliveryProbe") as? Double, 42)
        XCTAssertEqual(engineNames("engine-live").count, 1, "\(PatchEngine.appliedPatchNames)")

        try fixture.revoke("engine-live.js")
        XCTAssertEqual(client.update().reverted, ["production/engine-live.js": .withdrawn])
        XCTAssertEqual(engineNames("engine-live"), [], "reverted in the engine")
    }

    func testIncludeOfAFileOnDiskIsRefusedInADeliveredRelease() throws {
        // A real file at an absolute path and one in the working directory: a signed release
        // may include only its own signed script, never a file.
        let fixture = try ChannelFixture(self)
        let planted = fixture.directory.appendingPathComponent("planted.js")
        try "var plantedRan = true;".write(to: planted, atomically: true, encoding: .utf8)
        let cwdName = "planted-\(UUID().uuidString).js"
        let cwdFile = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(cwdName)
        try "var plantedRan = true;".write(to: cwdFile, atomically: true, encoding: .utf8)
        addTeardownBlock { try? FileManager.default.removeItem(at: cwdFile) }

        for (version, path) in [(1, planted.path), (2, cwdName)] {
            try fixture.release("planted-\(version).js", script: "include('\(path)');", patchID: "engine-planted", version: version)
            let events = try fixture.launch(EnginePatchApplier()).update()
            guard let failure = events.failures["production/planted-\(version).js"] else { return XCTFail("\(events)") }
            XCTAssertTrue(failure.contains("carries no script of that name"), failure)
            XCTAssertEqual(try PatchEngine.evaluate("typeof plantedRan") as? String, "undefined", "the planted file never ran")
            XCTAssertEqual(engineNames("planted-\(version).js"), [])
        }
    }

    func testAReleaseThatThrowsLeavesNothingInTheEngine() throws {
        let fixture = try ChannelFixture(self)
        try fixture.release("engine-throws.js", script: """
            defineClass('NSObject', { engineThrowsProbe: function () { return 1; } });
            throw new Error('boom from release');
            """, patchID: "engine-throws")
        let events = try fixture.launch(EnginePatchApplier()).update()
        let failure = events.failures["production/engine-throws.js"]
        XCTAssertTrue(failure?.contains("boom from release") == true, "\(events)")
        XCTAssertEqual(engineNames("engine-throws"), [], "\(PatchEngine.appliedPatchNames)")
        // The runtime can't remove a method; what the rollback leaves must not run the script.
        let result = try? PatchEngine.evaluate("require('NSObject').alloc().init().engineThrowsProbe()")
        XCTAssertNotEqual(result as? Double, 1, "the method defined before the throw no longer runs the release")
    }
}
