import Foundation
import XCTest
import PatchFixtures

/// What a value crossing into JS becomes is decided by its kind (`PEObjectGetKind`: a number, a
/// boolean, a string, an array…), told by classes looked up at the first use in the process. The
/// first conversions may come from several threads at once: every one of them must get the right
/// kind, including those that arrive while another thread is still looking the classes up.
final class ObjectKindFirstUseTests: XCTestCase {
    func testThreadsArrivingWhileTheFirstLookupRunsGetTheRightKinds() throws {
        guard let child = try runInChildProcess("testThreadsArrivingWhileTheFirstLookupRunsGetTheRightKinds", {
            print("kinds: wrong \(pf_kind_first_use(8))")
            fflush(stdout)
        }) else { return }
        // Before the classes were published whole: 35 kinds of 48 wrong — every one but the string
        // from each of the 7 threads that came during the lookup (42 reached JS as a box, @YES as
        // an object).
        XCTAssertEqual(child.line("kinds: "), "wrong 0", child.output.suffix(2000).description)
        XCTAssertEqual(child.status, 0, child.output.suffix(2000).description)
    }
}
