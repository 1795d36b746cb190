import Foundation
import XCTest
import PatchEngine
import PatchFixtures

/// Objective-C property accessors called from scripts, and JS properties declared with
/// defineClass('Name', ['prop', ...], ...): getter prop(), setter setProp(v), per object.
final class PropertyTests: PatchTestCase {
    func testObjCPropertyAccessorsFromScript() throws {
        let result = try apply("""
        var h = require('PFHolder').alloc().init();
        h.setTitle('T');
        h.setCount(3);
        h.setFrame({x: 1, y: 2, width: 3, height: 4});
        [h.summary().toJS(), h.title().toJS(), h.count(), h.frame().width]
        """)
        XCTAssertEqual(render(result), "[\"title=T count=3 frame=1,2,3,4 child=nil\", \"T\", 3, 3]")
    }

    func testJSPropertiesFromScript() throws {
        let result = try apply(jsToString + """
        defineClass('PFHolder', ['note', 'score'], {
          describeNote: function() { return 'note:' + S(self.note()) }
        });
        var h = require('PFHolder').alloc().init();
        h.setNote('n1');
        h.setScore(5);
        [S(h.note()), h.score(), S(h.describeNote())]
        """)
        XCTAssertEqual(render(result), "[\"n1\", 5, \"note:n1\"]")
    }

    func testJSPropertiesFromNativeCode() throws {
        try apply(jsToString + """
        defineClass('PFHolder', ['note'], {
          describeNote: function() { return 'note:' + S(self.note()) }
        })
        """)
        let holder = pf_new("PFHolder")
        let other = pf_new("PFHolder")
        defer { pf_release(holder); pf_release(other) }
        XCTAssertNil(take(pf_send_void_str(holder, "setNote:", "hello")))
        XCTAssertEqual(take(pf_send(holder, "note")), "\"hello\"")
        XCTAssertEqual(take(pf_send(holder, "describeNote")), "\"note:hello\"")
        XCTAssertEqual(take(pf_send(other, "note")), "nil", "values belong to one object")
    }

    func testJSPropertyHoldsAnObject() throws {
        try apply("defineClass('PFHolder', ['attachment'], {})")
        let holder = pf_new("PFHolder")
        let object = pf_make_sample("object")
        defer { pf_release(holder); pf_release(object) }
        XCTAssertNil(take(pf_send_void_obj(holder, "setAttachment:", object)))
        let back = pf_send_retained(holder, "attachment")
        XCTAssertEqual(back, object)
        pf_release(back)
    }

    func testNewClassWithPropertiesAndCustomInit() throws {
        let name = uniqueClassName("PFJSInit")
        let result = try apply(jsToString + """
        defineClass('\(name)', ['prop1', 'prop2'], {
          init: function() {
            self = self.super().init();
            self.setProp1('1');
            self.setProp2('2');
            return self
          },
          _privateMethod: function() { return 'P' },
          method: function() { return 'A' + S(self.prop1()) + S(self.prop2()) }
        }, {
          clsMethod: function() { return 'A' }
        });
        var o = require('\(name)').alloc().init();
        [S(o.method()), S(o._privateMethod()), S(require('\(name)').clsMethod())]
        """)
        XCTAssertEqual(render(result), "[\"A12\", \"P\", \"A\"]")
        // Native alloc/init runs the JS init too.
        XCTAssertEqual(take(pf_new_send(name, "method")), "\"A12\"")
    }
}
