import Foundation
import XCTest
import PatchEngine
import PatchRuntime
import PatchFixtures

/// Hooks, JS patches (defineClass) and swizzles on the same selectors: one pipeline (hooks
/// outside, then the JS patch, then swizzle layers, then the original), whatever order they were
/// added and removed in, where Aspects, JSPatch and method swizzling each take the method over.
final class ToolkitCompositionTests: ToolkitTestCase {

    private enum Layer: String, CaseIterable { case hook, js, swizzle }

    /// A JS patch of -step on `className` that logs `label` and appends ">label" to the original.
    private func jsStepPatch(_ className: String, _ label: String) -> String {
        jsToString + """
        defineClass('\(className)', {
          step: function() {
            require('PFToolkitLog').append('\(label)');
            return S(self.ORIGstep()) + '>\(label)';
          }
        });
        """
    }

    @discardableResult
    private func swizzleStep(_ className: String, _ label: String, file: StaticString = #filePath, line: UInt = #line) -> Int32 {
        var error: UnsafeMutablePointer<CChar>?
        let handle = pf_swizzle_step(className, label, &error)
        if let message = take(error) { XCTFail("swizzle refused: \(message)", file: file, line: line) }
        removeAtTearDown(handle)
        return handle
    }

    /// A hook, a JS patch and a swizzle on Base's -step, added in all 6 orders and removed in all
    /// 6 orders: the call order is always hook, JS, swizzle, original, and every removal leaves the
    /// remaining layers working.
    func testHookPatchAndSwizzleOnOneSelectorInEveryOrder() throws {
        for route in Self.routes {
            let f = try family(route)
            let base = make(f.base), sib = make(f.sib)
            func check(_ active: Set<Layer>, _ context: String, file: StaticString = #filePath, line: UInt = #line) {
                var entries: [String] = []
                if active.contains(.hook) { entries.append("hook") }
                if active.contains(.js) { entries.append("js") }
                if active.contains(.swizzle) { entries.append("s:Base") }
                entries.append("Base")
                let result = "\"base" + (active.contains(.swizzle) ? ">s:Base" : "") + (active.contains(.js) ? ">js" : "") + "\""
                for (name, object) in [("Base", base), ("Sib", sib)] {
                    XCTAssertEqual(step(object), result, "\(route) \(context): \(name)", file: file, line: line)
                    XCTAssertEqual(log(), entries.joined(separator: " "), "\(route) \(context): \(name)", file: file, line: line)
                }
            }
            check([], "nothing applied")
            for addOrder in permutations(Layer.allCases) {
                for removeOrder in permutations(Layer.allCases) {
                    var active = Set<Layer>()
                    var hookHandle: Int32 = 0, swizzleHandle: Int32 = 0
                    let script = uniqueScriptName()
                    for layer in addOrder {
                        switch layer {
                        case .hook: hookHandle = hook(f.base, "step", HookOption.before, "hook")
                        case .js: try apply(jsStepPatch(f.base, "js"), name: script)
                        case .swizzle: swizzleHandle = swizzleStep(f.base, "s:Base")
                        }
                        active.insert(layer)
                        check(active, "added \(addOrder.prefix(active.count))")
                    }
                    for layer in removeOrder {
                        switch layer {
                        case .hook: XCTAssertEqual(pf_tk_remove(hookHandle), 1)
                        case .js: try PatchEngine.revert(script)
                        case .swizzle: XCTAssertEqual(pf_tk_remove(swizzleHandle), 1)
                        }
                        active.remove(layer)
                        check(active, "added \(addOrder), removed \(layer) of \(removeOrder)")
                    }
                }
            }
        }
    }

    /// An Instead hook's invocation runs the JS patch and the swizzle under it; its return value
    /// change is what the caller sees.
    func testInsteadHookInvokesThePatchAndTheSwizzle() throws {
        for route in Self.routes {
            let f = try family(route)
            let base = make(f.base)
            try apply(jsStepPatch(f.base, "js"))
            swizzleStep(f.base, "s:Base")
            hook(f.base, "step", HookOption.instead, "instead", PFHookInvokeOriginal)
            XCTAssertEqual(step(base), "\"base>s:Base>js\"", "\(route)")
            XCTAssertEqual(log(), "js s:Base Base instead=\"base>s:Base>js\"", "\(route)")
            hook(base, "step", HookOption.instead, "replaced", PFHookSetLabel)
            XCTAssertEqual(step(base), "\"replaced\"", "\(route): the instance Instead hook runs last and sets the result")
            XCTAssertEqual(log(), "js s:Base Base instead=\"base>s:Base>js\"", "\(route)")
        }
    }

    /// Layers at different levels: a JS patch on the parent, a swizzle on the middle class, a hook
    /// on a class that implements nothing, and a subclass overriding with [super step].
    func testLayersAtDifferentLevels() throws {
        for route in Self.routes {
            let f = try family(route)
            let objects = ["Base": make(f.base), "Mid": make(f.mid), "Leaf": make(f.leaf), "Deep": make(f.deep), "Sib": make(f.sib)]
            try apply(jsStepPatch(f.base, "js"))
            swizzleStep(f.mid, "s:Mid")
            hook(f.leaf, "step", HookOption.before, "hook:Leaf")
            let expected: [String: (String, String)] = [
                "Deep": ("\"base>js>mid>s:Mid>deep\"", "Deep hook:Leaf s:Mid Mid js Base"),
                "Leaf": ("\"base>js>mid>s:Mid\"", "hook:Leaf s:Mid Mid js Base"),
                "Mid": ("\"base>js>mid>s:Mid\"", "s:Mid Mid js Base"),
                "Base": ("\"base>js\"", "js Base"),
                "Sib": ("\"base>js\"", "js Base"),
            ]
            for (level, (result, entries)) in expected {
                XCTAssertEqual(step(objects[level]!), result, "\(route): \(level)")
                XCTAssertEqual(log(), entries, "\(route): \(level)")
            }
        }
    }

    /// JS patches on parent and child (the child's calling ORIG, which reaches the parent's
    /// patch through Mid's [super step]), with hooks on both: each layer once.
    func testPatchesAndHooksOnParentAndChild() throws {
        for route in Self.routes {
            let f = try family(route)
            let deep = make(f.deep)
            try apply(jsStepPatch(f.base, "jsBase") + jsStepPatch(f.mid, "jsMid"))
            hook(f.base, "step", HookOption.after, "after:Base")
            hook(f.mid, "step", HookOption.before, "before:Mid")
            hook(deep, "step", HookOption.before, "before:deep")
            XCTAssertEqual(step(deep), "\"base>jsBase>mid>jsMid>deep\"", "\(route)")
            XCTAssertEqual(log(), "before:deep Deep before:Mid jsMid Mid jsBase Base after:Base", "\(route)")
        }
    }

    /// A hook on a method a JS patch added to the class (a selector new to it): the hook wraps
    /// the patch, and removing the hook leaves the added method working.
    func testHookOnAMethodAddedByAPatch() throws {
        for route in Self.routes {
            let f = try family(route)
            let base = make(f.base), leaf = make(f.leaf)
            try apply("""
            defineClass('\(f.base)', {
              patchedGreeting: function() { require('PFToolkitLog').append('greeting'); return 'hello'; }
            });
            """)
            let token = hook(f.base, "patchedGreeting", HookOption.before, "hook")
            XCTAssertEqual(take(pf_send(base, "patchedGreeting")), "\"hello\"", "\(route)")
            XCTAssertEqual(take(pf_send(leaf, "patchedGreeting")), "\"hello\"", "\(route)")
            XCTAssertEqual(log(), "hook greeting hook greeting", "\(route)")
            XCTAssertEqual(pf_tk_remove(token), 1)
            XCTAssertEqual(take(pf_send(base, "patchedGreeting")), "\"hello\"", "\(route)")
            XCTAssertEqual(log(), "greeting", "\(route)")
        }
    }

    /// A patch of a class method of a class never messaged before stays on that class: other
    /// classes never messaged either (GCC's runtime shares one dispatch table among them until
    /// their first message) and the class's own subclasses answer with their own methods.
    func testClassMethodPatchOnAnUnusedClassStaysThere() throws {
        for route in Self.routes {
            let patched = try family(route), other = try family(route)
            try apply(jsToString + """
            defineClass('\(patched.base)', {}, {
              kind: function() { require('PFToolkitLog').append('js+kind'); return S(self.ORIGkind()) + '>js'; }
            });
            """)
            XCTAssertEqual(take(pf_send_class(other.mid, "kind")), "\"base>mid\"", "\(route)")
            XCTAssertEqual(log(), "+Mid +Base", "\(route)")
            XCTAssertEqual(take(pf_send_class(patched.mid, "kind")), "\"base>js>mid\"", "\(route)")
            XCTAssertEqual(log(), "+Mid js+kind +Base", "\(route)")
        }
    }

    /// Code outside the toolkit exchanging implementations (a naive swizzle, Aspects' "other AOP
    /// framework" test) before a hook: the hook wraps the exchanged method, and after exchanging
    /// back and removing the hook everything is as it was.
    func testNaiveExchangeBeforeAHook() throws {
        for route in Self.routes {
            let f = try family(route)
            let object = make(f.mid)
            pf_tk_naive_exchange_step(f.mid)
            XCTAssertEqual(step(object), "\"base>mid\"", "\(route)")
            XCTAssertEqual(log(), "naive Mid Base", "\(route)")
            let token = hook(f.mid, "step", HookOption.before, "hook")
            XCTAssertEqual(step(object), "\"base>mid\"", "\(route)")
            XCTAssertEqual(log(), "hook naive Mid Base", "\(route)")
            XCTAssertEqual(pf_tk_remove(token), 1)
            pf_tk_naive_exchange_step(f.mid)
            XCTAssertEqual(step(object), "\"base>mid\"", "\(route)")
            XCTAssertEqual(log(), "Mid Base", "\(route)")
        }
    }

    /// The same exchange after the hook, on the closure route: the exchanged-in selector now
    /// points at the slot's closure, which still knows its slot, so the hook and the original
    /// both run once. (On the forwarding route the exchanged selector reaches -forwardInvocation:
    /// under a name no slot has, and the call raises, as with Aspects.)
    func testNaiveExchangeAfterAHookOnTheClosureRoute() throws {
        let f = try family(PERouteClosure)
        let object = make(f.mid)
        hook(f.mid, "step", HookOption.before, "hook")
        pf_tk_naive_exchange_step(f.mid)
        XCTAssertEqual(step(object), "\"base>mid\"")
        XCTAssertEqual(log(), "naive hook Mid Base")
        pf_tk_naive_exchange_step(f.mid)
        XCTAssertEqual(step(object), "\"base>mid\"")
        XCTAssertEqual(log(), "hook Mid Base")
    }

    /// Hooks on an instance of a Foundation class (GNUstep's mutable string): only that instance.
    func testInstanceHookOnAFoundationObject() throws {
        let hooked = pf_make_sample("mutableString"), other = pf_make_sample("mutableString")
        defer { release(hooked); release(other) }
        hook(hooked, "appendString:", HookOption.before, "append", PFHookLogArguments)
        XCTAssertNil(take(pf_send_void_str(hooked, "appendString:", "!")))
        XCTAssertNil(take(pf_send_void_str(other, "appendString:", "?")))
        XCTAssertEqual(log(), "append([\"!\"])")
        XCTAssertEqual(take(pf_describe(hooked))?.hasSuffix("!\""), true)
        XCTAssertEqual(take(pf_describe(other))?.hasSuffix("?\""), true)
    }

    /// Class methods: a JS patch of +kind on the parent, a hook on the child's class method.
    func testClassMethodPatchAndHook() throws {
        for route in Self.routes {
            let f = try family(route)
            try apply(jsToString + """
            defineClass('\(f.base)', {}, {
              kind: function() { require('PFToolkitLog').append('js+kind'); return S(self.ORIGkind()) + '>js'; }
            });
            """)
            hookClassMethod(f.mid, "kind", HookOption.before, "hook+Mid", via: 0)
            XCTAssertEqual(take(pf_send_class(f.leaf, "kind")), "\"base>js>mid\"", "\(route)")
            XCTAssertEqual(log(), "hook+Mid +Mid js+kind +Base", "\(route)")
        }
    }
}
