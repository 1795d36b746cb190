import Foundation
import XCTest
import PatchEngine
import PatchFixtures
import CPatchEngine

/// Base class of the engine tests: every script is applied under a unique name and
/// reverted when the test ends, so tests are independent and run in any order.
class PatchTestCase: XCTestCase {
    /// No entry into JS outlives the call that made it: a thread left inside an entry would have
    /// its later calls counted as nested in it, and the time limit would judge them from its start.
    override func tearDown() {
        XCTAssertEqual(PEThreadEntryCurrent(), 0, "an entry into JS was left open on the test's thread")
        super.tearDown()
    }

    private static let counterLock = NSLock()
    nonisolated(unsafe) private static var counter = 0

    /// A number no other call in this process has returned.
    static func nextNumber() -> Int {
        counterLock.lock()
        defer { counterLock.unlock() }
        counter += 1
        return counter
    }

    /// A script name unique in this process ("<TestClass>-<n>.js").
    func uniqueScriptName() -> String {
        "\(type(of: self))-\(Self.nextNumber()).js"
    }

    /// A class name unique in this process. Classes, once registered, cannot be removed
    /// from the Objective-C runtime, so every test that creates one uses a fresh name.
    func uniqueClassName(_ prefix: String) -> String {
        "\(prefix)\(Self.nextNumber())"
    }

    /// Evaluates `script` under a unique (or the given) name and reverts it at tear-down.
    /// Returns the script's completion value.
    @discardableResult
    func apply(_ script: String, name: String? = nil) throws -> Any? {
        let scriptName = name ?? uniqueScriptName()
        addTeardownBlock { try? PatchEngine.revert(scriptName) }
        return try PatchEngine.evaluate(script, name: scriptName)
    }

    /// Evaluates a script that must fail and returns its `PatchError` (nil after
    /// recording a failure if it did not fail). Reverted at tear-down in case it applied.
    func applyExpectingError(_ script: String, name: String? = nil,
                             file: StaticString = #filePath, line: UInt = #line) -> PatchError? {
        let scriptName = name ?? uniqueScriptName()
        addTeardownBlock { try? PatchEngine.revert(scriptName) }
        do {
            let value = try PatchEngine.evaluate(script, name: scriptName)
            XCTFail("expected the script to fail, it returned \(String(describing: value))", file: file, line: line)
            return nil
        } catch let error as PatchError {
            return error
        } catch {
            XCTFail("expected a PatchError, got \(error)", file: file, line: line)
            return nil
        }
    }

    /// Runs the main run loop until `condition` holds or `timeout` passes (a safety net,
    /// not a measurement). Lets work queued on the main queue run.
    @discardableResult
    func waitUntil(timeout: TimeInterval = 10, _ condition: () -> Bool) -> Bool {
        runMainLoop(timeout: timeout, until: condition)
    }

    /// Collects what the engine reports through `errorHandler` during one test.
    func captureErrors() -> ErrorCollector {
        let collector = ErrorCollector()
        let previous = PatchEngine.errorHandler
        PatchEngine.errorHandler = { collector.append($0) }
        addTeardownBlock { PatchEngine.errorHandler = previous }
        return collector
    }

    /// Collects `console.log` output during one test.
    func captureLog() -> LogCollector {
        let collector = LogCollector()
        let previous = PatchEngine.logHandler
        PatchEngine.logHandler = { collector.append($0) }
        addTeardownBlock { PatchEngine.logHandler = previous }
        return collector
    }
}

/// Runs the current (main) run loop until `condition` holds or `timeout` passes.
@discardableResult
func runMainLoop(timeout: TimeInterval, until condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() > deadline { return false }
        RunLoop.current.run(until: Date().addingTimeInterval(0.01))
    }
    return true
}

/// Thread-safe list of errors reported by the engine.
final class ErrorCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [PatchError] = []
    func append(_ error: PatchError) { lock.lock(); items.append(error); lock.unlock() }
    var errors: [PatchError] { lock.lock(); defer { lock.unlock() }; return items }
}

/// Thread-safe list of log lines.
final class LogCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func append(_ line: String) { lock.lock(); items.append(line); lock.unlock() }
    var lines: [String] { lock.lock(); defer { lock.unlock() }; return items }
}

/// Takes ownership of a malloc'd C string from a fixture and frees it.
/// True when the engine runs without libffi, as on iOS (`PATCHENGINE_WITHOUT_LIBFFI=1`): calls that
/// only libffi can make (non-register blocks from JS, C functions with such arguments, variadic
/// methods, swizzles of such methods) are then clear errors, which the tests assert instead.
let runsWithoutLibFFI: Bool = {
    guard let value = ProcessInfo.processInfo.environment["PATCHENGINE_WITHOUT_LIBFFI"] else { return false }
    return !value.isEmpty && value != "0"
}()
let needsLibFFIMessage = "needs libffi, which this platform doesn't have (iOS)"

/// True when every private symbol is reported absent (`PATCHENGINE_PRIVATE_SYMBOLS=absent`, the App
/// Store configuration's run): tests of what a symbol gives skip (docs/private-symbols.md).
let runsWithoutPrivateSymbols = ProcessInfo.processInfo.environment["PATCHENGINE_PRIVATE_SYMBOLS"] == "absent"

/// True when the limits end an entry with JavaScriptCore's watchdog: asked for
/// (`PATCHENGINE_LIMITS_END=watchdog`, the run `make test` makes for it) where its functions exist.
/// Otherwise the default end, the exception at the check points (`PatchEngine.LimitEnd`).
let runsWithWatchdogEnd = ProcessInfo.processInfo.environment["PATCHENGINE_LIMITS_END"] == "watchdog" && !runsWithoutPrivateSymbols

/// The calling thread's CPU time in seconds. Tests bound what a thread itself spent with it, not
/// wall time, which a busy machine stretches (issue 36: no test depends on an idle machine).
func threadCPUTime() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

func take(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
    guard let pointer else { return nil }
    defer { free(pointer) }
    return String(cString: pointer)
}

/// The canonical description of an object handed back by `evaluate` (see pf_describe).
func describe(_ value: Any?) -> String? {
    guard let object = value as? ObjCObject else { return nil }
    return take(pf_describe(object.pointer))
}

/// A JS helper scripts prepend when a value may be a JS string or a boxed NSString
/// (JSPatch gives JS strings from JS-defined methods, boxed NSStrings from Objective-C).
let jsToString = """
function S(v) { return (typeof v === 'string') ? v : (v ? v.toJS() : v); }

"""

/// A deterministic text form of a value `evaluate` returned, for compact assertions:
/// numbers as 42 / 4.5, strings quoted, true / false, nil, [a, b], {key: value} with
/// sorted keys, and objc:<pf_describe text> for an Objective-C object.
func render(_ value: Any?) -> String {
    guard let value else { return "nil" }
    switch value {
    case let number as Double:
        if number == number.rounded(), abs(number) <= 9_007_199_254_740_992 { return String(Int64(number)) }
        return String(number)
    case let string as String:
        return "\"\(string)\""
    case let flag as Bool:
        return flag ? "true" : "false"
    case let array as [Any?]:
        return "[" + array.map(render).joined(separator: ", ") + "]"
    case let dictionary as [String: Any?]:
        return "{" + dictionary.keys.sorted().map { "\($0): \(render(dictionary[$0] ?? nil))" }.joined(separator: ", ") + "}"
    case let object as ObjCObject:
        return "objc:" + (take(pf_describe(object.pointer)) ?? "?")
    default:
        return "unexpected \(type(of: value)): \(value)"
    }
}

/// An object pointer handed to another thread (the fixture objects are used by one
/// thread at a time; the tests arrange that).
struct SendablePointer: @unchecked Sendable {
    let raw: UnsafeMutableRawPointer
}

/// PFDisposable objects deallocated since `pf_probe_reset` (its "native-dealloc" entries).
func disposableDeallocations() -> Int {
    guard let entries = pf_probe_entries() else { return -1 }
    defer { free(entries) }
    return String(cString: entries).split(separator: ",").filter { $0.hasPrefix("native-dealloc") }.count
}
