import PatchEngine
import PatchFixtures
import XCTest

/// Methods taken over by the dispatcher keep their identity however many there are: register-only
/// signatures use a pool of precompiled entry functions (1024), then libffi closures.
final class DispatcherEntryTests: PatchTestCase {
    func testEveryTakenOverMethodReachesItsOwnImplementation() throws {
        let className = uniqueClassName("PFManyMethods")
        let count = 1100   // past the precompiled pool, whatever earlier tests used
        let methods = (0..<count).map { "m\($0)_: function(x) { return 'm\($0):' + x.toJS(); }" }.joined(separator: ",\n")
        try apply("defineClass('\(className)', {\n\(methods)\n})")
        let object = pf_new(className)
        defer { release(object) }
        for i in stride(from: 0, to: count, by: 1) {
            XCTAssertEqual(take(pf_send_str(object, "m\(i):", "a")), "\"m\(i):a\"", "method \(i)")
        }
    }
}
