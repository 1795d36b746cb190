import Foundation
import XCTest
import PatchEngine
import PatchFixtures

/// `protocol('X')`, a patch's `@protocol(X)`: the runtime's protocol object, passed to
/// `conformsToProtocol:` and other `Protocol *` parameters, crossing both ways between native
/// code and patches (PFProtocolCheck answers NO natively; the patches give compiled code's answer).
final class ProtocolValueTests: PatchTestCase {
    func testPatchedMethodAnswersConformsToProtocolAsCompiledCode() throws {
        let errors = captureErrors()
        XCTAssertEqual(pf_protocol_check_copies(0, nil), 0, "the shipped bug")
        try apply("""
        defineClass('PFProtocolCheck', {
          copies: function(object) { return object.conformsToProtocol(protocol('NSCopying')); }
        })
        """)
        XCTAssertEqual(pf_protocol_compiled_copies(0, nil), 1)
        XCTAssertEqual(pf_protocol_compiled_copies(1, nil), 0)
        XCTAssertEqual(pf_protocol_check_copies(0, nil), pf_protocol_compiled_copies(0, nil), "an NSString copies")
        XCTAssertEqual(pf_protocol_check_copies(1, nil), pf_protocol_compiled_copies(1, nil), "a plain NSObject doesn't")
        XCTAssertEqual(errors.errors.map { "\($0)" }, [])
    }

    /// A protocol object made by compiled code (`@protocol(NSCopying)`) reaches the patch as an
    /// argument, and one the patch passes comes back from native code usable.
    func testProtocolObjectsCrossBetweenNativeCodeAndPatches() throws {
        let errors = captureErrors()
        try apply("""
        defineClass('PFProtocolCheck', {
          object_conformsTo: function(object, p) { return object.conformsToProtocol(p); }
        })
        """)
        XCTAssertEqual(pf_protocol_check_object_conforms(0, nil, "NSCopying"), 1)
        XCTAssertEqual(pf_protocol_check_object_conforms(1, nil, "NSCopying"), 0)
        XCTAssertEqual(pf_protocol_check_object_conforms(0, nil, "NSCoding"), 1)
        XCTAssertEqual(pf_protocol_check_object_conforms(1, nil, "NSCoding"), 0)
        XCTAssertEqual(errors.errors.map { "\($0)" }, [])
        let echoed = try apply("""
        require('PFProtocolCheck, NSMutableString, NSObject');
        var p = PFProtocolCheck.new().echo(protocol('NSCopying'));
        [p === protocol('NSCopying') || PATCHENGINE_NO_BOX_CACHE, NSMutableString.string().conformsToProtocol(p),
         NSObject.new().conformsToProtocol(p), protocol('NSCopying') === protocol('NSCopying'),
         protocol('NSCopying') === protocol('NSCoding')].join()
        """.replacingOccurrences(of: "PATCHENGINE_NO_BOX_CACHE", with: privateSymbolsAbsent ? "true" : "false"))
        XCTAssertEqual(echoed as? String, "true,true,false,true,false")
    }

    func testUnknownProtocolNameIsAClearError() throws {
        let error = applyExpectingError("protocol('PFNoSuchProtocol')")
        XCTAssertTrue("\(error.map { "\($0)" } ?? "")".contains(
            "protocol('PFNoSuchProtocol'): no Objective-C protocol named PFNoSuchProtocol in the runtime (declare it with defineProtocol"),
            "\(String(describing: error))")
    }

    /// A protocol declared by a script is a runtime protocol too: classes adopting it conform.
    func testScriptDeclaredProtocol() throws {
        let proto = uniqueClassName("PFJSDeclaredProtocol"), adopting = uniqueClassName("PFJSAdopting")
        let errors = captureErrors()
        try apply("""
        defineProtocol('\(proto)', { shape: { paramsType: '', returnType: 'NSString *' } });
        defineClass('\(adopting) : NSObject <\(proto)>', { shape: function() { return 'round'; } });
        defineClass('PFProtocolCheck', {
          copies: function(object) { return object.conformsToProtocol(protocol('\(proto)')); }
        })
        """)
        XCTAssertEqual(pf_protocol_check_copies(2, adopting), 1)
        XCTAssertEqual(pf_protocol_check_copies(0, nil), 0)
        XCTAssertEqual(pf_conforms(adopting, proto), 1)
        XCTAssertEqual(errors.errors.map { "\($0)" }, [])
    }

    private var privateSymbolsAbsent: Bool {
        ProcessInfo.processInfo.environment["PATCHENGINE_PRIVATE_SYMBOLS"] == "absent"
    }
}
