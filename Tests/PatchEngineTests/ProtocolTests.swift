import Foundation
import XCTest
import PatchEngine
import PatchFixtures

/// Classes adopting protocols get the protocols' type encodings for new methods
/// (structs, SEL, blocks, class methods); defineProtocol declares new protocols.
final class ProtocolTests: PatchTestCase {
    func testNewClassTakesMethodTypesFromItsProtocols() throws {
        let name = uniqueClassName("PFJSShape")
        try apply("""
        defineClass('\(name) : NSObject <PFShapeSource, PFNamed>', {
          boundsForScale: function(s) { return {x: 0, y: 0, width: 100 * s, height: 50 * s} },
          preferredAction: function() { return 'jsAction:' },
          runWithCompletion: function(done) { done(11); return 2 },
          rangeForName: function(name) { return {location: 2, length: name.length()} },
          displayName: function() { return 'js-shape' }
        }, {
          instanceLimit: function() { return 9 }
        })
        """)
        XCTAssertEqual(pf_conforms(name, "PFShapeSource"), 1)
        XCTAssertEqual(pf_conforms(name, "PFNamed"), 1)
        // (@optional methods are left out: the GCC runtime does not record them.)
        for selector in ["boundsForScale:", "preferredAction", "runWithCompletion:", "rangeForName:", "displayName"] {
            XCTAssertEqual(take(pf_method_types(name, selector, 0)), take(pf_method_types("PFShapeReference", selector, 0)), selector)
        }
        XCTAssertEqual(take(pf_method_types(name, "instanceLimit", 1)), take(pf_method_types("PFShapeReference", "instanceLimit", 1)))

        var raised: Int32 = 0
        let bounds = pf_shape_bounds(name, 2, &raised)
        XCTAssertEqual([bounds.x, bounds.y, bounds.width, bounds.height], [0, 0, 200, 100])
        XCTAssertEqual(take(pf_shape_action(name)), "jsAction:")
        var code: Int32 = 0
        XCTAssertEqual(pf_shape_run(name, &code, &raised), 2)
        XCTAssertEqual(code, 11)
        let range = pf_shape_range(name, "abcd", &raised)
        XCTAssertEqual([range.location, range.length], [2, 4])
        XCTAssertEqual(pf_shape_limit(name, &raised), 9)
        XCTAssertEqual(take(pf_shape_display_name(name)), "\"js-shape\"")
        XCTAssertEqual(raised, 0)
    }

    /// GCC's runtime records no @optional protocol methods; such a method gets the types compiled
    /// code sends its selector with, so a native caller passing a float reaches it intact.
    func testOptionalProtocolMethodTakesTheCompiledTypes() throws {
        let name = uniqueClassName("PFJSWeighted")
        try apply("""
        defineClass('\(name) : NSObject <PFShapeSource>', {
          weightFor: function(f) { return f * 3 }
        })
        """)
        XCTAssertEqual(take(pf_method_types(name, "weightFor:", 0)), take(pf_method_types("PFShapeReference", "weightFor:", 0)))
        var raised: Int32 = 0
        XCTAssertEqual(pf_shape_weight(name, 1.5, &raised), 4.5)
        XCTAssertEqual(raised, 0)
    }

    func testPatchingAClassThatAlreadyAdoptsTheProtocol() throws {
        try apply("""
        defineClass('PFShapeReference', {
          boundsForScale: function(s) { var r = self.ORIGboundsForScale(s); return {x: 1, y: 1, width: r.width, height: r.height} }
        })
        """)
        var raised: Int32 = 0
        let bounds = pf_shape_bounds("PFShapeReference", 1, &raised)
        XCTAssertEqual([bounds.x, bounds.y, bounds.width, bounds.height], [1, 1, 10, 5])
    }

    func testDefineProtocol() throws {
        let proto = uniqueClassName("PFJSProto")
        let name = uniqueClassName("PFJSProtoUser")
        try apply("""
        defineProtocol('\(proto)', {
          scale_by: {paramsType: 'double, int', returnType: 'double'},
          tagFor: {paramsType: 'NSString *', returnType: 'int'}
        }, {
          classFlag: {paramsType: '', returnType: 'BOOL'}
        });
        defineClass('\(name) : NSObject <\(proto)>', {
          scale_by: function(a, b) { return a * b },
          tagFor: function(text) { return text.length() }
        }, {
          classFlag: function() { return 1 }
        })
        """)
        XCTAssertEqual(pf_protocol_exists(proto), 1)
        XCTAssertEqual(pf_conforms(name, proto), 1)
        XCTAssertEqual(take(pf_method_types(name, "scale:by:", 0)), "d@:di")
        XCTAssertEqual(take(pf_method_types(name, "tagFor:", 0)), "i@:@")
        XCTAssertEqual(pf_class_responds(name, "classFlag"), 1)
        let object = pf_new(name)
        defer { pf_release(object) }
        var raised: Int32 = 0
        XCTAssertEqual(pf_send_double_double_int(object, "scale:by:", 1.5, 4, &raised), 6)
        XCTAssertEqual(pf_send_int_str(object, "tagFor:", "abcd", &raised), 4)
        XCTAssertEqual(raised, 0)
    }
}
