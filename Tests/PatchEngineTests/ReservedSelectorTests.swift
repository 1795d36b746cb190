import Foundation
import XCTest
import PatchEngine
import PatchRuntime
import PatchFixtures

/// Memory-management methods are never taken over: the engine itself sends them while it boxes
/// and releases objects, so a JS implementation would recurse into itself. Refused by defineClass,
/// the JS hook API, the Objective-C hook (Aspects) API and the swizzle API, with an error naming
/// the selector and why. `dealloc` stays patchable (JSPatch semantics, covered elsewhere).
final class ReservedSelectorTests: ToolkitTestCase {
    static let reserved = ["retain", "release", "autorelease", "retainCount", "_tryRetain",
                           "allowsWeakReference", "retainWeakReference", ".cxx_destruct"]

    func testDefineClassRefusesMemoryManagementMethods() throws {
        for selector in ["retain", "release", "autorelease", "retainCount", "allowsWeakReference", "retainWeakReference"] {
            let name = uniqueScriptName()
            let error = applyExpectingError("""
            defineClass('PFFailing', {
              riskyValue: function() { return 99 },
              \(selector): function() { return self }
            })
            """, name: name)
            XCTAssertEqual(error?.kind, .evaluation)
            XCTAssertTrue(error?.message.contains("\(selector) is a memory-management method") == true, "\(String(describing: error))")
            XCTAssertEqual(error?.scriptName, name)
            XCTAssertEqual(error?.line, 1)
            var raised: Int32 = 0
            XCTAssertEqual(pf_failing_risky_value(&raised), 7, "the whole script was rolled back")
        }
        // Objects are still retained and released normally.
        let greeter = pf_new("PFGreeter")
        pf_release(greeter)
        XCTAssertEqual(render(try apply("require('PFFailing').alloc().init().riskyValue()")), "7")
    }

    func testJSHooksRefuseMemoryManagementMethods() throws {
        let f = try family(PERouteClosure)
        for selector in ["retainCount", "allowsWeakReference", "retainWeakReference"] {
            let error = applyExpectingError("hook(require('\(f.base)'), '\(selector)', 'before', function() {})")
            XCTAssertTrue(error?.message.contains("Selector \(selector) is blacklisted") == true, "\(String(describing: error))")
            XCTAssertTrue(error?.message.contains("memory-management") == true, "\(String(describing: error))")
        }
    }

    func testObjectiveCHooksRefuseMemoryManagementMethods() throws {
        let f = try family()
        let object = make(f.base)
        for selector in ["retainCount", "_tryRetain", "allowsWeakReference", "retainWeakReference", ".cxx_destruct"] {
            let classRefusal = refusal(f.base, selector, HookOption.after)
            XCTAssertTrue(classRefusal.hasPrefix("0: Selector \(selector) is blacklisted"), classRefusal)
            XCTAssertTrue(classRefusal.contains("memory-management"), classRefusal)
            XCTAssertTrue(refusal(object, selector, HookOption.before).hasPrefix("0: Selector \(selector) is blacklisted"))
        }
        pf_tk_ping(object)
        XCTAssertEqual(log(), "ping")
    }

    func testSwizzlingRefusesMemoryManagementMethods() throws {
        let f = try family()
        for selector in ["release", "retain", "autorelease"] {
            var error: UnsafeMutablePointer<CChar>?
            let handle = pf_swizzle_void(f.base, selector, 0, nil, "x", &error)
            if handle != 0 { _ = pf_tk_remove(handle) }
            XCTAssertEqual(handle, 0, "\(selector) was swizzled")
            let text = take(error) ?? ""
            XCTAssertTrue(text.contains("\(selector) is a memory-management method"), text)
        }
        let object = make(f.base)
        pf_tk_ping(object)
        XCTAssertEqual(log(), "ping")
    }

    func testTheReservedListIsExactlyDocumented() {
        for selector in Self.reserved { XCTAssertNotNil(PEReservedSelectorReason(selector), selector) }
        for selector in ["dealloc", "init", "description", "class", "respondsToSelector:", "isKindOfClass:"] {
            XCTAssertNil(PEReservedSelectorReason(selector), selector)
        }
    }
}
