import XCTest
import PatchEngine
import PatchFixtures
final class SmokeTests: XCTestCase {
    func testSmoke() {
        XCTAssertEqual(PatchEngine.smoke(), 42 + 4)
        XCTAssertEqual(PFSmoke(), 42)
    }
}
