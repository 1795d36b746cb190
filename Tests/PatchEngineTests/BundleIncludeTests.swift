import Foundation
import XCTest
import PatchEngine
import PatchFixtures

/// A delivered patch runs only its own signed scripts: `include()` resolves among the bundle
/// passed to `evaluate(_:name:bundle:)`, never against the file system.
final class BundleIncludeTests: PatchTestCase {
    private func applyBundle(_ main: String, _ bundle: [String: String]) throws -> String {
        let name = uniqueScriptName()
        addTeardownBlock { try? PatchEngine.revert(name) }
        try PatchEngine.evaluate(main, name: name, bundle: bundle)
        return name
    }

    func testIncludeResolvesToAScriptOfTheBundle() throws {
        let part = "defineClass('PFGreeter', { greet: function(n) { return 'bundled ' + n.toJS() } })\n"
        let name = try applyBundle("include('./part.js')", ["part.js": part])
        XCTAssertEqual(take(pf_greeter_greet("x")), "\"bundled x\"")
        try PatchEngine.revert(name)
        XCTAssertEqual(take(pf_greeter_greet("x")), "\"Hello, x\"")
    }

    func testIncludeOfAFileOnDiskIsRefusedAndNothingStaysApplied() throws {
        // A real file in the working directory and at an absolute path: neither may be read.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bundle-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let planted = folder.appendingPathComponent("planted.js")
        try "defineClass('PFGreeter', { greet: function(n) { return 'planted' } })".write(to: planted, atomically: true, encoding: .utf8)
        for path in [planted.path, "../\(planted.lastPathComponent)", "planted.js"] {
            let script = "defineClass('PFGreeter', { greet: function(n) { return 'main' } }); include('\(path)')"
            XCTAssertThrowsError(try applyBundle(script, ["other.js": "1"])) { error in
                let message = (error as? PatchError)?.message ?? "\(error)"
                XCTAssertTrue(message.contains("carries no script of that name"), message)
            }
            XCTAssertEqual(take(pf_greeter_greet("x")), "\"Hello, x\"", "the failing patch was rolled back")
        }
    }

    func testResourcePathIsRefusedInADeliveredPatch() throws {
        XCTAssertThrowsError(try applyBundle("resourcePath('a.png')", [:])) { error in
            XCTAssertTrue("\(error)".contains("not available in a delivered patch"), "\(error)")
        }
    }
}
