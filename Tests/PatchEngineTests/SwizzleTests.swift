import Foundation
import XCTest
import PatchRuntime
import PatchFixtures

/// RSSwizzle families (PFSwizzleFixture.h): A, B : A, C : B, D : C, D2 : C.
struct RSFamily {
    let prefix: String
    var a: String { prefix + "A" }
    var b: String { prefix + "B" }
    var c: String { prefix + "C" }
    var d: String { prefix + "D" }
    var d2: String { prefix + "D2" }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var used = 0
    static func next() -> RSFamily? {
        lock.lock()
        defer { lock.unlock() }
        guard used < 24 else { return nil }
        used += 1
        return RSFamily(prefix: "PFRs\(used)")
    }
}

/// The order-safe swizzle API: RSSwizzle's test cases, then the orders that break the naive
/// helper (parent then child, child then parent, grandchild, sibling, inherited methods) and
/// removal of layers in every order.
final class SwizzleTests: ToolkitTestCase {

    func rsFamily(_ route: PERoute = PERouteForwarding, file: StaticString = #filePath, line: UInt = #line) throws -> RSFamily {
        PESetDefaultRoute(route)
        guard let family = RSFamily.next() else {
            XCTFail("all RSSwizzle families are used: add more in PFSwizzleFixture.m", file: file, line: line)
            throw XCTSkip("no family left")
        }
        return family
    }

    /// A swizzle that must be accepted; removed when the test ends.
    @discardableResult
    func accepted(_ handle: Int32, _ error: UnsafeMutablePointer<CChar>?, _ what: String,
                  file: StaticString = #filePath, line: UInt = #line) -> Int32 {
        if let message = take(error) { XCTFail("\(what) refused: \(message)", file: file, line: line) }
        XCTAssertGreaterThan(handle, 0, what, file: file, line: line)
        removeAtTearDown(handle)
        return handle
    }

    @discardableResult
    func swizzleCalc(_ className: String, _ op: Character, _ operand: Int32,
                     file: StaticString = #filePath, line: UInt = #line) -> Int32 {
        var error: UnsafeMutablePointer<CChar>?
        let handle = pf_swizzle_calc(className, CChar(op.asciiValue!), operand, &error)
        return accepted(handle, error, "calc: of \(className)", file: file, line: line)
    }

    @discardableResult
    func swizzleStep(_ className: String, _ label: String, file: StaticString = #filePath, line: UInt = #line) -> Int32 {
        var error: UnsafeMutablePointer<CChar>?
        let handle = pf_swizzle_step(className, label, &error)
        return accepted(handle, error, "step of \(className)", file: file, line: line)
    }

    // MARK: - RSSwizzle's cases

    /// RSSwizzle's testCalcSwizzling: C, D, C, D, A in that order; [D calc:2] = 585. Every class's
    /// result follows from its own layers around what it inherits, each layer running once.
    func testCalcSwizzlingGives585() throws {
        for route in Self.routes {
            let f = try rsFamily(route)
            let objects = [f.a, f.b, f.c, f.d, f.d2].map { ($0, make($0)) }
            swizzleCalc(f.c, "+", 17)
            swizzleCalc(f.d, "*", 11)
            swizzleCalc(f.c, "*", 5)
            swizzleCalc(f.d, "-", 20)
            swizzleCalc(f.a, "*", -1)
            let d = objects[3].1
            XCTAssertEqual(pf_rs_calc(d, 2), ((2 * (-1) * 3) + 17) * 5 * 11 - 20, "\(route)")
            XCTAssertEqual(pf_rs_calc(d, 2), 585, "\(route)")
            _ = log()
            XCTAssertEqual(pf_rs_calc(d, 2), 585)
            XCTAssertEqual(log(), "*-1 +17 *5 *11 -20", "\(route): each layer once, innermost first")
            let expected = [f.a: -2, f.b: -2, f.c: 55, f.d: 585, f.d2: 55]
            for (name, object) in objects {
                XCTAssertEqual(pf_rs_calc(object, 2), Int32(expected[name]!), "\(route): \(name)")
            }
        }
    }

    /// The same five layers removed in all 120 orders (and put back each time): after every
    /// removal each class's result is the composition of the layers that remain.
    func testCalcLayersRemovedInEveryOrder() throws {
        let f = try rsFamily(PERouteClosure)
        let objects = [f.a, f.b, f.c, f.d, f.d2].map { ($0, make($0)) }
        struct Layer { let cls: String; let op: Character; let operand: Int32 }
        let layers = [Layer(cls: f.c, op: "+", operand: 17), Layer(cls: f.d, op: "*", operand: 11),
                      Layer(cls: f.c, op: "*", operand: 5), Layer(cls: f.d, op: "-", operand: 20),
                      Layer(cls: f.a, op: "*", operand: -1)]
        func apply(_ layer: Layer, _ value: Int32) -> Int32 {
            switch layer.op { case "+": return value + layer.operand; case "-": return value - layer.operand
            default: return value * layer.operand }
        }
        /// Each class: what it inherits (C multiplies by 3 natively), then its own layers in
        /// registration order (the newest is outermost).
        func model(_ active: [Int]) -> [String: Int32] {
            func own(_ cls: String, _ value: Int32) -> Int32 {
                active.sorted().map { layers[$0] }.filter { $0.cls == cls }.reduce(value) { apply($1, $0) }
            }
            let a = own(f.a, 2), b = own(f.b, a), c = own(f.c, b * 3)
            return [f.a: a, f.b: b, f.c: c, f.d: own(f.d, c), f.d2: own(f.d2, c)]
        }
        for (n, order) in permutations(Array(0..<5)).enumerated() {
            let handles = layers.map { swizzleCalc($0.cls, $0.op, $0.operand) }
            var active = Array(0..<5)
            XCTAssertEqual(pf_rs_calc(objects[3].1, 2), 585, "order \(n)")
            for index in order {
                XCTAssertEqual(pf_tk_remove(handles[index]), 1)
                active.removeAll { $0 == index }
                let expected = model(active)
                for (name, object) in objects {
                    XCTAssertEqual(pf_rs_calc(object, 2), expected[name], "removal order \(order), active \(active): \(name)")
                }
            }
            XCTAssertEqual(pf_tk_remove(handles[order[0]]), 0, "a layer removes once")
        }
        _ = log()
    }

    /// RSSwizzle's testDeallocSwizzling: D (implements no -dealloc), C, D2, D, C, A; freeing a D
    /// runs D's layers (newest first), C's layers, C's own -dealloc, then A's layer.
    func testDeallocSwizzling() throws {
        for route in Self.routes {
            let f = try rsFamily(route)
            var error: UnsafeMutablePointer<CChar>?
            var handles: [Int32] = []
            for (cls, label) in [(f.d, "d"), (f.c, "c"), (f.d2, "d2"), (f.d, "d'"), (f.c, "c'"), (f.a, "a")] {
                handles.append(accepted(pf_swizzle_void(cls, "dealloc", 0, nil, label, &error), error, "dealloc of \(cls)"))
            }
            release(pf_new(f.d))
            XCTAssertEqual(log(), "d' d c' c C a", "\(route)")
            release(pf_new(f.d2))
            XCTAssertEqual(log(), "d2 c' c C a", "\(route): D's layers don't reach its sibling")
            release(pf_new(f.b))
            XCTAssertEqual(log(), "a", "\(route)")
            for handle in handles { XCTAssertEqual(pf_tk_remove(handle), 1) }
            release(pf_new(f.d))
            XCTAssertEqual(log(), "C", "\(route)")
        }
    }

    func testStringSwizzling() throws {
        let f = try rsFamily()
        let a = make(f.a)
        var error: UnsafeMutablePointer<CChar>?
        let token = accepted(pf_swizzle_string(f.a, "DEF", &error), error, "string")
        XCTAssertEqual(take(pf_rs_string(a)), "\"ABCDEF\"")
        XCTAssertEqual(pf_tk_remove(token), 1)
        XCTAssertEqual(take(pf_rs_string(a)), "\"ABC\"")
    }

    /// RSSwizzle's testClassSwizzling: a class method swizzled on B doubles B's and C's results
    /// (float and double arguments), not A's.
    func testClassMethodSwizzling() throws {
        for route in Self.routes {
            let f = try rsFamily(route)
            var error: UnsafeMutablePointer<CChar>?
            // A float and a double: without libffi the original reaches the block through a
            // mixed-register entry.
            let token = accepted(pf_swizzle_sum_doubled(f.b, &error), error, "sumFloat:withDouble:")
            XCTAssertEqual(take(pf_rs_sum(f.a, 0.5, 1.5)), "2", "\(route)")
            XCTAssertEqual(take(pf_rs_sum(f.b, 0.5, 1.5)), "4", "\(route)")
            XCTAssertEqual(take(pf_rs_sum(f.c, 0.5, 1.5)), "4", "\(route)")
            XCTAssertEqual(pf_tk_remove(token), 1)
            XCTAssertEqual(take(pf_rs_sum(f.c, 0.5, 1.5)), "2", "\(route)")
        }
    }

    /// RSSwizzle's throwing tests: here each is a refusal with a message, and nothing changes.
    func testRefusedSwizzles() throws {
        let f = try rsFamily()
        let messages = (0...6).map { take(pf_swizzle_refused(f.a, Int32($0))) }
        for (kind, message) in messages.enumerated() {
            XCTAssertNotNil(message, "kind \(kind) was accepted")
            XCTAssertEqual(message?.hasPrefix("PESwizzleErrorDomain 1: "), true, "kind \(kind): \(message ?? "nil")")
        }
        XCTAssertEqual(messages[5], "PESwizzleErrorDomain 1: -[\(f.a) nonexistent] does not exist")
        XCTAssertEqual(messages[4], "PESwizzleErrorDomain 1: swizzle needs a class, a selector and a block")
        for kind in [0, 1, 2, 3, 6] {
            XCTAssertEqual(messages[kind]?.contains("does not match -[\(f.a) "), true, "kind \(kind): \(messages[kind] ?? "nil")")
        }
        XCTAssertTrue(messages[3]?.contains("(no signature)") == true, messages[3] ?? "nil")
        let a = make(f.a)
        XCTAssertNil(take(pf_tk_send_void(a, "methodForAlwaysSwizzling")))
        XCTAssertEqual(log(), "", "no refused layer was installed")
    }

    // MARK: - Modes (RSSwizzle's testAlwaysSwizzlingMode and friends)

    private func swizzleThreeTimes(_ f: RSFamily, _ selector: String, mode: Int32, key: String?) -> [Int32] {
        var handles: [Int32] = []
        for _ in 0..<3 {
            for (cls, label) in [(f.a, "A"), (f.b, "B")] {
                var error: UnsafeMutablePointer<CChar>?
                let handle = pf_swizzle_void(cls, selector, mode, key, label, &error)
                if let message = take(error) { XCTFail("\(selector) on \(cls): \(message)") }
                removeAtTearDown(handle)
                handles.append(handle)
            }
        }
        return handles
    }

    func testModes() throws {
        let f = try rsFamily()
        let b = make(f.b)
        let always = swizzleThreeTimes(f, "methodForAlwaysSwizzling", mode: 0, key: nil)
        XCTAssertNil(take(pf_tk_send_void(b, "methodForAlwaysSwizzling")))
        XCTAssertEqual(log().replacingOccurrences(of: " ", with: ""), "BBBAAA")
        XCTAssertEqual(always.filter { $0 > 0 }.count, 6)

        let once = swizzleThreeTimes(f, "methodForSwizzlingOncePerClass", mode: 1, key: "\(f.prefix)-oncePerClass")
        XCTAssertNil(take(pf_tk_send_void(b, "methodForSwizzlingOncePerClass")))
        XCTAssertEqual(log().replacingOccurrences(of: " ", with: ""), "BA")
        XCTAssertEqual(once.filter { $0 > 0 }.count, 2, "later attempts return nil without an error")

        let hierarchy = swizzleThreeTimes(f, "methodForSwizzlingOncePerClassOrSuperClasses", mode: 2,
                                          key: "\(f.prefix)-oncePerHierarchy")
        XCTAssertNil(take(pf_tk_send_void(b, "methodForSwizzlingOncePerClassOrSuperClasses")))
        XCTAssertEqual(log().replacingOccurrences(of: " ", with: ""), "A")
        XCTAssertEqual(hierarchy.filter { $0 > 0 }.count, 1)
    }

    /// A once-per-class swizzle that was removed can be applied again with the same key: the
    /// record of "already swizzled" goes with the layer.
    func testOncePerClassAgainAfterRemoval() throws {
        let f = try rsFamily()
        let b = make(f.b)
        let key = "\(f.prefix)-again"
        var error: UnsafeMutablePointer<CChar>?
        let first = pf_swizzle_void(f.b, "methodForSwizzlingOncePerClass", 1, key, "first", &error)
        XCTAssertNil(take(error))
        removeAtTearDown(first)
        XCTAssertEqual(pf_swizzle_void(f.b, "methodForSwizzlingOncePerClass", 1, key, "refused", &error), 0)
        XCTAssertNil(take(error), "nil without an error while the first is in place")
        XCTAssertEqual(pf_tk_remove(first), 1)
        let second = pf_swizzle_void(f.b, "methodForSwizzlingOncePerClass", 1, key, "second", &error)
        XCTAssertNil(take(error))
        removeAtTearDown(second)
        XCTAssertGreaterThan(second, 0, "the first layer is gone, so the class is not swizzled for this key any more")
        XCTAssertNil(take(pf_tk_send_void(b, "methodForSwizzlingOncePerClass")))
        XCTAssertEqual(log(), "second")
    }

    // MARK: - Orders

    /// Layers on Base, Mid, Leaf (which implements nothing) and Deep applied in all 24 orders and
    /// removed in another: each layer runs once, the sibling is untouched, results compose.
    func testStepLayersInEveryOrder() throws {
        for route in Self.routes {
            let f = try family(route)
            var objects: [String: UnsafeMutableRawPointer?] = [:]
            for level in ["Base", "Mid", "Leaf", "Deep", "Sib"] { objects[level] = make(f.prefix + level) }
            let levels = ["Base", "Mid", "Leaf", "Deep"]
            func expected(_ active: Set<String>) -> [String: (String, String)] {
                func s(_ level: String) -> (log: [String], suffix: String) {
                    active.contains(level) ? (["s:\(level)"], ">s:\(level)") : ([], "")
                }
                let base = (s("Base").log + ["Base"], "base" + s("Base").suffix)
                let mid = (s("Mid").log + ["Mid"] + base.0, base.1 + ">mid" + s("Mid").suffix)
                let leaf = (s("Leaf").log + mid.0, mid.1 + s("Leaf").suffix)
                let deep = (s("Deep").log + ["Deep"] + leaf.0, leaf.1 + ">deep" + s("Deep").suffix)
                func pair(_ value: ([String], String)) -> (String, String) { (value.0.joined(separator: " "), "\"\(value.1)\"") }
                return ["Base": pair(base), "Mid": pair(mid), "Leaf": pair(leaf), "Deep": pair(deep), "Sib": pair(base)]
            }
            func check(_ active: Set<String>, _ context: String) {
                for (level, (expectedLog, expectedResult)) in expected(active) {
                    XCTAssertEqual(step(objects[level] ?? nil), expectedResult, "\(route) \(context): \(level)")
                    XCTAssertEqual(log(), expectedLog, "\(route) \(context): \(level)")
                }
            }
            for (n, order) in permutations(levels).enumerated() {
                var handles: [String: Int32] = [:]
                var active = Set<String>()
                for level in order {
                    handles[level] = swizzleStep(f.prefix + level, "s:\(level)")
                    active.insert(level)
                    check(active, "applied \(order.prefix(active.count))")
                }
                let removal = permutations(levels)[(n * 5 + 3) % 24]
                for level in removal {
                    XCTAssertEqual(pf_tk_remove(handles[level]!), 1)
                    active.remove(level)
                    check(active, "applied \(order), removed \(level) of \(removal)")
                }
            }
        }
    }

    /// A parent swizzled after instances of its subclasses were used still gets their calls.
    func testParentSwizzledAfterSubclassesWereUsed() throws {
        for route in Self.routes {
            let f = try family(route)
            let leaf = make(f.leaf), sib = make(f.sib)
            XCTAssertEqual(pf_tk_add(leaf, 1, 2), 3)
            XCTAssertEqual(pf_tk_add(sib, 1, 2), 3)
            var error: UnsafeMutablePointer<CChar>?
            let token = accepted(pf_swizzle_add(f.base, 100, &error), error, "add:to:")
            XCTAssertEqual(pf_tk_add(leaf, 1, 2), 103, "\(route)")
            XCTAssertEqual(pf_tk_add(sib, 1, 2), 103, "\(route)")
            XCTAssertEqual(pf_tk_remove(token), 1)
            XCTAssertEqual(pf_tk_add(leaf, 1, 2), 3, "\(route)")
            _ = log()
        }
    }

    /// Class methods swizzled on parent and child: each layer once, [super kind] included.
    func testClassMethodLayersOnParentAndChild() throws {
        for route in Self.routes {
            let f = try family(route)
            var error: UnsafeMutablePointer<CChar>?
            let child = accepted(pf_swizzle_kind(f.leaf, "s:Leaf", &error), error, "+kind of Leaf")
            let parent = accepted(pf_swizzle_kind(f.base, "s:Base", &error), error, "+kind of Base")
            XCTAssertEqual(take(pf_send_class(f.leaf, "kind")), "\"base>s:Base>mid>s:Leaf\"", "\(route)")
            XCTAssertEqual(log(), "s:Leaf +Mid s:Base +Base", "\(route)")
            XCTAssertEqual(take(pf_send_class(f.sib, "kind")), "\"base>s:Base\"", "\(route)")
            XCTAssertEqual(take(pf_send_class(f.mid, "kind")), "\"base>s:Base>mid\"", "\(route)")
            XCTAssertEqual(log(), "s:Base +Base +Mid s:Base +Base", "\(route)")
            XCTAssertEqual(pf_tk_remove(parent), 1)
            XCTAssertEqual(take(pf_send_class(f.leaf, "kind")), "\"base>mid>s:Leaf\"", "\(route)")
            XCTAssertEqual(pf_tk_remove(child), 1)
            XCTAssertEqual(take(pf_send_class(f.leaf, "kind")), "\"base>mid\"", "\(route)")
            _ = log()
        }
    }
}
