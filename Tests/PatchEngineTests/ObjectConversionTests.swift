import Foundation
import PatchEngine
import XCTest

/// JS values converted to Foundation objects (an argument, a result, a dictionary's values) are a
/// native loop over a value the script chose: one no time limit ends. Each case here crashed or
/// hung the app before; now each is refused with an error naming the bound, which the script can
/// catch, and the engine goes on.
final class ObjectConversionTests: PatchTestCase {
    /// `d.setObject_forKey(value, 'k')` for a value the script builds first.
    private func storing(_ build: String) -> String {
        """
        \(build)
        var d = require('NSMutableDictionary').dictionary(), error = '';
        try { d.setObject_forKey(value, 'k'); } catch (e) { error = String(e); }
        error
        """
    }

    func testAnArrayInsideItselfIsRefusedNotACrash() throws {
        // Before: a stack overflow (the process ended with SIGSEGV).
        let cycle = try apply(storing("var value = [1]; value.push({ list: value });")) as? String
        XCTAssertTrue(cycle?.hasSuffix("setObject:forKey:][1].list contains itself: an array or object inside itself can't become an NSArray or NSDictionary") ?? false,
                      cycle ?? "")
        XCTAssertEqual(try apply(storing("var o = { n: 1 }; var value = [o, o, { p: o }];")) as? String, "", "the same object twice is no cycle")
    }

    func testTheLongestArrayIsRefusedAtOnce() throws {
        // Before: an NSArray grown until memory ran out (aborted under a 4 GB address-space cap).
        let started = threadCPUTime()   // CPU, not wall time: the machine may be busy
        let longest = try apply(storing("var value = []; value.length = 4294967295;")) as? String
        XCTAssertTrue(longest?.hasSuffix("setObject:forKey:] has 4294967295 elements, more than the 1000000 allowed") ?? false, longest ?? "")
        XCTAssertLessThan(threadCPUTime() - started, 5)
        let many = try apply(storing("var value = []; for (var i = 0; i < 600; i++) value.push(new Array(2000).fill(i));")) as? String
        XCTAssertTrue(many?.hasSuffix("the value holds more than 1000000 values, the most one conversion to Objective-C makes") ?? false, many ?? "")
        XCTAssertEqual(try apply(storing("var value = new Array(100000).fill('x');")) as? String, "", "within the bound")
    }

    func testNestingDeeperThanTheBoundIsRefused() throws {
        let deep = try apply(storing("var value = 'bottom'; for (var i = 0; i < 150; i++) value = [value];")) as? String
        XCTAssertTrue(deep?.hasSuffix("is nested deeper than 100 levels, the most a conversion to Objective-C follows") ?? false, deep ?? "")
        XCTAssertEqual(try apply(storing("var value = 'bottom'; for (var i = 0; i < 99; i++) value = [value];")) as? String, "")
    }

    /// An argument list that is no array, or a huge one: `length` read as a count.
    func testAnArgumentListOfAnyLengthIsReadSafely() throws {
        // Before: `{length: NaN}` and `{length: 1e300}` trapped converting to Int (the app crashed).
        let setup = "require('JPEngine').addExtensions(['JPNumber']); "
        for list in ["{}", "{ length: NaN }", "{ length: -5 }"] {
            // No elements: the missing argument reads as undefined, 0 for an int.
            XCTAssertEqual(render(try apply(setup + "OCNumber('NSNumber', 'numberWithInt:', \(list)).intValue()")), "0", list)
        }
        for list in ["{ length: 1e300 }", "{ length: 4294967295 }"] {
            let message = applyExpectingError(setup + "OCNumber('NSNumber', 'numberWithInt:', \(list))")?.message ?? ""
            XCTAssertTrue(message.contains("a message's argument list has 4294967295 elements, more than the 1024 allowed"), "\(list): \(message)")
        }
        XCTAssertEqual(render(try apply(setup + "OCNumber('NSNumber', 'numberWithInt:', { length: 1, 0: 7 }).intValue()")), "7")
    }

    func testAPropertyListOfAnyLengthIsRefused() throws {
        // Before: 2^32 − 1 names read natively (the app hung, growing).
        let error = applyExpectingError("var p = []; p.length = 4294967295; defineClass('PEHugePropertyList : NSObject', p, {})")
        XCTAssertEqual(error?.message, "Error: defineClass properties has 4294967295 elements, more than the 4096 allowed")
    }
}

/// JavaScriptCore's builtins run no check point, so a builtin walking a huge array-like ran under
/// no limit (a minute for `forEach` over 2^32 − 1 holes, with a 0.2 s limit). The Array builtins
/// that walk a length refuse one past 2^24 up front.
final class BuiltinWalkLimitTests: TimeLimitTestCase {
    func testABuiltinWalkOverAHugeLengthIsRefusedAtOnce() throws {
        let started = threadCPUTime()
        for walk in ["a.forEach(function () {})", "a.indexOf(1)", "a.includes(1)", "a.reverse()", "a.fill(0)",
                     "Array.prototype.map.call({ length: 9007199254740991 }, function (x) { return x; })",
                     "Array.from({ length: 4294967295 })", "[].concat([1], a)", "[].concat({ length: 4294967295, [Symbol.isConcatSpreadable]: true })",
                     "new Uint8Array(33554432).sort()", "new Float64Array(16777217).indexOf(1)", "new Uint8Array(16777217).join()",
                     "Uint8Array.from({ length: 4294967295 })", "new Uint8Array(1).set({ length: 4294967295 })",
                     "[a].flat()", "[[1, [a]]].flat(Infinity)", "[1].flatMap(function () { return a; })", "Array.from(a)",
                     "Int8Array.from(a)", "'ab'.repeat(8388609)", "''.padStart(16777217, 'x')", "'x'.padEnd(16777217)"] {
            let error = applyExpectingError("var a = []; a.length = 4294967295; \(walk)")
            XCTAssertTrue(error?.message.contains(": more than the 16777216 a builtin may walk in a patch") ?? false,
                          "\(walk): \(error?.message ?? "no error")")
        }
        XCTAssertLessThan(threadCPUTime() - started, 2, "each refused before it walked")
    }

    func testBuiltinsStayTheSameOtherwise() throws {
        XCTAssertEqual(render(try apply("""
            var a = [3, 1, 2];
            [a.map(function (x) { return x * 2; }).join(','), a.slice().sort().join(','), a.indexOf(2),
             Array.prototype.forEach.name, Array.prototype.forEach.length, Array.from('ab').join(''),
             Array.from({ length: 2 }, function (_, i) { return i; }).join(','), [1, [2, [3]]].flat(2).length,
             Array.prototype.reduce.call({ length: 2, 0: 'x', 1: 'y' }, function (s, c) { return s + c; }, '')]
            """)), #"["6,2,4", "1,2,3", 2, "forEach", 1, "ab", "0,1", 3, "xy"]"#)
        XCTAssertEqual(render(try apply("""
            var t = new Uint8Array(4); t.set([7, 8], 1);
            [[1].concat([2, 3], 4, { length: 1, 0: 5, [Symbol.isConcatSpreadable]: true }).join(','), [].concat.length,
             new Uint8Array([3, 1, 2]).sort().join(','), t.join(','), Int16Array.from([1, 2], function (x) { return -x; }).join(','),
             Uint8Array.prototype.sort.name, Object.getPrototypeOf(Int8Array).from.name, new Float32Array([1, 2]).map(function (x) { return x / 2; }).join(',')]
            """)), #"["1,2,3,4,5", 1, "1,2,3", "0,7,8,0", "-1,-2", "sort", "from", "0.5,1"]"#)
        XCTAssertEqual(render(try apply("""
            [[1, [2, [3, [4]]]].flat(Infinity).join(','), [1, [2, [3]]].flat().length, [1, [2]].flat(0).length,
             [1, 2].flatMap(function (x) { return [x, this.k]; }, { k: 0 }).join(','), [1].flatMap(function (x) { return x; }).join(','),
             Array.prototype.flatMap.name, Array.prototype.flatMap.length, Array.prototype.flat.length,
             Array.from([1, , 3]).length, Array.from(new Uint8Array([5, 6])).join(','), Uint8Array.from(new Set([7])).join(',')]
            """)), #"["1,2,3,4", 3, 2, "1,0,2,0", "1", "flatMap", 1, 0, 3, "5,6", "7"]"#)
        XCTAssertEqual(render(try apply("""
            var calls = 0, n = { valueOf: function () { calls++; return 3; } };
            ['ab'.repeat(n), calls, 'x'.repeat(0), '5'.padStart(3, '0'), '5'.padEnd(n, 'ab'), 'abc'.padStart(2), calls,
             String.prototype.repeat.call(12, 2), String.prototype.padStart.name, String.prototype.padStart.length, ''.repeat(1e9)]
            """)), #"["ababab", 1, "", "005", "5ab", "abc", 2, "1212", "padStart", 1, ""]"#)
        XCTAssertEqual(applyExpectingError("'x'.repeat(-1)")?.message.hasPrefix("RangeError"), true, "the builtin's own errors stay")
        XCTAssertEqual(applyExpectingError("String.prototype.repeat.call(null, 2)")?.message.hasPrefix("TypeError"), true)
        XCTAssertEqual(applyExpectingError("String.prototype.repeat.call(Symbol(), 2)")?.message.hasPrefix("TypeError"), true)
        XCTAssertEqual(render(try apply("""
            var filled = 0, fill = { toString: function () { filled++; return '-'; } };
            ['a'.padStart(Infinity, ''), 'a'.padEnd(1e10, ''), 'a'.padStart(3, fill), filled, 'a'.padEnd(2, undefined) + '|']
            """)), #"["a", "a", "--a", 1, "a |"]"#, "an empty filler makes no string; a filler is converted once")
    }
}
