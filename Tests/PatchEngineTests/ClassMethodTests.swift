import Foundation
import XCTest
import PatchEngine
import PatchFixtures

/// Class methods (the fourth argument of defineClass), patched through the metaclass.
final class ClassMethodTests: PatchTestCase {
    func testPatchedIntClassMethod() throws {
        try apply("defineClass('PFFactory', {}, { twice: function(x) { return x * 3 } })")
        XCTAssertEqual(pf_factory_twice("PFFactory", 5), 15)
        XCTAssertEqual(pf_factory_twice("PFFactorySub", 5), 15, "a subclass inherits the patched class method")
    }

    func testClassMethodCallingOriginalWithObject() throws {
        try apply("""
        defineClass('PFFactory', {}, {
          tagged: function(object) { self.ORIGtagged(object); return object }
        })
        """)
        XCTAssertEqual(take(pf_factory_tagged()), "same tag=orig-called")
    }

    func testDoubleClassMethodCallingOriginal() throws {
        try apply("defineClass('PFFactory', {}, { half: function(x) { return self.ORIGhalf(x) + 0.25 } })")
        XCTAssertEqual(pf_factory_half(5), 2.75)
    }

    func testInstanceAndClassMethodsWithTheSameSelector() throws {
        try apply("""
        defineClass('PFFactory', {
          kind: function() { return 'js-instance' }
        }, {
          kind: function() { return 'js-class' }
        })
        """)
        XCTAssertEqual(take(pf_factory_instance_kind()), "\"js-instance\"")
        XCTAssertEqual(take(pf_factory_class_kind()), "\"js-class\"")
    }

    func testInstancePatchLeavesTheClassMethodAlone() throws {
        try apply("defineClass('PFFactory', { kind: function() { return 'js-instance' } })")
        XCTAssertEqual(take(pf_factory_instance_kind()), "\"js-instance\"")
        XCTAssertEqual(take(pf_factory_class_kind()), "\"class-kind\"")
    }

    func testSelfInAClassMethodIsTheClass() throws {
        try apply("""
        defineClass('PFFactory', {}, {
          kind: function() { return self.ORIGkind().toJS() + '+js' },
          makeWithName: function(name) {
            var made = self.ORIGmakeWithName(name);
            made.setName(name.toJS() + '!');
            return made
          }
        })
        """)
        XCTAssertEqual(take(pf_factory_class_kind()), "\"class-kind+js\"")
        XCTAssertEqual(take(pf_factory_make_named("x")), "\"x!\"")
    }

    func testScriptsCallClassMethods() throws {
        let result = try apply("""
        var F = require('PFFactory');
        [F.twice(21), F.half(3), F.makeWithName('n').name().toJS(), F.kind().toJS()]
        """)
        XCTAssertEqual(render(result), "[42, 1.5, \"n\", \"class-kind\"]")
    }

    func testAddedClassMethod() throws {
        try apply("defineClass('PFFactory', {}, { brandNew: function(text) { return 'new:' + text.toJS() } })")
        XCTAssertEqual(take(pf_method_types("PFFactory", "brandNew:", 1)), "@@:@")
        XCTAssertEqual(pf_class_responds("PFFactory", "brandNew:"), 1)
        XCTAssertEqual(pf_instances_respond("PFFactory", "brandNew:"), 0)
        XCTAssertEqual(take(pf_send_class_str("PFFactory", "brandNew:", "x")), "\"new:x\"")
    }

    func testPatchOnASubclassOnly() throws {
        try apply("defineClass('PFFactorySub', {}, { twice: function(x) { return -x } })")
        XCTAssertEqual(pf_factory_twice("PFFactorySub", 5), -5)
        XCTAssertEqual(pf_factory_twice("PFFactory", 5), 10)
    }
}
