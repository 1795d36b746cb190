import ConversionCorpus
import Foundation
import PatchAuthoring
import PatchEngine
import XCTest

/// `patchctl convert`'s corpus (Tests/ConversionCorpus): each construct converted to the expected
/// script, and each compiled method called natively and converted, with the same results.
final class ConversionCorpusTests: XCTestCase {
    static let directory = ShopInterface.repository.appendingPathComponent("Tests/ConversionCorpus")

    static func convert(_ file: String, methods: [ObjCConverter.MethodName]? = nil) throws -> ObjCConverter.Result {
        let reader = ClangInterfaceReader(includePaths: [directory.path, directory.appendingPathComponent("include").path])
        return try ObjCConverter.convert(file: directory.appendingPathComponent(file).path, reader: reader, methods: methods)
    }

    /// Paths in the output relative to the corpus folder, so the expected files hold no machine's paths.
    static func relative(_ text: String) -> String {
        text.replacingOccurrences(of: directory.path + "/", with: "")
    }

    static func expected(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent("Expected/\(name)"), encoding: .utf8)
    }

    static let files = [("CCCorpus.m", "CCCorpus"), ("NotCompiled/CCModern.m", "CCModern"), ("CCSilent.m", "CCSilent"),
                        ("NotCompiled/CCSilentModern.m", "CCSilentModern"), ("CCProtocols.m", "CCProtocols")]

    func testCorpusConvertsToTheExpectedScripts() throws {
        for (source, name) in Self.files {
            let result = try Self.convert(source)
            let issues = result.issues.map { Self.relative($0.description) + "\n" }.joined()
            if ProcessInfo.processInfo.environment["PATCHCTL_CORPUS_WRITE"] == "1" {
                try Self.relative(result.script).write(to: Self.directory.appendingPathComponent("Expected/\(name).js"), atomically: true, encoding: .utf8)
                try issues.write(to: Self.directory.appendingPathComponent("Expected/\(name).issues"), atomically: true, encoding: .utf8)
            }
            XCTAssertEqual(Self.relative(result.script), try Self.expected("\(name).js"), source)
            XCTAssertEqual(issues, try Self.expected("\(name).issues"), source)
        }
    }

    /// What can't be converted is reported where it is, with the reason.
    func testLimitsAreReportedAtTheirPlace() throws {
        let result = try Self.convert("CCCorpus.m", methods: [ObjCConverter.MethodName(parsing: "-[CCCorpus unconvertible:]")!])
        let found = result.errors.map { Self.relative($0.description) }
        XCTAssertEqual(found, [
            "CCCorpus.m:165:21: error: a C array (a patch has no C memory)",
            "CCCorpus.m:167:5: error: pointer arithmetic",
            "CCCorpus.m:168:5: error: @try/@catch: an Objective-C exception can't be caught in a patch",
            "CCCorpus.m:173:1: error: a goto label has no equivalent in JavaScript",
        ])
        // The script throws at each place rather than running without it.
        XCTAssertTrue(result.script.contains("throw new Error('patchctl convert: not converted: pointer arithmetic ("), result.script)
        XCTAssertThrowsError(try Self.convert("CCCorpus.m", methods: [ObjCConverter.MethodName(parsing: "-[CCCorpus missing]")!])) { error in
            XCTAssertTrue("\(error)".contains("not implemented in"), "\(error)")
        }
    }

    /// Calls made natively and again with the converted methods patched in: the results must match.
    static let calls: [String] = [
        "CCCorpus.new().messageSends()", "CCCorpusChild.new().messageSends()", "CCCorpus.new().properties()",
        "CCCorpus.new().literals()", "CCCorpus.new().blocks([3, 4, 5])", "CCCorpus.new().structs()",
        "CCCorpus.new().controlFlow(-1)", "CCCorpus.new().controlFlow(0)", "CCCorpus.new().controlFlow(1)",
        "CCCorpus.new().controlFlow(2)", "CCCorpus.new().controlFlow(5)", "CCCorpus.new().controlFlow(9)",
        "CCCorpus.new().operators_by(17, 5)", "CCCorpus.new().operators_by(-17, 5)", "CCCorpus.new().operators_by(3, -2)",
        "CCCorpus.new().apply_to(block('NSInteger, NSInteger, NSString *', function (v, t) { return v * 10; }), 4)", "CCCorpus.new().formats(7)", "CCCorpus.new().formats(-3)", "CCCorpus.new().formats(255)",
        "CCCorpus.new().casts(2.7)", "CCCorpus.new().casts(-2.7)",
        "(function () { var o = CCCorpus.new(); o.instanceVariables(2); return o.instanceVariables(3); })()",
        "CCCorpus.new().enumsAndTernary(0)", "CCCorpus.new().enumsAndTernary(5)",
        "CCCorpus.new().isLong('abcd')", "CCCorpus.new().isLong('xabcd')", "CCCorpus.new().isLong('ab')",
        "CCCorpus.new().average([1, 2, 4])", "CCCorpus.new().average([])",
        "CCCorpus.kind()", "CCCorpusChild.kind()",
        "(function () { var c = CCCorpusChild.new(); c.setName('kid'); c.setCount(2); return c.describe(); })()",
    ]

    static func run(_ calls: [String], classes: String = "CCCorpus, CCCorpusChild") throws -> [String] {
        try calls.map { call in
            let script = "require('\(classes)'); (function (v) { return typeof v === 'object' && v ? String(v.toJS()) : String(v); })(\(call))"
            return "\(call) = \(try PatchEngine.evaluate(script, name: "corpus-call.js") ?? "nil")"
        }
    }

    func testConvertedMethodsBehaveAsTheNativeOnes() throws {
        XCTAssertEqual(cc_corpus_class_count(), 2)
        // -dealloc runs when JS's objects are collected, after this test; -unconvertible: is the limits case.
        try Self.assertConvertedBehaveAsNative("CCCorpus.m", calls: Self.calls, classes: "CCCorpus, CCCorpusChild",
                                               skipping: ["dealloc", "unconvertible:"])
    }

    /// `calls` made natively and again with `file`'s methods (but those `skipping`) converted and
    /// patched in: the results must match, no converted method may fail, and each must have run.
    static func assertConvertedBehaveAsNative(_ file: String, calls: [String], classes: String, skipping: Set<String>,
                                              line: UInt = #line) throws {
        let native = try run(calls, classes: classes)
        let runnable = try convert(file).methods.filter { !skipping.contains($0.selector) }
        let converted = try convert(file, methods: runnable)
        XCTAssertEqual(converted.errors, [], line: line)
        _ = try PatchEngine.evaluate("globalThis.roundTripCalls = {};", name: "corpus-counter.js")
        _ = try PatchEngine.evaluate(ShopRoundTripTests.instrumented(converted.script), name: "corpus.js")
        defer {
            try? PatchEngine.revert("corpus.js")
            for name in ["corpus-counter.js", "corpus-call.js", "corpus-read.js"] { try? PatchEngine.revert(name) }
        }
        // A JS method that fails falls back to the native one: every failure is an error here.
        let failures = EngineFailures()
        let patched = try failures.during { try run(calls, classes: classes) }
        XCTAssertEqual(patched, native, line: line)
        XCTAssertEqual(failures.messages, [], line: line)
        let ran = try PatchEngine.evaluate("JSON.stringify(Object.keys(globalThis.roundTripCalls || {}).sort())", name: "corpus-read.js") as? String ?? ""
        for method in runnable {
            XCTAssertTrue(ran.contains("\"\(method)\""), "\(method) did not run: \(ran)", line: line)
        }
    }
}

/// What the engine reports (errors and log lines) while a block runs: a patched method that throws
/// is reported and its native caller gets the original implementation's result.
final class EngineFailures {
    private(set) var messages: [String] = []

    func during<T>(_ body: () throws -> T) rethrows -> T {
        let handler = PatchEngine.errorHandler, log = PatchEngine.logHandler
        PatchEngine.errorHandler = { [unowned self] in messages.append("\($0)") }
        PatchEngine.logHandler = { [unowned self] in messages.append($0) }
        defer {
            PatchEngine.errorHandler = handler
            PatchEngine.logHandler = log
        }
        return try body()
    }
}
