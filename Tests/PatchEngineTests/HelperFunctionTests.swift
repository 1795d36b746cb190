import Foundation
import XCTest
import PatchEngine
import PatchFixtures

/// console.log, include, resourcePath, performSelectorInOC.
final class HelperFunctionTests: PatchTestCase {
    func testConsoleLogReachesTheLogHandler() throws {
        let log = captureLog()
        try apply("console.log('hello from js'); console.log(require('PFValueBox').alloc().init().makeObjectOfKind('dict'))")
        XCTAssertTrue(log.lines.contains { $0.contains("hello from js") }, "log: \(log.lines)")
        XCTAssertTrue(log.lines.contains { $0.contains("stringFromOC") }, "an Objective-C object is logged by its description: \(log.lines)")
    }

    func testPerformSelectorInOCResultGoesThroughTheCallback() throws {
        // The selector runs in Objective-C after the JS function returns; the callback's
        // result becomes the method's result.
        try apply("""
        defineClass('PFWorker', {
          compute: function(x) {
            return self.performSelectorInOC('baseValue:', [x], function(r) { return r + 1 })
          }
        })
        """)
        XCTAssertEqual(pf_worker_compute(4), 41)
    }

    /// A temporary folder with script files; `include` and `resourcePath` resolve against
    /// the folder of the including script, whose name is its absolute path.
    private func scriptFolder(_ files: [String: String]) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("patchengine-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        for (name, text) in files {
            let url = folder.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        return folder
    }

    func testIncludeEvaluatesEachFileOnce() throws {
        pf_probe_reset()
        let folder = try scriptFolder([
            "lib/greeting.js": "require('PFProbe').record('lib loaded');\ndefineClass('PFGreeter', { greet: function(n) { return 'included ' + n.toJS() } })\n",
        ])
        let main = folder.appendingPathComponent("main.js").path
        try apply("include('lib/greeting.js'); include('lib/greeting.js'); 'done'", name: main)
        XCTAssertEqual(take(pf_probe_entries()), "lib loaded@main")
        XCTAssertEqual(take(pf_greeter_greet("x")), "\"included x\"")
    }

    func testIncludedPatchesAreRevertedWithTheIncludingScript() throws {
        let folder = try scriptFolder([
            "part.js": "defineClass('PFGreeter', { greet: function(n) { return 'part' } })\n",
        ])
        let main = folder.appendingPathComponent("main.js").path
        try apply("include('part.js')", name: main)
        XCTAssertEqual(take(pf_greeter_greet("x")), "\"part\"")
        try PatchEngine.revert(main)
        XCTAssertEqual(take(pf_greeter_greet("x")), "\"Hello, x\"")
    }

    func testARevertedScriptIncludesItsFilesAgainWhenEvaluatedAgain() throws {
        pf_probe_reset()
        let folder = try scriptFolder([
            "part.js": "require('PFProbe').record('part loaded');\ndefineClass('PFGreeter', { greet: function(n) { return 'part' } })\n",
        ])
        let main = folder.appendingPathComponent("main.js").path
        try apply("include('part.js')", name: main)
        try PatchEngine.revert(main)
        XCTAssertEqual(take(pf_greeter_greet("x")), "\"Hello, x\"")
        try apply("include('part.js')", name: main)
        XCTAssertEqual(take(pf_greeter_greet("x")), "\"part\"", "the second evaluation includes the file again")
        XCTAssertEqual(take(pf_probe_entries()), "part loaded@main,part loaded@main")
    }

    func testEachScriptIncludesASharedFileForItself() throws {
        let folder = try scriptFolder([
            "part.js": "defineClass('PFGreeter', { greet: function(n) { return 'part' } })\n",
        ])
        let first = folder.appendingPathComponent("first.js").path
        let second = folder.appendingPathComponent("second.js").path
        try apply("include('part.js')", name: first)
        try apply("include('part.js')", name: second)
        try PatchEngine.revert(first)
        XCTAssertEqual(take(pf_greeter_greet("x")), "\"part\"", "the second script's own include still applies")
        try PatchEngine.revert(second)
        XCTAssertEqual(take(pf_greeter_greet("x")), "\"Hello, x\"")
    }

    func testResourcePathIsRelativeToTheScript() throws {
        let folder = try scriptFolder([:])
        let main = folder.appendingPathComponent("main.js").path
        let result = try apply("resourcePath('images/a.png')", name: main)
        XCTAssertEqual(result as? String, folder.appendingPathComponent("images/a.png").path)
    }
}
