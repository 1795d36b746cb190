import Foundation
import XCTest
import PatchRuntime
import PatchFixtures

/// Aspects' option values (PEHooks.h), as the Int32 the fixtures take.
enum HookOption {
    static let after = Int32(PEHookPositionAfter.rawValue)
    static let instead = Int32(PEHookPositionInstead.rawValue)
    static let before = Int32(PEHookPositionBefore.rawValue)
    static let automaticRemoval = Int32(PEHookOptionAutomaticRemoval)
}

/// One class family of PFToolkitFamilies.m (see PFToolkitFixture.h): Base, Mid : Base,
/// Leaf : Mid, Deep : Leaf, Sib : Base, and an unrelated Forwarder.
struct ToolkitFamily {
    let prefix: String
    var base: String { prefix + "Base" }
    var mid: String { prefix + "Mid" }
    var leaf: String { prefix + "Leaf" }
    var deep: String { prefix + "Deep" }
    var sib: String { prefix + "Sib" }
    var forwarder: String { prefix + "Forwarder" }

    static let count = 160
    private static let lock = NSLock()
    nonisolated(unsafe) private static var used = 0

    /// A family no other test has touched, or nil when all are taken.
    static func next() -> ToolkitFamily? {
        lock.lock()
        defer { lock.unlock() }
        guard used < count else { return nil }
        used += 1
        return ToolkitFamily(prefix: "PFTk\(used)")
    }
}

extension PERoute: @retroactive CustomStringConvertible {
    public var description: String { self == PERouteClosure ? "closure route" : "forwarding route" }
}

/// Base class of the hook, swizzle and composition tests: a clean layer log per test, fresh
/// class families, and every hook or swizzle a test makes removed when it ends.
class ToolkitTestCase: PatchTestCase {
    private var savedRoute = PERouteForwarding

    /// Both routes a slot can take; tests that exercise the dispatcher run on each.
    static let routes = [PERouteForwarding, PERouteClosure]

    override func setUp() {
        super.setUp()
        savedRoute = PEGetDefaultRoute()
        pf_tk_log_clear()
    }

    override func tearDown() {
        PESetDefaultRoute(savedRoute)
        pf_tk_log_clear()
        super.tearDown()
    }

    /// A fresh family; slots created from now on take `route`.
    func family(_ route: PERoute = PERouteForwarding, file: StaticString = #filePath, line: UInt = #line) throws -> ToolkitFamily {
        PESetDefaultRoute(route)
        guard let family = ToolkitFamily.next() else {
            XCTFail("all \(ToolkitFamily.count) class families are used: add more in PFToolkitFamilies.m", file: file, line: line)
            throw XCTSkip("no family left")
        }
        pf_tk_set_current_family(family.prefix)
        return family
    }

    /// The layer log since the last call, entries separated by spaces.
    func log() -> String { take(pf_tk_log_take()) ?? "" }

    /// A new instance of `className`, released when the test ends.
    func make(_ className: String, file: StaticString = #filePath, line: UInt = #line) -> UnsafeMutableRawPointer? {
        guard let object = pf_new(className) else {
            XCTFail("could not create a \(className)", file: file, line: line)
            return nil
        }
        addTeardownBlock { release(object) }
        return object
    }

    /// Removes a kept token when the test ends (a second removal is harmless).
    func removeAtTearDown(_ handle: Int32) {
        if handle > 0 { addTeardownBlock { _ = pf_tk_remove(handle) } }
    }

    /// A class-level hook that must be accepted.
    @discardableResult
    func hook(_ className: String, _ selector: String, _ options: Int32, _ label: String,
              _ kind: PFHookKind = PFHookLog, file: StaticString = #filePath, line: UInt = #line) -> Int32 {
        var error: UnsafeMutablePointer<CChar>?
        let handle = pf_hook_class(className, selector, options, label, Int32(kind.rawValue), &error)
        if let message = take(error) { XCTFail("hook \(className) \(selector) refused: \(message)", file: file, line: line) }
        removeAtTearDown(handle)
        return handle
    }

    /// An instance hook that must be accepted.
    @discardableResult
    func hook(_ object: UnsafeMutableRawPointer?, _ selector: String, _ options: Int32, _ label: String,
              _ kind: PFHookKind = PFHookLog, file: StaticString = #filePath, line: UInt = #line) -> Int32 {
        var error: UnsafeMutablePointer<CChar>?
        let handle = pf_hook_object(object, selector, options, label, Int32(kind.rawValue), &error)
        if let message = take(error) { XCTFail("instance hook \(selector) refused: \(message)", file: file, line: line) }
        removeAtTearDown(handle)
        return handle
    }

    /// A class-method hook (see pf_hook_class_method for `via`) that must be accepted.
    @discardableResult
    func hookClassMethod(_ className: String, _ selector: String, _ options: Int32, _ label: String, via: Int32,
                         file: StaticString = #filePath, line: UInt = #line) -> Int32 {
        var error: UnsafeMutablePointer<CChar>?
        let handle = pf_hook_class_method(className, selector, options, label, Int32(PFHookLog.rawValue), via, &error)
        if let message = take(error) { XCTFail("class method hook \(selector) refused: \(message)", file: file, line: line) }
        removeAtTearDown(handle)
        return handle
    }

    /// The "code: message" of a class-level hook that must be refused.
    func refusal(_ className: String, _ selector: String, _ options: Int32, _ kind: PFHookKind = PFHookLog,
                 file: StaticString = #filePath, line: UInt = #line) -> String {
        var error: UnsafeMutablePointer<CChar>?
        let handle = pf_hook_class(className, selector, options, "refused", Int32(kind.rawValue), &error)
        removeAtTearDown(handle)
        if handle != 0 { XCTFail("hook \(className) \(selector) was accepted", file: file, line: line) }
        return take(error) ?? "no error"
    }

    /// The "code: message" of an instance hook that must be refused.
    func refusal(_ object: UnsafeMutableRawPointer?, _ selector: String, _ options: Int32, _ kind: PFHookKind = PFHookLog,
                 file: StaticString = #filePath, line: UInt = #line) -> String {
        var error: UnsafeMutablePointer<CChar>?
        let handle = pf_hook_object(object, selector, options, "refused", Int32(kind.rawValue), &error)
        removeAtTearDown(handle)
        if handle != 0 { XCTFail("instance hook \(selector) was accepted", file: file, line: line) }
        return take(error) ?? "no error"
    }

    /// -step of `object` as a native caller sees it ("\"base>mid\"").
    func step(_ object: UnsafeMutableRawPointer?) -> String { take(pf_send(object, "step")) ?? "NULL" }
}

/// Releases an object inside an autorelease pool, as a native caller with a pool would (its
/// -dealloc may be patched, and the forwarding route autoreleases an invocation).
func release(_ object: UnsafeMutableRawPointer?) {
    let pool = PEPoolPush()
    pf_release(object)
    PEPoolPop(pool)
}

/// Every ordering of `items` (n! of them).
func permutations<T>(_ items: [T]) -> [[T]] {
    guard items.count > 1 else { return [items] }
    var result: [[T]] = []
    for (index, item) in items.enumerated() {
        var rest = items
        rest.remove(at: index)
        for tail in permutations(rest) { result.append([item] + tail) }
    }
    return result
}
