import Foundation
import XCTest
import PatchEngine
import PatchFixtures

/// The engine takes over -forwardInvocation: of patched classes; a class's own (or
/// inherited) forwarding must keep handling the selectors the engine does not own.
final class ForwardInvocationTests: PatchTestCase {
    func testOwnForwardingStillHandlesUnknownSelectorsAfterPatch() throws {
        try apply("defineClass('PFForwarder', { greet: function() { return 'js-hello' } })")
        let forwarder = pf_new("PFForwarder")
        defer { pf_release(forwarder) }
        XCTAssertEqual(take(pf_send(forwarder, "greet")), "\"js-hello\"")
        XCTAssertEqual(take(pf_send(forwarder, "dynOne")), "\"forwarded:dynOne\"")
        XCTAssertEqual(take(pf_send(forwarder, "forwardLog")), "\"dynOne\"")
    }

    func testOwnForwardingAfterRevert() throws {
        let name = uniqueScriptName()
        try apply("defineClass('PFForwarder', { greet: function() { return 'js-hello' } })", name: name)
        try PatchEngine.revert(name)
        let forwarder = pf_new("PFForwarder")
        defer { pf_release(forwarder) }
        XCTAssertEqual(take(pf_send(forwarder, "greet")), "\"hello\"")
        XCTAssertEqual(take(pf_send(forwarder, "dynTwo")), "\"forwarded:dynTwo\"")
    }

    func testUnknownSelectorsStillRaiseOnPatchedClass() throws {
        let greeter = pf_new("PFGreeter")
        defer { pf_release(greeter) }
        let before = take(pf_send(greeter, "noSuchSelectorAnywhere"))
        try apply("defineClass('PFGreeter', { greet: function(n) { return 'js' } })")
        let after = take(pf_send(greeter, "noSuchSelectorAnywhere"))
        XCTAssertTrue(after?.hasPrefix("!") == true, "got \(String(describing: after))")
        XCTAssertEqual(after, before, "the same exception as without the patch")
    }

    func testInheritedForwardingIsLookedUpAtCallTime() throws {
        try apply("defineClass('PFForwardChild', { greet: function() { return 'js-child' } })")
        let child = pf_new("PFForwardChild")
        defer { pf_release(child) }
        XCTAssertEqual(take(pf_send(child, "greet")), "\"js-child\"")
        XCTAssertEqual(take(pf_send(child, "dynX")), "\"parent-original:dynX\"")
        // The parent's forwarding is replaced after the child was patched: the child
        // must reach the new one, not a copy taken at patch time.
        pf_forward_swizzle_parent(1)
        addTeardownBlock { pf_forward_swizzle_parent(0) }
        XCTAssertEqual(take(pf_send(child, "dynX")), "\"parent-swizzled:dynX\"")
    }

    func testPatchedParentKeepsChildForwarding() throws {
        try apply("defineClass('PFForwardParent', { greet: function() { return 'js-parent' } })")
        let child = pf_new("PFForwardChild")
        let parent = pf_new("PFForwardParent")
        defer { pf_release(child); pf_release(parent) }
        XCTAssertEqual(take(pf_send(parent, "greet")), "\"js-parent\"")
        XCTAssertEqual(take(pf_send(child, "greet")), "\"child-hello\"")
        XCTAssertEqual(take(pf_send(child, "dynY")), "\"parent-original:dynY\"")
        XCTAssertEqual(take(pf_send(parent, "dynZ")), "\"parent-original:dynZ\"")
    }

    func testScriptsCanCallSelectorsAClassForwards() throws {
        let result = try apply("require('PFForwarder').alloc().init().dynFromScript().toJS()")
        XCTAssertEqual(render(result), "\"forwarded:dynFromScript\"")
    }
}
