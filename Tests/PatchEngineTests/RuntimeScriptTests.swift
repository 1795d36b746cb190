import Foundation
import XCTest
import PatchRuntime
@testable import PatchEngine

/// runtime.js compiled into the library (PERuntimeScript.m) is the file people edit, byte for byte.
final class RuntimeScriptTests: XCTestCase {
    private var runtimeFile: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/PatchEngine/Resources/runtime.js")
    }

    func testEmbeddedRuntimeScriptIsTheResourceFile() throws {
        let file = try String(contentsOf: runtimeFile, encoding: .utf8)
        #if os(Linux)
        // The toolchain's clang has #embed: the engine must not depend on the resource bundle here.
        let embedded = try XCTUnwrap(PERuntimeScriptSource(), "runtime.js is not embedded")
        XCTAssertEqual(String(cString: embedded), file)
        #endif
        XCTAssertEqual(Engine.runtimeSource(), file)
    }
}
