import Foundation
import XCTest
import PatchEngine
import PatchFixtures

/// Struct arguments and returns: NSRect {x, y, width, height}, NSPoint {x, y},
/// NSSize {width, height}, NSRange {location, length}, and structs declared with
/// defineStruct({name, types, keys}) — with the C alignment padding respected.
final class StructTests: PatchTestCase {
    private let declarePadded = "defineStruct({name: 'PFPadded', types: 'cds', keys: ['c', 'd', 's']});\n"
    private let declarePair = "defineStruct({name: 'PFPair', types: 'if', keys: ['i', 'f']});\n"

    func testBuiltInStructsFromScript() throws {
        let result = try apply("""
        var g = require('PFGeometry').alloc().init();
        var r = g.echoRect({x: 1, y: 2, width: 3, height: 4});
        var p = g.echoPoint({x: 5, y: 6});
        var s = g.echoSize({width: 7, height: 8});
        var n = g.echoRange({location: 9, length: 10});
        [r.x, r.y, r.width, r.height, p.x, p.y, s.width, s.height, n.location, n.length]
        """)
        XCTAssertEqual(render(result), "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]")
    }

    func testStructMadeNativelyArrivesAsObject() throws {
        let result = try apply("""
        var g = require('PFGeometry').alloc().init();
        g.rectWithX_y_width_height(1.5, 2.5, 3.5, 4.5)
        """)
        XCTAssertEqual(render(result), "{height: 4.5, width: 3.5, x: 1.5, y: 2.5}")
    }

    func testStructArgumentReachesNativeCode() throws {
        let result = try apply("""
        var g = require('PFGeometry').alloc().init();
        [g.describeRect({x: 1, y: 2, width: 3, height: 4}).toJS(), g.area_scaledBy({x: 0, y: 0, width: 3, height: 4}, 0.5)]
        """)
        XCTAssertEqual(render(result), "[\"1,2,3,4\", 6]")
    }

    func testPatchedStructReturnsReachNativeCallers() throws {
        try apply("""
        defineClass('PFGeometry', {
          echoRect: function(r) { return {x: r.x + 1, y: r.y + 1, width: r.width * 2, height: r.height * 2} },
          echoPoint: function(p) { return {x: p.y, y: p.x} },
          echoSize: function(s) { return {width: s.height, height: s.width} },
          echoRange: function(r) { return {location: r.location + r.length, length: 1} }
        })
        """)
        let rect = pf_geometry_echo_rect(PFRectC(x: 1, y: 2, width: 3, height: 4))
        XCTAssertEqual([rect.x, rect.y, rect.width, rect.height], [2, 3, 6, 8])
        let point = pf_geometry_echo_point(PFPointC(x: 5, y: 6))
        XCTAssertEqual([point.x, point.y], [6, 5])
        let size = pf_geometry_echo_size(PFSizeC(width: 7, height: 8))
        XCTAssertEqual([size.width, size.height], [8, 7])
        let range = pf_geometry_echo_range(PFRangeC(location: 9, length: 10))
        XCTAssertEqual([range.location, range.length], [19, 1])
    }

    func testTwoStructArgumentsAndMixedScalars() throws {
        try apply("""
        defineClass('PFGeometry', {
          offsetRect_by: function(r, p) { return {x: r.x - p.x, y: r.y - p.y, width: r.width, height: r.height} },
          area_scaledBy: function(r, factor) { return r.width + r.height + factor }
        })
        """)
        let moved = pf_geometry_offset_rect(PFRectC(x: 1, y: 1, width: 2, height: 2), PFPointC(x: 10, y: 20))
        XCTAssertEqual([moved.x, moved.y, moved.width, moved.height], [-9, -19, 2, 2])
        XCTAssertEqual(pf_geometry_area(PFRectC(x: 0, y: 0, width: 3, height: 4), 0.5), 7.5)
    }

    func testOriginalWithStructs() throws {
        try apply("""
        defineClass('PFGeometry', {
          echoRect: function(r) {
            var o = self.ORIGechoRect(r);
            return {x: o.x, y: o.y, width: o.width + 100, height: o.height}
          }
        })
        """)
        let rect = pf_geometry_echo_rect(PFRectC(x: 1, y: 2, width: 3, height: 4))
        XCTAssertEqual([rect.x, rect.y, rect.width, rect.height], [1, 2, 103, 4])
    }

    func testPaddedCustomStructFromScript() throws {
        // {char; double; short}: the double sits at offset 8 and the struct is 24 bytes.
        let result = try apply(declarePadded + """
        var g = require('PFGeometry').alloc().init();
        var p = g.echoPadded({c: 7, d: 2.5, s: -3});
        var made = g.makePaddedC_d_s(1, 0.25, 300);
        [g.describePadded({c: 7, d: 2.5, s: -3}).toJS(), p.c, p.d, p.s, made.c, made.d, made.s]
        """)
        XCTAssertEqual(render(result), "[\"c=7 d=2.5 s=-3\", 7, 2.5, -3, 1, 0.25, 300]")
    }

    func testPaddedCustomStructThroughPatch() throws {
        try apply(declarePadded + """
        defineClass('PFGeometry', {
          echoPadded: function(p) { return {c: p.c + 1, d: p.d * 2, s: p.s - 1} }
        })
        """)
        let back = pf_geometry_echo_padded(PFPaddedC(c: 7, d: 2.5, s: -3))
        XCTAssertEqual(back.c, 8)
        XCTAssertEqual(back.d, 5)
        XCTAssertEqual(back.s, -4)
    }

    func testPatchedMethodReceivesPaddedStruct() throws {
        try apply(declarePadded + """
        defineClass('PFGeometry', {
          describePadded: function(p) { return 'js c=' + p.c + ' d=' + p.d + ' s=' + p.s }
        })
        """)
        XCTAssertEqual(take(pf_geometry_describe_padded(PFPaddedC(c: 9, d: 0.5, s: 1234))), "js c=9 d=0.5 s=1234")
    }

    func testSmallCustomStructBothWays() throws {
        let result = try apply(declarePair + """
        defineClass('PFGeometry', {
          echoPair: function(p) { return {i: p.i * 2, f: p.f + 1} }
        });
        require('PFGeometry').alloc().init().describePair({i: 11, f: 0.25}).toJS()
        """)
        XCTAssertEqual(render(result), "\"i=11 f=0.25\"")
        let back = pf_geometry_echo_pair(PFPairC(i: 11, f: 0.25))
        XCTAssertEqual(back.i, 22)
        XCTAssertEqual(back.f, 1.25)
    }

    func testStructKeysAScriptChoosesCrossAsTheyAreSpelt() throws {
        // Structs reach a patched method through code compiled for their keys (StructRegistry's
        // makers and call adapters): keys a script chooses must stay data, whatever they contain.
        try apply("""
        defineStruct({name: 'PFPadded', types: 'cds', keys: ['a"b', 'd\\'); globalThis.__pwned = 1; //\\u2028', '\\u00e9t\\u00e9']});
        defineClass('PFGeometry', {
          describePadded: function(p) { return Object.keys(p).map(function (k) { return k + '=' + p[k]; }).join(' '); }
        });
        """)
        XCTAssertEqual(take(pf_geometry_describe_padded(PFPaddedC(c: 9, d: 0.5, s: 3))),
                       "a\"b=9 d'); globalThis.__pwned = 1; //\u{2028}=0.5 \u{e9}t\u{e9}=3")
        XCTAssertEqual(render(try apply("typeof globalThis.__pwned")), "\"undefined\"")
        // "__proto__" can't be a key of a literal: that struct is made through the C API, whose set
        // of "__proto__" is the prototype setter's (a number is ignored), as it always was.
        try apply("""
        defineStruct({name: 'PFPadded', types: 'cds', keys: ['c', '__proto__', 's']});
        defineClass('PFGeometry', {
          describePadded: function(p) { return [p.c, Object.getOwnPropertyNames(p).length, p.s].join(' '); }
        });
        """)
        XCTAssertEqual(take(pf_geometry_describe_padded(PFPaddedC(c: 1, d: 2, s: 3))), "1 2 3")
    }

    func testSizeofCountsPadding() throws {
        let result = try apply(declarePadded + declarePair + "[sizeof('PFPadded'), sizeof('PFPair')]")
        XCTAssertEqual(render(result), "[\(pf_geometry_padded_size()), 8]")
    }
}
