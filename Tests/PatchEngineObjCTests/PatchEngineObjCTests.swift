import Foundation
import PatchEngine
import PatchEngineObjCFixtures
import PatchFormat
import PatchRepository
import XCTest

/// The Objective-C API (PEPatchEngine.h) driven from Objective-C fixtures, as an Objective-C app
/// calls it: README's "A patch" done in Objective-C, errors with file:line:column, handlers,
/// limits, revert, and a PatchClient started from a configuration.
final class PatchEngineObjCTests: XCTestCase {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    override func tearDown() {
        POCaptureHandlers(nil, nil, 0)
        PatchEngine.revertAll()
        super.tearDown()
    }

    /// A fenced block of README's "A patch" section: the first ```js (the script), or ```objc.
    func readmeBlock(_ fence: String) throws -> String {
        let readme = try String(contentsOf: Self.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try XCTUnwrap(readme.range(of: "\n## A patch\n"), "README has no \"A patch\" section")
        let rest = readme[section.upperBound...]
        let open = try XCTUnwrap(rest.range(of: "```\(fence)\n"), "no ```\(fence) block in \"A patch\"")
        let close = try XCTUnwrap(rest[open.upperBound...].range(of: "\n```\n"))
        return String(rest[open.upperBound..<close.lowerBound])
    }

    func message(_ body: (UnsafeMutablePointer<CChar>, Int) -> Bool) -> (ok: Bool, text: String) {
        var buffer = [CChar](repeating: 0, count: 4096)
        let ok = buffer.withUnsafeMutableBufferPointer { body($0.baseAddress!, $0.count) }
        return (ok, String(cString: buffer))
    }

    func testReadmeExampleInObjectiveCPatchesAndReverts() throws {
        let script = try readmeBlock("js")
        XCTAssertEqual(POCartTotal("SAVE10"), 100)
        XCTAssertTrue(POReadmeApplyUTF8(script))
        XCTAssertEqual(POCartTotal("SAVE10"), 90, "the patched -total subtracts the coupon's 10 %")
        XCTAssertEqual(POCartTotal(nil), 100, "no coupon, no discount")
        XCTAssertTrue(POReadmeRevert())
        XCTAssertEqual(POCartTotal(nil), 100)
        XCTAssertFalse(POReadmeRevert(), "reverted already: nothing named fix-total.js is applied")
    }

    func testTheReadmeSnippetIsThisFile() throws {
        let fixture = try String(contentsOf: Self.packageRoot.appendingPathComponent("Tests/PatchEngineObjCFixtures/ReadmeExample.m"),
                                 encoding: .utf8)
        let begin = try XCTUnwrap(fixture.range(of: "// README: begin\n"))
        let end = try XCTUnwrap(fixture.range(of: "\n// README: end"))
        XCTAssertEqual(try readmeBlock("objc"), String(fixture[begin.upperBound..<end.lowerBound]),
                       "README's Objective-C example must be ReadmeExample.m's marked lines, verbatim")
    }

    func testAScriptThatDoesNotParseGivesAnNSErrorWithItsPosition() {
        let result = message { POEvaluateDescribing("defineClass('Cart', {\n  total: function () { return 1 +; }\n});\n", "bad.js", $0, $1) }
        XCTAssertFalse(result.ok)
        XCTAssertTrue(result.text.hasPrefix("PEPatchErrorDomain 1 bad.js:2:"), result.text)
        XCTAssertTrue(result.text.contains("syntax error"), result.text)
        XCTAssertTrue(result.text.hasSuffix("| bad.js 2 \(Self.column(result.text))"), result.text)
        XCTAssertEqual(POCartTotal(nil), 100, "nothing of the script was applied")
    }

    static func column(_ text: String) -> String { String(text.split(separator: " ").last ?? "") }

    func testAScriptThatThrowsIsRolledBackAndReported() {
        let result = message { POEvaluateDescribing("defineClass('Cart', { total: function () { return 5; } });\nthrow new Error('boom');\n", "throws.js", $0, $1) }
        XCTAssertFalse(result.ok)
        XCTAssertTrue(result.text.hasPrefix("PEPatchErrorDomain 2 throws.js:2:"), result.text)
        XCTAssertTrue(result.text.contains("boom"), result.text)
        XCTAssertEqual(POCartTotal(nil), 100, "the method the script replaced before throwing is rolled back")
    }

    func testAFileIsEvaluatedUnderItsPathAndAMissingOneIsAnError() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("objc-api-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("fix.js")
        try "defineClass('Cart', { total: function () { return 7; } });\n".write(to: file, atomically: true, encoding: .utf8)
        XCTAssertTrue(message { POEvaluateFileDescribing(file.path, $0, $1) }.ok)
        XCTAssertEqual(POCartTotal(nil), 7)
        XCTAssertTrue(message { PORevertDescribing(file.path, $0, $1) }.ok, "the patch is named by the file's path")
        XCTAssertEqual(POCartTotal(nil), 100)
        let missing = message { POEvaluateFileDescribing(folder.appendingPathComponent("none.js").path, $0, $1) }
        XCTAssertFalse(missing.ok)
        XCTAssertTrue(missing.text.hasPrefix("PEPatchErrorDomain 2 ") && missing.text.contains("cannot read"), missing.text)
    }

    func testNilArgumentsAreErrorsNotCrashes() {
        let result = message { PONilArgumentsDescribing($0, $1) }
        XCTAssertFalse(result.ok, "a call with a nil argument succeeded")
        XCTAssertEqual(result.text.split(separator: "\n").map(String.init), [
            "PEPatchErrorDomain 2 evaluation error: the script is not a string | - 0 0",
            "PEPatchErrorDomain 2 evaluation error: the name is not a string | - 0 0",
            "PEPatchErrorDomain 2 evaluation error: the path is not a string | - 0 0",
            "PEPatchErrorDomain 2 evaluation error: the name is not a string | - 0 0",
        ])
    }

    func testRevertOfAnUnknownNameIsANotAppliedError() {
        let result = message { PORevertDescribing("never.js", $0, $1) }
        XCTAssertFalse(result.ok)
        XCTAssertTrue(result.text.hasPrefix("PEPatchErrorDomain 4 never.js: notApplied error: no applied patch named never.js"), result.text)
    }

    func testHandlersReceiveRuntimeErrorsAndLogLinesAndTheCallFallsBack() {
        var errors = [CChar](repeating: 0, count: 4096), logs = [CChar](repeating: 0, count: 4096)
        errors.withUnsafeMutableBufferPointer { e in
            logs.withUnsafeMutableBufferPointer { l in
                POCaptureHandlers(e.baseAddress, l.baseAddress, 4096)
                XCTAssertTrue(message { POEvaluateDescribing(
                    "console.log('patched ' + 1);\ndefineClass('Cart', {\n  total: function () { throw new Error('inside'); }\n});\n",
                    "runtime.js", $0, $1) }.ok)
                XCTAssertEqual(POCartTotal(nil), 100, "the JS error falls back to the original implementation")
            }
        }
        XCTAssertEqual(String(cString: logs), "patched 1\n")
        let reported = String(cString: errors)
        XCTAssertTrue(reported.hasPrefix("3 runtime.js:3:"), reported)
        XCTAssertTrue(reported.contains("inside"), reported)
    }

    func testAppliedNamesAndRevertAll() {
        XCTAssertTrue(message { POEvaluateDescribing("var a = 1;", "one.js", $0, $1) }.ok)
        XCTAssertTrue(message { POEvaluateDescribing("var b = 2;", "two.js", $0, $1) }.ok)
        // Other suites in this process may have left patches applied: these two come last, in order.
        let names = message { POAppliedNames($0, $1); return true }.text.split(separator: ",").map(String.init)
        XCTAssertEqual(Array(names.suffix(2)), ["one.js", "two.js"], "\(names)")
        PORevertAll()
        XCTAssertEqual(message { POAppliedNames($0, $1); return true }.text, "", "revertAll leaves nothing applied")
    }

    func testLimitsRoundTripAndZeroMeansNone() {
        let savedSeconds = PatchEngine.executionTimeLimit, savedBytes = PatchEngine.heapGrowthLimit
        defer { PatchEngine.executionTimeLimit = savedSeconds; PatchEngine.heapGrowthLimit = savedBytes }
        XCTAssertTrue(PatchEngine.isExecutionTimeLimitAvailable, "with the watchdog or without it")
        XCTAssertEqual(POLimitsEndByException(), PatchEngine.limitsEndByException)
        let environment = ProcessInfo.processInfo.environment
        let watchdog = environment["PATCHENGINE_LIMITS_END"] == "watchdog" && environment["PATCHENGINE_PRIVATE_SYMBOLS"] != "absent"
        XCTAssertEqual(POLimitsEndByException(), !watchdog, "the end is thrown unless the watchdog was asked for and its functions are there")
        XCTAssertEqual(PORequestLimitsEndByWatchdog(), watchdog, "after the first use a request only learns the end in force")
        XCTAssertEqual(POLimitsEndByException(), !watchdog, "and changes nothing")
        var seconds = 0.0, bytes: Int64 = 0
        POLimitsRoundTrip(1.5, 64 << 20, &seconds, &bytes)
        XCTAssertEqual(seconds, 1.5)
        XCTAssertEqual(bytes, 64 << 20)
        XCTAssertEqual(PatchEngine.executionTimeLimit, 1.5, "the Objective-C setter sets the engine's limit")
        POLimitsRoundTrip(0, 0, &seconds, &bytes)
        XCTAssertEqual(seconds, 0)
        XCTAssertEqual(bytes, 0)
        XCTAssertNil(PatchEngine.executionTimeLimit, "0 from Objective-C is no limit")
        XCTAssertNil(PatchEngine.heapGrowthLimit)
    }

    func testAClientConfigurationIsCheckedBeforeAnythingStarts() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("objc-client-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let missing = message { POStartClient("https://example.invalid/metadata/", "https://example.invalid/targets/", nil, state.path, false, $0, $1) }
        XCTAssertFalse(missing.ok)
        XCTAssertEqual(missing.text, "client error: the configuration has no bundledRoot")
        let root = state.appendingPathComponent("root.json")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        try Data("{\"signed\": {}}".utf8).write(to: root)
        let insecure = message { POStartClient("http://example.invalid/metadata/", "http://example.invalid/targets/", root.path, state.path, false, $0, $1) }
        XCTAssertFalse(insecure.ok)
        XCTAssertTrue(insecure.text.contains("is not https://"), insecure.text)
        let badRoot = message { POStartClient("https://example.invalid/metadata/", "https://example.invalid/targets/", root.path, state.path, false, $0, $1) }
        XCTAssertFalse(badRoot.ok)
        XCTAssertTrue(badRoot.text.hasPrefix("client error: ") && badRoot.text.contains("bundled root"), badRoot.text)
    }

    /// A configuration that starts: its events reach the block (a repository that refuses the
    /// connection: the update reports no fresh metadata, and nothing is applied).
    func testAStartedClientReportsItsEventsToTheBlock() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("objc-client-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var keys: [PatchFormat.SigningKey] = []
        for _ in 0..<5 { keys.append(try PatchFormat.SigningKey.generate(.ed25519)) }
        let repository = try Repository.create(
            directory: folder.appendingPathComponent("repo"), settings: RepositorySettings(channels: ["production"]),
            keys: InitialKeys(root: [keys[0]], rootThreshold: 1, targets: [keys[1]], snapshot: keys[2], timestamp: keys[3],
                              channels: ["production": keys[4]]))
        let root = folder.appendingPathComponent("root.json")
        try repository.roots[0].serialized().write(to: root)
        // Port 9 on loopback: nothing listens, the connection is refused at once.
        let started = message { POStartClient("http://127.0.0.1:9/metadata/", "http://127.0.0.1:9/targets/", root.path,
                                              folder.appendingPathComponent("state").path, true, $0, $1) }
        XCTAssertTrue(started.ok, started.text)
        XCTAssertTrue(started.text.hasPrefix("refreshFailed: no fresh metadata: "), started.text)
        XCTAssertEqual(POCartTotal(nil), 100)
    }
}
