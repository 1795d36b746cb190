import Foundation
import XCTest
import PatchEngine
import PatchFixtures

/// Overriding existing methods, adding new ones, creating classes; what native callers see.
final class OverrideTests: PatchTestCase {
    func testOverrideChangesWhatNativeCallersSee() throws {
        try apply("""
        defineClass('PFGreeter', {
          greet: function(name) { return 'Hi ' + name.toJS() + '!' }
        })
        """)
        XCTAssertEqual(take(pf_greeter_greet("Ann")), "\"Hi Ann!\"")
        // A call the class makes to itself goes through the patch too.
        XCTAssertEqual(take(pf_greeter_greet_twice("Bo")), "\"Hi Bo! & Hi Bo!\"")
    }

    func testScriptCallsSeeThePatch() throws {
        let result = try apply("""
        defineClass('PFGreeter', {
          greet: function(name) { return 'Hi ' + name.toJS() }
        });
        require('PFGreeter').alloc().init().greet('Cy').toJS()
        """)
        XCTAssertEqual(render(result), "\"Hi Cy\"")
    }

    func testPatchReachesInstancesCreatedBeforeIt() throws {
        let greeter = pf_new("PFGreeter")
        defer { pf_release(greeter) }
        XCTAssertEqual(take(pf_send_str(greeter, "greet:", "x")), "\"Hello, x\"")
        try apply("defineClass('PFGreeter', { greet: function(name) { return 'late ' + name.toJS() } })")
        XCTAssertEqual(take(pf_send_str(greeter, "greet:", "x")), "\"late x\"")
    }

    func testOriginalWithDoubleAndObjectArguments() throws {
        try apply("""
        defineClass('PFGreeter', {
          describeValue_label: function(value, label) {
            return self.ORIGdescribeValue_label(value * 2, label).toJS() + '!'
          }
        })
        """)
        XCTAssertEqual(take(pf_greeter_describe_value(2.5, "x")), "\"x=5!\"")
    }

    func testVoidOverrideCallingOriginal() throws {
        try apply("""
        defineClass('PFGreeter', {
          setMood: function(mood) { self.ORIGsetMood(mood.toJS().toUpperCase()) }
        })
        """)
        XCTAssertEqual(take(pf_greeter_mood_after_setting("calm")), "\"CALM\"")
    }

    func testStringObjectAndIntegerArguments() throws {
        try apply("""
        defineClass('PFGreeter', {
          format_view_count: function(text, view, count) {
            return text.toJS() + '|' + (view ? 'view' : 'nil') + '|' + (count + 1)
          }
        })
        """)
        XCTAssertEqual(take(pf_greeter_format("s", 41)), "\"s|view|42\"")
    }

    func testNilArgumentArrivesFalsyAndComesBackNil() throws {
        try apply("""
        defineClass('PFGreeter', {
          viewOrNil: function(view) { return view }
        })
        """)
        XCTAssertEqual(take(pf_greeter_view_or_nil(1)), "nil")
        XCTAssertEqual(take(pf_greeter_view_or_nil(0)), "same object")
    }

    func testIntegerResultFromJS() throws {
        try apply("defineClass('PFGreeter', { countOf: function(text) { return text.length() * 10 } })")
        XCTAssertEqual(pf_greeter_count("four"), 40)
    }

    func testSelfIsTheReceiver() throws {
        let mine = pf_new("PFGreeter")
        let other = pf_new("PFGreeter")
        defer { pf_release(mine); pf_release(other); pf_registry_remove("override.self") }
        pf_registry_set("override.self", mine)
        try apply("""
        defineClass('PFGreeter', {
          greet: function(name) {
            var box = require('PFValueBox').alloc().init();
            return box.isSame_as(self, require('PFRegistry').objectForKey('override.self')) ? 'self ok' : 'other'
          }
        })
        """)
        XCTAssertEqual(take(pf_send_str(mine, "greet:", "x")), "\"self ok\"")
        XCTAssertEqual(take(pf_send_str(other, "greet:", "x")), "\"other\"")
    }

    func testAddedMethodsDefaultToObjectTypes() throws {
        try apply("""
        defineClass('PFGreeter', {
          shout: function(text) { return text.toJS().toUpperCase() },
          shoutBoth_and: function(a, b) { return a.toJS() + b.toJS() },
          ping: function() { return 'pong' }
        })
        """)
        XCTAssertEqual(take(pf_method_types("PFGreeter", "shout:", 0)), "@@:@")
        XCTAssertEqual(take(pf_method_types("PFGreeter", "shoutBoth:and:", 0)), "@@:@@")
        XCTAssertEqual(take(pf_method_types("PFGreeter", "ping", 0)), "@@:")
        let greeter = pf_new("PFGreeter")
        defer { pf_release(greeter) }
        XCTAssertEqual(pf_responds(greeter, "shout:"), 1)
        XCTAssertEqual(take(pf_send_str(greeter, "shout:", "hey")), "\"HEY\"")
        XCTAssertEqual(take(pf_send_str_str(greeter, "shoutBoth:and:", "a", "b")), "\"ab\"")
        XCTAssertEqual(take(pf_send(greeter, "ping")), "\"pong\"")
    }

    func testUnderscoreMethodsStayInJavaScript() throws {
        try apply("""
        defineClass('PFGreeter', {
          _decorate: function(text) { return '*' + text + '*' },
          greet: function(name) { return self._decorate(name.toJS()) }
        })
        """)
        XCTAssertEqual(take(pf_greeter_greet("Ann")), "\"*Ann*\"")
        XCTAssertEqual(pf_instances_respond("PFGreeter", "_decorate"), 0)
        XCTAssertEqual(pf_instances_respond("PFGreeter", "_decorate:"), 0)
    }

    /// A `_` name some script sent as a message (no JS-only method of that name then) is still
    /// found as a JS-only method once a later script defines one. (Sent once, the name used to be
    /// remembered as a plain message for good, and the later method's callers got the original.)
    func testUnderscoreMethodDefinedAfterTheNameWasSentAsAMessage() throws {
        let name = "_tagged\(UInt32.random(in: 0..<UInt32.max))"
        let sent = try apply(jsToString + """
        var sent;
        try { PFGreeter.alloc().init().\(name)('x'); sent = 'answered'; } catch (e) { sent = 'threw'; }
        S(sent)
        """)
        XCTAssertEqual(sent as? String, "threw", "PFGreeter has no \(name): method")
        try apply("""
        defineClass('PFGreeter', {
          \(name): function(text) { return '<' + text + '>' },
          greet: function(who) { return self.\(name)(who.toJS()) }
        })
        """)
        XCTAssertEqual(take(pf_greeter_greet("Ann")), "\"<Ann>\"")
        XCTAssertEqual(pf_instances_respond("PFGreeter", name + ":"), 0)
    }

    func testNewClassIsUsableNatively() throws {
        let name = uniqueClassName("PFJSGreeter")
        try apply("""
        defineClass('\(name) : PFGreeter', {
          greet: function(who) { return 'new ' + who.toJS() },
          extra: function() { return 'extra' }
        })
        """)
        XCTAssertEqual(pf_class_exists(name), 1)
        XCTAssertEqual(take(pf_superclass_name(name)), "PFGreeter")
        let object = pf_new(name)
        defer { pf_release(object) }
        XCTAssertEqual(take(pf_send_str(object, "greet:", "x")), "\"new x\"")
        XCTAssertEqual(take(pf_send(object, "extra")), "\"extra\"")
        XCTAssertEqual(take(pf_send(object, "mood")), "\"none\"", "inherited native method")
        XCTAssertEqual(take(pf_greeter_greet("x")), "\"Hello, x\"", "the superclass keeps its method")
    }

    func testNewClassDefaultsToNSObject() throws {
        let name = uniqueClassName("PFJSPlain")
        try apply("defineClass('\(name)', { value: function() { return 42 } })")
        XCTAssertEqual(take(pf_superclass_name(name)), "NSObject")
        XCTAssertEqual(take(pf_new_send(name, "value")), "42")
    }

    func testDefineClassReturnsTheClass() throws {
        let name = uniqueClassName("PFJSReturned")
        let result = try apply(jsToString + """
        var C = defineClass('\(name)', { hello: function() { return 'hi' } });
        S(C.alloc().init().hello())
        """)
        XCTAssertEqual(render(result), "\"hi\"")
    }

    func testLaterDefinitionInOneScriptWins() throws {
        try apply("""
        defineClass('PFGreeter', { greet: function(n) { return 'first' } });
        defineClass('PFGreeter', { greet: function(n) { return 'second' } })
        """)
        XCTAssertEqual(take(pf_greeter_greet("x")), "\"second\"")
    }

    func testLaterScriptWins() throws {
        try apply("defineClass('PFGreeter', { greet: function(n) { return 'one' } })")
        try apply("defineClass('PFGreeter', { greet: function(n) { return 'two' } })")
        XCTAssertEqual(take(pf_greeter_greet("x")), "\"two\"")
    }

    func testMethodsNotInTheScriptKeepTheirBehaviour() throws {
        try apply("defineClass('PFGreeter', { greet: function(n) { return 'patched' } })")
        XCTAssertEqual(take(pf_greeter_describe_value(1.5, "v")), "\"v=1.5\"")
        XCTAssertEqual(pf_greeter_count("abc"), 3)
    }

    func testPatchedDeallocRunsAndCanCallTheOriginal() throws {
        pf_probe_reset()
        try apply("""
        defineClass('PFDisposable', {
          dealloc: function() {
            require('PFProbe').record('js-dealloc');
            self.ORIGdealloc()
          }
        })
        """)
        let object = pf_new("PFDisposable")
        pf_release(object)
        XCTAssertEqual(take(pf_probe_entries()), "js-dealloc@main,native-dealloc@main")
        // Another instance afterwards: nothing from the first one may linger or run twice.
        let second = pf_new("PFDisposable")
        pf_release(second)
        XCTAssertEqual(take(pf_probe_entries()), "js-dealloc@main,native-dealloc@main,js-dealloc@main,native-dealloc@main")
    }
}
