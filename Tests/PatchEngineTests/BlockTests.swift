import Foundation
import XCTest
import PatchEngine
import PatchFixtures

/// Blocks both ways: block("ret, args", fn) makes an Objective-C block from a JS
/// function; an Objective-C block arriving in JS is callable; a JS block sent to
/// Objective-C and back still works.
final class BlockTests: PatchTestCase {
    private let host = "var h = require('PFBlockHost').alloc().init();\n"

    func testJSBlockWithStringAndIntArguments() throws {
        let result = try apply(host + """
        h.callStringIntBlock(block('NSString *, NSString *, int', function(s, n) { return s.toJS() + ':' + n })).toJS()
        """)
        XCTAssertEqual(render(result), "\"stringFromOC:42\"")
    }

    func testJSBlockWithDoubleArgumentAndResult() throws {
        let script = host + "h.callDoubleBlock_with(block('double, double', function(x) { return x * 2.5 }), 4)"
        XCTAssertEqual(render(try apply(script)), "10")
    }

    /// Without libffi (iOS) a block's arguments must all arrive in registers: nine doubles are one
    /// more than the eight floating-point argument registers, and the script gets a clear error.
    func testJSBlockBeyondTheRegisters() throws {
        let nine = Array(repeating: "double", count: 10).joined(separator: ", ")
        let script = "block('\(nine)', function(a, b, c, d, e, f, g, h, i) { return a + i })"
        if runsWithoutLibFFI {
            let error = applyExpectingError(script)
            XCTAssertTrue(error?.message.contains("more than 6 integer or 8 floating-point ones") ?? false, "\(String(describing: error))")
            XCTAssertTrue(error?.message.contains(needsLibFFIMessage) ?? false, "\(String(describing: error))")
        } else {
            XCTAssertNoThrow(try apply(script))
        }
    }

    /// A block of an NSRange and doubles (NSString's enumerateSubstringsInRange: hands blocks two
    /// NSRanges): integer structs in integer registers, doubles apart, on every route.
    func testJSBlockWithRangeAndDoubleArguments() throws {
        let result = try apply(host + """
        h.callRangeBlock(block('NSRange, NSRange, double, NSRange', function(r, d, s) {
          return { location: r.location + s.location + d, length: r.length + s.length }
        })).toJS()
        """)
        XCTAssertEqual(render(result), "\"12/34\"")
    }

    func testVoidJSBlock() throws {
        let result = try apply(host + """
        var calls = 0;
        var ran = h.callVoidBlock(block('void', function() { calls = calls + 1 }));
        [ran ? 1 : 0, calls]
        """)
        XCTAssertEqual(render(result), "[1, 1]")
    }

    func testNullForABlockParameterIsNil() throws {
        let result = try apply(host + "[h.callVoidBlock(null) ? 1 : 0, h.callStringIntBlock(null).toJS()]")
        XCTAssertEqual(render(result), "[0, \"no block\"]")
    }

    func testObjCBlocksAreCallableInJS() throws {
        let result = try apply(host + """
        var join = h.makeJoiner();
        var scale = h.makeScaler(3);
        [join('a', 3).toJS(), scale(1.5)]
        """)
        XCTAssertEqual(render(result), "[\"a-3\", 4.5]")
    }

    func testNilArgumentsToAndFromBlocks() throws {
        let result = try apply(host + """
        var describer = h.makeErrorDescriber();
        [describer(null).toJS(),
         h.callWithNilArgument(block('NSString *, NSError *', function(e) { return e ? 'error' : 'no error' })).toJS(),
         h.callWithNilArgument(describer).toJS()]
        """)
        XCTAssertEqual(render(result), "[\"no error\", \"no error\", \"no error\"]")
    }

    func testJSBlockSentToObjCAndBackStillWorks() throws {
        let result = try apply(host + """
        var back = h.echoIntBlock(block('int, int', function(x) { return x * 3 }));
        back(5)
        """)
        XCTAssertEqual(render(result), "15")
    }

    func testJSBlockKeptByNativeCodeCanBeCalledLaterFromAnyThread() throws {
        try apply(host + "h.keepIntBlock(block('int, int', function(x) { return x + 100 }))")
        addTeardownBlock { pf_blocks_forget_kept() }
        var missing: Int32 = 1
        XCTAssertEqual(pf_blocks_call_kept(5, &missing), 105)
        XCTAssertEqual(missing, 0)
        let done = expectation(description: "called on a background thread")
        nonisolated(unsafe) var fromBackground: Int32 = 0
        DispatchQueue.global().async {
            var missingThere: Int32 = 1
            fromBackground = pf_blocks_call_kept(6, &missingThere)
            done.fulfill()
        }
        wait(for: [done], timeout: 30)
        XCTAssertEqual(fromBackground, 106)
    }

    func testJSBlockReceivingAnObjCBlock() throws {
        let result = try apply(host + """
        h.callFlagBlock(block('void, BOOL, NSBlock *', function(flag, inner) {
          inner('stringFromJS', flag ? 42 : 0)
        })).toJS()
        """)
        XCTAssertEqual(render(result), "\"stringFromJS/42\"")
    }

    func testJSBlockWithStructAndMixedArguments() throws {
        let result = try apply(host + """
        h.callMixedBlock(block('double, int, NSPoint, double, float, NSString *, long long', function(i, p, d, f, s, q) {
          return i + p.x + p.y + d + f + Number(s.toJS()) + q
        }))
        """)
        XCTAssertEqual(render(result), "28.75")
    }

    func testJSBlockReturningAStruct() throws {
        let script = host + """
        h.callRectBlock(block('NSRect, double', function(k) { return {x: k, y: k * 2, width: k * 3, height: k * 4} })).toJS()
        """
        #if arch(x86_64)
        if runsWithoutLibFFI {
            // x86-64 returns a 32-byte struct in memory its caller provides: no register entry
            // can stand for such a block without libffi (arm64 returns an NSRect in registers).
            XCTAssertTrue(applyExpectingError(script)?.message.contains(needsLibFFIMessage) ?? false)
            return
        }
        #endif
        XCTAssertEqual(render(try apply(script)), "\"2,4,6,8\"")
    }

    func testPatchedMethodCallsTheBlockItReceives() throws {
        try apply("""
        defineClass('PFBlockHost', {
          transform_with: function(text, blk) { return blk(text, 42) }
        })
        """)
        XCTAssertEqual(take(pf_blocks_transform("abc")), "\"ABC#42\"")
    }

    func testPatchedMethodReturnsAJSBlockToNativeCaller() throws {
        try apply("""
        defineClass('PFBlockHost', {
          adderProvider: function() { return block('int, int', function(x) { return x * 10 }) }
        })
        """)
        XCTAssertEqual(pf_blocks_apply_provided(4), 40)
    }
}
