import Foundation
import XCTest
import PatchRuntime
@testable import PatchEngine

/// A call of a JS-defined method made from JS directly (DirectCalls.swift) gives exactly what the
/// same call through Objective-C gives: for every type encoding a method can take or return, and
/// every kind of JS value, the same value (or the same error thrown to the caller), the same value
/// received by the method, and the same errors reported.
///
/// Two classes with the same methods: calls of the first are direct, calls of the second cross
/// into Objective-C (an empty `after` hook on each of its methods keeps them native entries).
final class DirectCallEquivalenceTests: PatchTestCase {
    /// Type names as defineProtocol takes them, with a short name for the method names.
    static let encodings: [(name: String, type: String)] = [
        ("Id", "id"), ("Char", "char"), ("UChar", "unsigned char"), ("Short", "short"), ("UShort", "unsigned short"),
        ("Int", "int"), ("UInt", "unsigned int"), ("Long", "long"), ("ULong", "unsigned long"),
        ("LongLong", "long long"), ("ULongLong", "unsigned long long"), ("Float", "float"), ("Double", "double"),
        ("Bool", "BOOL"), ("Sel", "SEL"), ("Class", "Class"), ("Point", "CGPoint"), ("Block", "block"),
    ]


    /// JS expressions for values of every kind: numbers at the edges of every type, NaN, ±0, ±∞,
    /// BigInt, Symbol, strings, null and undefined, booleans, plain and exotic objects, boxes
    /// (strong, weak, nil, class, number, string), structs and functions.
    static let values: [String] = [
        "0", "-0", "1", "-1", "127", "128", "-128", "-129", "255", "256", "32767", "32768", "-32768", "-32769",
        "65535", "65536", "2147483647", "2147483648", "-2147483648", "-2147483649", "4294967295", "4294967296",
        "9007199254740991", "9007199254740993", "Math.pow(2, 63)", "-Math.pow(2, 63)", "Math.pow(2, 64)", "1.5", "-1.5",
        "0.1", "1e300", "-1e300", "3.4028234663852886e38", "3.5e38", "1e-45", "5e-324", "NaN", "Infinity", "-Infinity",
        "true", "false", "null", "undefined", "''", "'abc'", "'12'", "' 7 '", "'NaN'",
        "0n", "1n", "-1n", "18446744073709551617n", "Symbol('s')",
        "({})", "({ valueOf: function () { return 7; } })", "({ x: 1, y: 2 })", "[]", "[1]", "[1, 2]",
        "Object.create(null)", "new Number(5)", "new Boolean(false)", "new String('x')", "new Date(0)",
        "function () { return 1; }",
        "__eqObject", "__weak(__eqObject)", "NSArray.array().firstObject()", "NSObject", "NSNumber.numberWithInt(3)",
        "NSString.stringWithString('str')",
    ]

    /// What a caller sees of a call, and what the method received: one line per case.
    static let harness = """
    globalThis.__eqObject = require('NSObject').alloc().init();
    globalThis.__eqDescribe = function (v) {
      var t = typeof v;
      if (t === 'number') return 'number ' + (Object.is(v, -0) ? '-0' : String(v));
      if (t === 'bigint') return 'bigint ' + String(v);
      if (t === 'symbol') return 'symbol';
      if (t === 'function') return 'function';
      if (v === null || v === undefined) return String(v);
      if (t === 'object' && Object.getPrototypeOf(v) === Object.getPrototypeOf(__eqObject))
        return 'box ' + (__eqBoxIdentity && v === __eqObject ? 'same ' : '') + String(v).replace(/0x[0-9a-f]+/g, 'ADDR');
      try { return t + ' ' + JSON.stringify(v); } catch (e) { return t + ' (' + Object.prototype.toString.call(v) + ')'; }
    };
    globalThis.__eqOutcome = function (call) {
      globalThis.__eqReceived = 'nothing';
      try { return 'returned ' + __eqDescribe(call()) + '; received ' + __eqReceived; }
      catch (e) { return 'threw ' + String(e && e.message).replace(/DCTEq(Direct|Native)[0-9]+/g, 'CLASS') + '; received ' + __eqReceived; }
    };
    """

    /// Run on a thread of its own: its ≈ 5,000 evaluations would otherwise add seconds to the main
    /// thread's CPU clock, and JavaScriptCore's watchdog still measures a background thread's JS
    /// entered while the main thread is inside JS against a deadline from the main thread's clock
    /// (docs/platform-notes.md; ExecutionTimeLimitTests' dispatched runaway is ended only while
    /// that history is short).
    func testEveryEncodingAndValueKindGivesWhatTheRoundTripGives() throws {
        let direct = uniqueClassName("DCTEqDirect"), native = uniqueClassName("DCTEqNative")
        var protocolEntries: [String] = [], methods: [String] = [], hooks: [String] = []
        for (name, type) in Self.encodings {
            protocolEntries.append("arg\(name)_: { paramsType: '\(type)', returnType: 'void' }")
            methods.append("arg\(name)_: function (v) { globalThis.__eqReceived = __eqDescribe(v); }")
            if name != "Block" {   // a JS function returned as a block is a block of no known type
                protocolEntries.append("res\(name): { paramsType: '', returnType: '\(type)' }")
                methods.append("res\(name): function () { return globalThis.__eqResult; }")
                hooks.append("hook(\(native), 'res\(name)', 'after', function () {});")
            }
            hooks.append("hook(\(native), 'arg\(name):', 'after', function () {});")
        }
        let methodTable = methods.joined(separator: ",\n")
        // Without the private JSWeak functions (the App Store configuration) a crossing into
        // Objective-C and back gives a new box for the same object, so box identity is compared only
        // where the box cache exists (BoxTests assert it there).
        try apply("""
        globalThis.__eqBoxIdentity = \(!runsWithoutPrivateSymbols);
        \(Self.harness)
        defineProtocol('\(direct)Types', { \(protocolEntries.joined(separator: ",\n")) });
        defineClass('\(direct) : NSObject <\(direct)Types>', { \(methodTable) });
        defineClass('\(native) : NSObject <\(direct)Types>', { \(methodTable) });
        \(hooks.joined(separator: "\n"))
        globalThis.__eqDirect = require('\(direct)').alloc().init();
        globalThis.__eqNative = require('\(native)').alloc().init();
        """)
        let errors = captureErrors()
        let result = LockedResult()
        let thread = Thread { result.set(Result { try Self.compareEveryCase(errors) }) }
        thread.start()
        XCTAssertTrue(waitUntil(timeout: 600) { result.value != nil }, "the comparison did not finish")
        let (cases, differences, entries) = try XCTUnwrap(result.value).get()
        // The direct class's calls really were direct: only the native class's entered natively.
        XCTAssertLessThan(entries, UInt64(cases) + 200, "calls of the first class were not direct")
        XCTAssertGreaterThan(cases, 100 * Self.encodings.count)
        XCTAssertEqual(differences.count, 0, "\(differences.count) of \(cases) cases differ:\n" + differences.prefix(80).joined(separator: "\n"))
    }

    /// Every case, through both classes: the number of cases, the differences, and the native
    /// entries into JS patches made meanwhile.
    private static func compareEveryCase(_ errors: ErrorCollector) throws -> (Int, [String], UInt64) {
        var differences: [String] = [], cases = 0
        func outcome(_ call: String) throws -> String {
            let before = errors.errors.count
            let seen = try PatchEngine.evaluate("__eqOutcome(function () { \(call) })", name: "DCTEq.js") as? String ?? "no outcome"
            let reported = errors.errors.dropFirst(before).map {
                $0.message.replacingOccurrences(of: #"DCTEq(Direct|Native)[0-9]+"#, with: "CLASS", options: .regularExpression)
            }
            return seen + (reported.isEmpty ? "" : "; reported " + reported.joined(separator: " | "))
        }
        let entriesBefore = PEDispatchPatchedCallCountOnThisThread()
        for (name, _) in Self.encodings {
            for value in Self.values {
                var calls = ["arg": "return o.arg\(name)_(\(value));"]
                if name != "Block" { calls["res"] = "globalThis.__eqResult = (\(value)); return o.res\(name)();" }
                for (kind, call) in calls.sorted(by: { $0.key < $1.key }) {
                    cases += 1
                    let viaDirect = try outcome("var o = __eqDirect; \(call)")
                    let viaNative = try outcome("var o = __eqNative; \(call)")
                    if viaDirect != viaNative {
                        differences.append("\(kind) \(name) \(value):\n  direct: \(viaDirect)\n  native: \(viaNative)")
                    }
                }
            }
        }
        return (cases, differences, PEDispatchPatchedCallCountOnThisThread() - entriesBefore)
    }
}

private final class LockedResult: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Result<(Int, [String], UInt64), Error>?
    func set(_ result: Result<(Int, [String], UInt64), Error>) { lock.lock(); stored = result; lock.unlock() }
    var value: Result<(Int, [String], UInt64), Error>? { lock.lock(); defer { lock.unlock() }; return stored }
}
