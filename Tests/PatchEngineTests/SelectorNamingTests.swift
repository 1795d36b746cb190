import Foundation
import XCTest
import PatchEngine
import PatchFixtures

/// JS names ↔ selectors: '_' → ':', '__' → '_', a trailing ':' when there are more
/// arguments than colons; performSelector takes the selector as written.
final class SelectorNamingTests: PatchTestCase {
    private let selectors = "var s = require('PFSelectors').alloc().init();\n"

    func testCallingWithEveryNamingRule() throws {
        let result = try apply(selectors + """
        [s.joinA_b_c('x', 'y', 'z').toJS(), s.with__underscore__(3).toJS(), s.two__parts___more__(1, 2).toJS(),
         s.noArgs().toJS(), s.single(1), require('PFSelectors').classJoin_with('a', 'b').toJS()]
        """)
        XCTAssertEqual(render(result), "[\"x+y+z\", \"orig:3\", \"orig:1,2\", \"none\", 101, \"a&b\"]")
    }

    func testPerformSelectorSkipsTheConversion() throws {
        let result = try apply(selectors + """
        [s.performSelector('joinA:b:c:', 'p', 'q', 'r').toJS(), s.performSelector('with_underscore_:', 5).toJS(),
         s.performSelector('noArgs').toJS(), require('PFSelectors').performSelector('classJoin:with:', 'a', 'b').toJS()]
        """)
        XCTAssertEqual(render(result), "[\"p+q+r\", \"orig:5\", \"none\", \"a&b\"]")
    }

    /// A native call enters a JS method through the entry for its argument count (runtime.js's
    /// `nativeEntries`), not the general wrapper: the method still sees exactly its selector's
    /// arguments (`arguments.length`, as JSPatch passes them), `self` and `this` its receiver, and
    /// a nested native call into another object's JS method leaves the caller's `self` as it was.
    func testANativeCallPassesExactlyTheSelectorsArgumentsAndItsReceiver() throws {
        try apply(jsToString + """
        defineClass('PFSelectors', {
          noArgs: function() { return 'n=' + arguments.length + ' self=' + (self === this) },
          single: function(x) { return arguments.length * 1000 + x },
          two__parts___more__: function(a, b) { return 'n=' + arguments.length + ' ' + a + ',' + b },
          joinA_b_c: function(a, b, c) {
            var me = self, other = require('PFSelectors').alloc().init();
            var inner = S(other.performSelector('noArgs'));
            return 'n=' + arguments.length + ' ' + S(a) + S(b) + S(c) + ' inner=' + inner +
                   ' kept=' + (self === me && self === this);
          }
        })
        """)
        XCTAssertEqual(take(pf_selectors_no_args()), "\"n=0 self=true\"")
        XCTAssertEqual(pf_selectors_single(5), 1005)
        XCTAssertEqual(take(pf_selectors_two_parts(3, 4)), "\"n=2 3,4\"")
        XCTAssertEqual(take(pf_selectors_join("x", "y", "z")), "\"n=3 xyz inner=n=0 self=true kept=true\"")
    }

    func testOverrideKeysFollowTheSameRules() throws {
        try apply(jsToString + """
        defineClass('PFSelectors', {
          joinA_b_c: function(a, b, c) { return S(c) + S(b) + S(a) },
          with__underscore__: function(n) { return 'js:' + n },
          two__parts___more__: function(a, b) { return 'js:' + (a * b) },
          single: function(x) { return x - 1 }
        }, {
          classJoin_with: function(a, b) { return S(b) + '|' + S(a) }
        })
        """)
        XCTAssertEqual(take(pf_selectors_join("x", "y", "z")), "\"zyx\"")
        XCTAssertEqual(take(pf_selectors_with_underscore(3)), "\"js:3\"")
        XCTAssertEqual(take(pf_selectors_two_parts(3, 4)), "\"js:12\"")
        XCTAssertEqual(pf_selectors_single(5), 4)
        XCTAssertEqual(take(pf_selectors_class_join("a", "b")), "\"b|a\"")
        XCTAssertEqual(take(pf_selectors_no_args()), "\"none\"")
    }

    func testOriginalNamesFollowTheSameRules() throws {
        try apply(jsToString + """
        defineClass('PFSelectors', {
          with__underscore__: function(n) { return 'js+' + S(self.ORIGwith__underscore__(n)) },
          joinA_b_c: function(a, b, c) { return S(self.ORIGjoinA_b_c(a, b, c)) + '!' }
        })
        """)
        XCTAssertEqual(take(pf_selectors_with_underscore(3)), "\"js+orig:3\"")
        XCTAssertEqual(take(pf_selectors_join("x", "y", "z")), "\"x+y+z!\"")
    }

    func testAddedMethodNames() throws {
        try apply("""
        defineClass('PFSelectors', {
          added_with: function(a, b) { return 'two' },
          addedOne: function(a) { return 'one:' + a.toJS() },
          addedNone: function() { return 'none' },
          added__under: function(a) { return 'under' }
        })
        """)
        XCTAssertEqual(take(pf_method_types("PFSelectors", "added:with:", 0)), "@@:@@")
        XCTAssertEqual(take(pf_method_types("PFSelectors", "addedOne:", 0)), "@@:@")
        XCTAssertEqual(take(pf_method_types("PFSelectors", "addedNone", 0)), "@@:")
        XCTAssertEqual(take(pf_method_types("PFSelectors", "added_under:", 0)), "@@:@")
        let object = pf_new("PFSelectors")
        defer { pf_release(object) }
        XCTAssertEqual(take(pf_send_str(object, "addedOne:", "q")), "\"one:q\"")
        XCTAssertEqual(take(pf_send(object, "addedNone")), "\"none\"")
    }
}
