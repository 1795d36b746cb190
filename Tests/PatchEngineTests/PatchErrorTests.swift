import XCTest
@testable import PatchEngine
final class PatchErrorTests: XCTestCase {
    func testErrorDescription() {
        XCTAssertEqual(PatchError(kind: .syntax, message: "x", scriptName: "a.js", line: 1, column: 2).description, "a.js:1:2: syntax error: x")
    }
}
