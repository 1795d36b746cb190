import Foundation
import XCTest
import PatchEngine
import PatchFixtures

/// After JSPatch's multithread test: 100 objects × 100 patched calls on a serial and on a
/// concurrent queue. Every value must land in the right object (self must never leak
/// between threads) and every call must go through the script.
final class ConcurrencyTests: PatchTestCase {
    private let patch = """
    defineClass('PFAccumulator', {
      addValue: function(n) { self.ORIGaddValue(n + 1000) },
      addValueIndirect: function(n) { self.addValue(n) }
    })
    """

    private func run(on queue: DispatchQueue, file: StaticString = #filePath, line: UInt = #line) throws {
        let errors = captureErrors()
        try apply(patch)
        let objects = (0..<100).map { pf_accumulator_new(Int32($0))! }
        defer { objects.forEach { pf_release($0) } }
        let group = DispatchGroup()
        for (index, object) in objects.enumerated() {
            let target = SendablePointer(raw: object)
            queue.async(group: group) {
                for call in 0..<100 {
                    // Half direct, half through a JS method that calls the patched one.
                    if call % 2 == 0 { pf_accumulator_add(target.raw, Int32(index)) }
                    else { pf_accumulator_add_indirect(target.raw, Int32(index)) }
                }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 300), .success, "calls did not finish (deadlock?)", file: file, line: line)
        var wrong: [String] = []
        for (index, object) in objects.enumerated() {
            if pf_accumulator_count(object) != 100 || pf_accumulator_all_equal(object, Int32(index + 1000)) != 1 {
                wrong.append("object \(index): \(take(pf_accumulator_values(object)) ?? "?")")
            }
        }
        XCTAssertEqual(wrong.count, 0, "first wrong objects: \(wrong.prefix(3))", file: file, line: line)
        XCTAssertEqual(errors.errors.count, 0, "errors: \(errors.errors.prefix(3))", file: file, line: line)
    }

    func testSerialQueue() throws {
        try run(on: DispatchQueue(label: "patchengine.tests.serial"))
    }

    func testConcurrentQueue() throws {
        try run(on: DispatchQueue(label: "patchengine.tests.concurrent", attributes: .concurrent))
    }
}
