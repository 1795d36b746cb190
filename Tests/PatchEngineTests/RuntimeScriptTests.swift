import Foundation
import XCTest
import CPatchEngine
import PatchRuntime
@testable import PatchEngine

/// runtime.js, direct.js and jspatch.js compiled into the library (CPatchEngine's PERuntimeScript.c)
/// are the files people edit, byte for byte, and are what the engine runs.
final class RuntimeScriptTests: XCTestCase {
    private func script(_ name: String) throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/CPatchEngine/Scripts/\(name)")
        return try String(contentsOf: url, encoding: .utf8)
    }

    func testEmbeddedRuntimeScriptIsTheScriptFile() throws {
        let file = try script("runtime.js")
        XCTAssertEqual(String(cString: PERuntimeScriptSource()), file)
        XCTAssertEqual(EngineScript.runtime.source, file)
    }

    func testEmbeddedDirectCallsScriptIsTheScriptFile() throws {
        let file = try script("direct.js")
        XCTAssertEqual(String(cString: PEDirectCallsScriptSource()), file)
        XCTAssertEqual(EngineScript.directCalls.source, file)
    }

    func testEmbeddedJSPatchScriptIsTheScriptFile() throws {
        let file = try script("jspatch.js")
        XCTAssertEqual(String(cString: PEJSPatchScriptSource()), file)
        XCTAssertEqual(EngineScript.jspatch.source, file)
    }
}
