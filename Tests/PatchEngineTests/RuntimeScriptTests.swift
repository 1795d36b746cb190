import Foundation
import XCTest
import PatchRuntime
@testable import PatchEngine

/// runtime.js, direct.js and jspatch.js compiled into the library (PERuntimeScript.m) are the files people
/// edit, byte for byte.
final class RuntimeScriptTests: XCTestCase {
    private func resource(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/PatchEngine/Resources/\(name)")
    }
    private var runtimeFile: URL { resource("runtime.js") }

    func testEmbeddedRuntimeScriptIsTheResourceFile() throws {
        let file = try String(contentsOf: runtimeFile, encoding: .utf8)
        #if os(Linux)
        // The toolchain's clang has #embed: the engine must not depend on the resource bundle here.
        let embedded = try XCTUnwrap(PERuntimeScriptSource(), "runtime.js is not embedded")
        XCTAssertEqual(String(cString: embedded), file)
        #endif
        XCTAssertEqual(EngineScript.runtime.source, file)
    }

    func testEmbeddedDirectCallsScriptIsTheResourceFile() throws {
        let file = try String(contentsOf: resource("direct.js"), encoding: .utf8)
        #if os(Linux)
        let embedded = try XCTUnwrap(PEDirectCallsScriptSource(), "direct.js is not embedded")
        XCTAssertEqual(String(cString: embedded), file)
        #endif
        XCTAssertEqual(EngineScript.directCalls.source, file)
    }

    func testEmbeddedJSPatchScriptIsTheResourceFile() throws {
        let file = try String(contentsOf: resource("jspatch.js"), encoding: .utf8)
        #if os(Linux)
        let embedded = try XCTUnwrap(PEJSPatchScriptSource(), "jspatch.js is not embedded")
        XCTAssertEqual(String(cString: embedded), file)
        #endif
        XCTAssertEqual(EngineScript.jspatch.source, file)
    }
}
