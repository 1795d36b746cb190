import Foundation
import JSPatchFixtures
import PatchEngine
import XCTest

/// JSPatch's own test suite (`JSPatchTests.m` and its eleven scripts, unmodified, read from
/// `../shared/third_party/jspatch-tests`), run against the engine: each test below is the test
/// of the same name there. The scripts run as written; the native side — the classes they patch
/// and each test's assertions — is in `JSPatchFixtures`. Every assertion is a site
/// (`SiteLog`), checked against `JSPatchSuiteExpectations`; the class prints the count at the end.
///
/// Differences from running it in Xcode, all forced by the platform or by the engine's posture:
/// UIKit/CoreGraphics stand-ins (`JPStandIns.h`); C functions the scripts define must be allowed
/// by the app (`PatchEngine.allowedCFunctions`); the performance tests run once, untimed
/// (benchmarks are `make bench`); the scripts' patches are reverted when the class ends, so the
/// other test classes in this process see the runtime as it was.
final class JSPatchSuiteTests: XCTestCase {
    /// The C functions jsCFunctionTest.js, test.js and performanceTest.js define.
    static let cFunctions: Set<String> = [
        "cfuncWithCGSize", "cfuncWithCGRect", "cfuncWithId", "cfuncWithInt", "cfuncWithCGFloat",
        "cfuncReturnPointer", "cfuncWithPointerIsEqual", "cfuncVoid", "NSClassFromString", "malloc",
    ]

    private static var scriptNames: Set<String> = []
    private static var previousCFunctions: Set<String> = []
    private static var prepared = false

    override class func setUp() {
        super.setUp()
        previousCFunctions = PatchEngine.allowedCFunctions
        PatchEngine.allowedCFunctions = previousCFunctions.union(cFunctions)
        jpf_set_main_queue_runner { seconds, fn, argument in
            let call = UncheckedCall(fn: fn, argument: argument)
            DispatchQueue.main.asyncAfter(deadline: .now() + seconds) { call.fn?(call.argument) }
        }
    }

    override class func tearDown() {
        for name in scriptNames where PatchEngine.appliedPatchNames.contains(name) { try? PatchEngine.revert(name) }
        PatchEngine.allowedCFunctions = previousCFunctions
        printSummary()
        super.tearDown()
    }

    private var scripts: [String: String] = [:]

    /// JSPatchTests.m's setUp: start the engine, add the extensions every test has.
    override func setUpWithError() throws {
        switch JSPatchSuiteFiles.status {
        case let .missing(reason):
            print("\n*** \(reason) ***\n")
            if ProcessInfo.processInfo.environment["PATCHENGINE_REQUIRE_JSPATCH_SUITE"] == "1" {
                XCTFail(reason)
            }
            throw XCTSkip(reason)
        case let .altered(reason):
            XCTFail(reason)
            throw XCTSkip(reason)
        case let .verified(scripts):
            self.scripts = scripts
        }
        evaluate("require('JPEngine').addExtensions(['JPMemory', 'JPStructPointer', 'JPCoreGraphics', 'JPUIKit'])",
                 name: "JSPatchTests-setUp.js")
    }

    /// `[JPEngine evaluateScriptWithPath:]` of the named script. JSPatch reports a script's
    /// exception and goes on to the assertions; so does this (the error is printed).
    private func loadPatch(_ name: String) {
        guard let script = JSPatchSuiteFiles.script(named: name, in: scripts) else {
            XCTFail("the suite has no script \(name).js"); return
        }
        evaluate(script.source, name: script.url.path)
    }

    private func evaluate(_ source: String, name: String) {
        Self.scriptNames.insert(name)
        do { try PatchEngine.evaluate(source, name: name) } catch {
            print("JSPatch suite: \(name): \(error)")
        }
    }

    /// The value of a global the script set (`[JPEngine context][name]`), as the object behind it.
    private func contextObject(_ name: String) -> ObjCObject? {
        let reader = "JSPatchTests-read-\(name).js"
        defer { try? PatchEngine.revert(reader) }
        return (try? PatchEngine.evaluate("typeof \(name) === 'undefined' ? null : \(name)", name: reader)) as? ObjCObject
    }

    /// Checks the sites `test` reported against the expectations.
    private func verify(_ test: String, file: StaticString = #filePath, line: UInt = #line) {
        let sites = SiteLog.shared.sites(of: test)
        let expected = JSPatchSuiteExpectations.siteCounts[test] ?? 0
        XCTAssertEqual(sites.count, expected, "\(test) reported \(sites.count) of its \(expected) assertion sites", file: file, line: line)
        for (site, outcome) in sites {
            let knownFailing = JSPatchSuiteExpectations.failing[site]
            switch outcome {
            case .passed:
                if knownFailing != nil {
                    XCTFail("\(site) passes now: take it off JSPatchSuiteExpectations.failing", file: file, line: line)
                }
            case let .failed(note):
                if knownFailing == nil {
                    XCTFail("\(site) failed" + (note.map { ": \($0)" } ?? ""), file: file, line: line)
                }
            case let .skipped(reason):
                if JSPatchSuiteExpectations.skippable[site] == nil {
                    XCTFail("\(site) was skipped (\(reason)) but is not expected to be", file: file, line: line)
                }
            }
        }
    }

    private var log: SiteLog { SiteLog.shared }

    // MARK: JSPatchTests.m's tests, in its order

    func testEngine() {
        loadPatch("test")
        let obj = contextObject("ocObj"), subObj = contextObject("subObj")
        jpf_engine_checks(obj?.pointer, subObj?.pointer, SiteLog.check, log.context)
        let done = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        done.initialize(to: 0)
        jpf_engine_gcd_start(obj?.pointer, SiteLog.check, log.context, done)
        let deadline = Date().addingTimeInterval(10)
        while done.pointee == 0, Date() < deadline { RunLoop.current.run(until: Date().addingTimeInterval(0.01)) }
        if done.pointee == 0 {
            jpf_engine_gcd_timed_out(SiteLog.check, log.context)
            // The block may still be called later; it must find its flag, so `done` stays allocated.
        } else {
            done.deallocate()
        }
        withExtendedLifetime((obj, subObj)) { verify("testEngine") }
    }

    func testJSClass() {
        loadPatch("jsClassTest")
        jpf_js_class_checks(SiteLog.check, log.context)
        verify("testJSClass")
    }

    func testSuperClass() {
        loadPatch("superTest")
        jpf_super_class_checks(SiteLog.check, log.context)
        verify("testSuperClass")
    }

    func testInheritance() {
        let state = jpf_inheritance_capture()
        loadPatch("inheritTest")
        jpf_inheritance_checks(state, SiteLog.check, log.context)
        verify("testInheritance")
    }

    func testCFunction() {
        loadPatch("jsCFunctionTest")
        jpf_cfunction_checks(SiteLog.check, log.context)
        verify("testCFunction")
    }

    func testJPNumber() {
        loadPatch("jsNumberTest")
        jpf_number_checks(SiteLog.check, log.context)
        verify("testJPNumber")
    }

    /// 100 objects, each filled with its own id 100 times through the patched -addValue: by jobs
    /// on a serial queue, then on a concurrent one.
    func testDispatchQueue() {
        loadPatch("multithreadTest")
        let count: Int32 = 100
        let objects = UncheckedPointer(jpf_multithread_objects(count))
        defer { jpf_multithread_release(objects.value) }
        let queues = [("serial queue test failed", DispatchQueue(label: "serial queue")),
                      ("concurrent queue test failed", DispatchQueue(label: "concurrent queue", attributes: .concurrent))]
        for (index, (message, queue)) in queues.enumerated() {
            let group = DispatchGroup()
            let wrong = LockedCount()
            for i in 0..<count {
                queue.async(group: group) { if !jpf_multithread_job(objects.value, i, count) { wrong.increment() } }
            }
            let finished = group.wait(timeout: .now() + 120) == .success
            let site = "testDispatchQueue:\(index + 1) \(message)"
            log.record(site, finished && wrong.value == 0 ? .passed
                       : .failed(finished ? "\(wrong.value) objects held another object's values" : "the jobs did not finish"))
        }
        verify("testDispatchQueue")
    }

    /// JSPatchTests.m's twelve performance tests: each loads performanceTest.js and measures one
    /// method; here each runs once, untimed, and must not report errors.
    func testPerformanceScripts() {
        let errors = LockedCount()
        let previous = PatchEngine.errorHandler
        PatchEngine.errorHandler = { error in print("JSPatch suite: \(error)"); errors.increment() }
        defer { PatchEngine.errorHandler = previous }
        for selector in ["testJSCallOCEmptyMethod", "testJSCallOCMethodWithParamObject", "testJSCallOCMethodReturnObject",
                         "testOCCallEmptyMethod", "testOCCallMethodWithParamObject", "testOCCallMethodReturnObject",
                         "testJSCallJSEmptyMethod", "testJSCallJSMethodWithParam", "testJSCallJSMethodWithLargeDictionaryParam",
                         "testJSCallJSMethodWithLargeDictionaryParamAutoConvert", "testJSCallMallocJPMemory",
                         "testJSCallMallocJPCFunction"] {
            loadPatch("performanceTest")
            jpf_performance_run(selector)
        }
        XCTAssertEqual(errors.value, 0, "the performance scripts reported errors")
    }

    func testNewBlock() {
        loadPatch("newBlockTest")
        jpf_new_block_checks(SiteLog.check, log.context)
        verify("testNewBlock")
    }

    func testNewProtocol() {
        loadPatch("newProtocolTest")
        jpf_new_protocol_checks(SiteLog.check, log.context)
        verify("testNewProtocol")
    }

    // MARK: Summary

    private static func printSummary() {
        let all = SiteLog.shared.all
        guard !all.isEmpty else { return }
        let passed = all.filter { $0.outcome == .passed }.count
        let skipped = all.filter { if case .skipped = $0.outcome { return true } else { return false } }.count
        var route = PatchEngine.dispatchRoute == .forwarding ? "forwarding route" : "closure route"
        if ProcessInfo.processInfo.environment["PATCHENGINE_WITHOUT_LIBFFI"] == "1" { route += ", without libffi" }
        print("JSPatch suite (\(route)): \(passed) of \(JSPatchSuiteExpectations.totalSites) assertion sites pass, "
              + "\(skipped) skipped, \(all.count - passed - skipped) fail (\(all.count) reported)")
        for (site, outcome) in all {
            switch outcome {
            case .passed: continue
            case let .failed(note): print("  fail \(site)" + (note.map { " — \($0)" } ?? ""))
            case let .skipped(reason): print("  skip \(site) — \(reason)")
            }
        }
    }
}

/// A function and argument handed to the main queue by the fixtures.
private struct UncheckedCall: @unchecked Sendable {
    let fn: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?
    let argument: UnsafeMutableRawPointer?
}

private struct UncheckedPointer: @unchecked Sendable {
    let value: UnsafeMutableRawPointer?
    init(_ value: UnsafeMutableRawPointer?) { self.value = value }
}

private final class LockedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}
