import Foundation
import XCTest
import PatchEngine
import PatchFixtures

/// Every scalar and pointer-like type encoding, in both directions: scripts calling
/// Objective-C (arguments in, results out) and native callers calling patched methods.
final class TypeEncodingTests: PatchTestCase {
    // MARK: JS → Objective-C

    func testIntegerTypesFromScript() throws {
        let result = try apply("""
        var t = require('PFTypes').alloc().init();
        [t.echoChar(-128), t.echoUChar(255), t.echoShort(-32768), t.echoUShort(65535),
         t.echoInt(-2147483648), t.echoUInt(4294967295), t.echoLong(-123456789012), t.echoULong(123456789012),
         t.echoLongLong(-9007199254740992), t.echoULongLong(9007199254740992)]
        """)
        XCTAssertEqual(render(result), "[-128, 255, -32768, 65535, -2147483648, 4294967295, -123456789012, 123456789012, -9007199254740992, 9007199254740992]")
    }

    func testFloatingAndBooleanTypesFromScript() throws {
        let result = try apply("""
        var t = require('PFTypes').alloc().init();
        [t.echoFloat(1.5), t.echoDouble(0.1), t.echoBool(true) ? 1 : 0, t.echoBool(false) ? 1 : 0,
         t.echoBOOL(true) ? 1 : 0, t.echoBOOL(false) ? 1 : 0, t.echoBOOL(0) ? 1 : 0]
        """)
        XCTAssertEqual(render(result), "[1.5, 0.1, 1, 0, 1, 0, 0]")
    }

    func testClassAndSelectorFromScript() throws {
        let result = try apply("""
        var t = require('PFTypes').alloc().init();
        var cls = t.echoClass(require('PFGreeter'));
        [cls.alloc().init().greet('x').toJS(), t.echoSelector('joinA:b:c:')]
        """)
        XCTAssertEqual(render(result), "[\"Hello, x\", \"joinA:b:c:\"]")
    }

    func testClassObjectFromScriptIsTheClass() throws {
        let result = try apply("""
        var t = require('PFTypes').alloc().init();
        var cls = t.echoClass(require('PFTypes').class());
        t.isKindOfClass(cls) ? 1 : 0
        """)
        XCTAssertEqual(render(result), "1")
    }

    // MARK: native → patched method → native

    func testSignedIntegersThroughPatch() throws {
        try apply("""
        defineClass('PFTypes', {
          echoChar: function(v) { return v + 1 },
          echoShort: function(v) { return v * 2 },
          echoInt: function(v) { return v * 2 },
          echoLong: function(v) { return v * 2 },
          echoLongLong: function(v) { return v * 2 }
        })
        """)
        XCTAssertEqual(pf_types_echo_char(65), 66)
        XCTAssertEqual(pf_types_echo_short(-1000), -2000)
        XCTAssertEqual(pf_types_echo_int(-21), -42)
        XCTAssertEqual(pf_types_echo_long(-123_456_789_012), -246_913_578_024)
        XCTAssertEqual(pf_types_echo_longlong(-(1 << 52)), -(1 << 53))
    }

    func testUnsignedIntegersArriveUnsigned() throws {
        // Dividing shows the argument arrived as a large positive number, not as -1.
        try apply("""
        defineClass('PFTypes', {
          echoUChar: function(v) { return v / 5 },
          echoUShort: function(v) { return v / 5 },
          echoUInt: function(v) { return v / 5 },
          echoULong: function(v) { return v / 4 },
          echoULongLong: function(v) { return v / 2 }
        })
        """)
        XCTAssertEqual(pf_types_echo_uchar(255), 51)
        XCTAssertEqual(pf_types_echo_ushort(65535), 13107)
        XCTAssertEqual(pf_types_echo_uint(UInt32.max), 858_993_459)
        XCTAssertEqual(pf_types_echo_ulong(123_456_789_012), 30_864_197_253)
        XCTAssertEqual(pf_types_echo_ulonglong(1 << 63), 1 << 62)
    }

    func testFloatingPointThroughPatch() throws {
        try apply("""
        defineClass('PFTypes', {
          echoFloat: function(v) { return v * 2 },
          echoDouble: function(v) { return v * 2 }
        })
        """)
        XCTAssertEqual(pf_types_echo_float(1.25), 2.5)
        XCTAssertEqual(pf_types_echo_double(0.1), 0.2)
    }

    func testBoolThroughPatch() throws {
        try apply("defineClass('PFTypes', { echoBool: function(v) { return !v } })")
        XCTAssertEqual(pf_types_echo_bool(true), false)
        XCTAssertEqual(pf_types_echo_bool(false), true)
    }

    func testClassThroughPatch() throws {
        try apply("defineClass('PFTypes', { echoClass: function(cls) { return cls } })")
        XCTAssertEqual(take(pf_types_echo_class("PFHolder")), "PFHolder")
    }

    func testClassReturnedFromRequire() throws {
        try apply("defineClass('PFTypes', { echoClass: function(cls) { return require('PFGreeter') } })")
        XCTAssertEqual(take(pf_types_echo_class("PFHolder")), "PFGreeter")
    }

    func testSelectorThroughPatch() throws {
        try apply("defineClass('PFTypes', { echoSelector: function(sel) { return sel + 'extra:' } })")
        XCTAssertEqual(take(pf_types_echo_selector("echoInt:")), "echoInt:extra:")
    }

    func testCStringPointerThroughPatch() throws {
        try apply("defineClass('PFTypes', { echoCString: function(chars) { return chars } })")
        XCTAssertEqual(take(pf_types_echo_cstring("JSPatch")), "JSPatch", "the very same buffer must come back")
    }

    func testRawPointerThroughPatch() throws {
        try apply("defineClass('PFTypes', { echoPointer: function(pointer) { return pointer } })")
        var marker = 42
        withUnsafeMutablePointer(to: &marker) { pointer in
            XCTAssertEqual(pf_types_echo_pointer(pointer), UnsafeMutableRawPointer(pointer))
        }
    }

    func testObjectThroughPatchKeepsIdentity() throws {
        try apply("defineClass('PFTypes', { echoObject: function(object) { return object } })")
        let object = pf_make_sample("object")
        let back = pf_types_echo_object(object)
        XCTAssertEqual(back, object)
        pf_release(back)
        pf_release(object)
    }

    func testVoidMethodThroughPatch() throws {
        try apply("defineClass('PFTypes', { recordVoid: function(v) { self.ORIGrecordVoid(v * 3) } })")
        XCTAssertEqual(pf_types_record_void(5), 15)
    }

    func testSeventeenArgumentsInOrder() throws {
        // More integer and floating-point arguments than fit in registers; the script
        // reverses them on the way to the original, so any shift or swap shows.
        try apply("""
        defineClass('PFTypes', {
          manyArgs_b_c_d_e_f_g_h_x_y_z_u_v_w_p_q_r: function(a, b, c, d, e, f, g, h, x, y, z, u, v, w, p, q, r) {
            return self.ORIGmanyArgs_b_c_d_e_f_g_h_x_y_z_u_v_w_p_q_r(h, g, f, e, d, c, b, a, r, q, p, w, v, u, z, y, x)
          }
        })
        """)
        let result = pf_types_many_args(1, 2, 3, 4, 5, 6, 7, 8, 0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5)
        XCTAssertEqual(result, pf_types_many_args_expected(8, 7, 6, 5, 4, 3, 2, 1, 8.5, 7.5, 6.5, 5.5, 4.5, 3.5, 2.5, 1.5, 0.5))
    }
}
