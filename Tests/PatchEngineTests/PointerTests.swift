import Foundation
import XCTest
import PatchEngine
import PatchFixtures

/// Pointers (^, *) as opaque boxes, and out-parameters (NSError **) through memory
/// boxes: malloc(sizeof('id')), pval(box), free(box), assignPointer(box, object).
final class PointerTests: PatchTestCase {
    private let memory = "var m = require('PFMemory').alloc().init();\n"
    private let failing = "var f = require('PFFailing').alloc().init();\n"

    func testPointerBoxesPassThroughScripts() throws {
        let result = try apply(memory + """
        var p = m.makeRecord();
        var r = [m.checkRecord(p) ? 1 : 0, m.indexOfRecord(p)];
        m.freeRecord(p);
        r
        """)
        XCTAssertEqual(render(result), "[1, 42]")
    }

    func testNullPointerArgument() throws {
        XCTAssertEqual(render(try apply(memory + "m.indexOfRecord(null)")), "-1")
    }

    func testCStringBoxes() throws {
        let result = try apply(memory + "[m.checkChars(m.staticChars()) ? 1 : 0, m.recordName(m.staticChars()).toJS()]")
        XCTAssertEqual(render(result), "[1, \"name:JSPatch\"]")
    }

    func testPatchedMethodReturnsTheSamePointer() throws {
        try apply("defineClass('PFMemory', { echoPointer: function(p) { return p } })")
        XCTAssertEqual(pf_memory_echo_pointer(), 1)
    }

    func testPatchedMethodReturnsTheSameCString() throws {
        try apply("defineClass('PFMemory', { echoChars: function(chars) { return chars } })")
        XCTAssertEqual(take(pf_memory_echo_chars()), "JSPatch")
    }

    func testPatchedMethodPassesCStringToOriginal() throws {
        try apply(jsToString + "defineClass('PFMemory', { recordName: function(chars) { return S(self.ORIGrecordName(chars)) + '!' } })")
        XCTAssertEqual(take(pf_memory_record_name("abc")), "\"name:abc!\"")
    }

    func testSizeofId() throws {
        XCTAssertEqual(render(try apply("sizeof('id')")), "8")
    }

    func testErrorOutParameterFromScript() throws {
        let result = try apply(failing + """
        var errPtr = malloc(sizeof('id'));
        var ok = f.loadNamed_error('bad', errPtr);
        var err = pval(errPtr);
        var r = [ok ? 1 : 0, err.code(), err.domain().toJS(), err.userInfo().objectForKey('reason').toJS()];
        free(errPtr);
        r
        """)
        XCTAssertEqual(render(result), "[0, 42, \"PFErrorDomain\", \"bad name\"]")
    }

    func testErrorOutParameterUntouchedOnSuccess() throws {
        // As in JSPatch, an id * box passed to a method starts out nil.
        let result = try apply(failing + """
        var errPtr = malloc(sizeof('id'));
        var ok = f.loadNamed_error('good', errPtr);
        var r = [ok ? 1 : 0, pval(errPtr) ? 'error' : 'no error'];
        free(errPtr);
        r
        """)
        XCTAssertEqual(render(result), "[1, \"no error\"]")
    }

    func testNullForAnErrorPointer() throws {
        XCTAssertEqual(render(try apply(failing + "f.loadNamed_error('bad', null) ? 1 : 0")), "0")
    }

    func testPatchedMethodWritesTheErrorOutParameter() throws {
        try apply("""
        defineClass('PFFailing', {
          loadNamed_error: function(name, errPtr) {
            if (errPtr) {
              assignPointer(errPtr, require('NSError').errorWithDomain_code_userInfo('JSDomain', 7, {reason: 'from js'}))
            }
            return 0
          }
        })
        """)
        var raised: Int32 = 0
        var text: UnsafeMutablePointer<CChar>?
        XCTAssertEqual(pf_failing_load("x", &text, &raised), 0)
        XCTAssertEqual(take(text), "JSDomain/7/from js")
        XCTAssertEqual(raised, 0)
        // A native caller passing NULL for the error pointer: the script sees a falsy box.
        XCTAssertEqual(pf_failing_load_without_error_pointer("x", &raised), 0)
        XCTAssertEqual(raised, 0)
    }
}
