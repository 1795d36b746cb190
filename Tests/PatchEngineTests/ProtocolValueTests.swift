import Foundation
import XCTest
import PatchEngine
import PatchFixtures

/// `protocol('X')`, a patch's `@protocol(X)`: the runtime's protocol object, passed to
/// `conformsToProtocol:` and other `Protocol *` parameters, crossing both ways between native
/// code and patches (PFProtocolCheck answers NO natively; the patches give compiled code's answer).
/// Every protocol object that crosses into JS is the runtime's one for its name, including the
/// ones GCC's runtime never registered (PFUnregisteredProtocols.m, PEPlatform.h).
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
    /// argument, and one the patch passes comes back from native code usable. A module's own
    /// registered copy (GCC's runtime keeps one per adopting module) becomes the runtime's one.
    func testProtocolObjectsCrossBetweenNativeCodeAndPatches() throws {
        let errors = captureErrors()
        try apply("""
        defineClass('PFProtocolCheck', {
          object_conformsTo: function(object, p) { return object.conformsToProtocol(p); },
          echo: function(p) { return p; }
        })
        """)
        let copying = pf_protocol_compiled("NSCopying"), coding = pf_protocol_compiled("NSCoding")
        XCTAssertEqual(pf_protocol_check_object_conforms(0, nil, copying), 1)
        XCTAssertEqual(pf_protocol_check_object_conforms(1, nil, copying), 0)
        XCTAssertEqual(pf_protocol_check_object_conforms(0, nil, coding), 1)
        XCTAssertEqual(pf_protocol_check_object_conforms(1, nil, coding), 0)
        #if os(Linux)
        XCTAssertNotEqual(copying, pf_protocol_runtime("NSCopying"), "the premise: this module's copy isn't the runtime's")
        #endif
        XCTAssertEqual(pf_protocol_check_echo(copying), pf_protocol_runtime("NSCopying"))
        XCTAssertEqual(errors.errors.map { "\($0)" }, [])
        let echoed = try apply(sameBoxHelper + """
        require('PFProtocolCheck, NSMutableString, NSObject');
        var p = PFProtocolCheck.new().echo(protocol('NSCopying'));
        [same(p, protocol('NSCopying')), yesNo(NSMutableString.string().conformsToProtocol(p)),
         yesNo(NSObject.new().conformsToProtocol(p)), protocol('NSCopying') === protocol('NSCopying'),
         protocol('NSCopying') === protocol('NSCoding')].join()
        """)
        XCTAssertEqual(echoed as? String, "true,yes,no,true,false")
    }

    /// Protocol objects compiled in a module that adopts none (GCC's runtime left them
    /// unregistered: no class, NO to every conformsToProtocol:) reach JS as the runtime's own,
    /// as arguments of patched methods, return values and block arguments; what a patch returns
    /// to native code is the runtime's one too. (Boxing one crashed the process before.)
    func testUnregisteredProtocolObjectsReachJSAsTheRuntimesOne() throws {
        let unregistered = pf_protocol_unregistered("NSCopying")
        #if os(Linux)
        XCTAssertEqual(pf_protocol_class_word(unregistered), 2, "the premise: GCC's runtime left it unregistered")
        XCTAssertEqual(pf_protocol_string_conforms(unregistered), 0, "so compiled code's conformsToProtocol: with it answers NO")
        #endif
        let errors = captureErrors()
        try apply("""
        defineClass('PFProtocolCheck', {
          object_conformsTo: function(object, p) { return object.conformsToProtocol(p); },
          echo: function(p) { return p; }
        })
        """)
        XCTAssertEqual(pf_protocol_check_object_conforms(0, nil, unregistered), 1, "an NSString copies")
        XCTAssertEqual(pf_protocol_check_object_conforms(1, nil, unregistered), 0, "a plain NSObject doesn't")
        XCTAssertEqual(pf_protocol_check_object_conforms(0, nil, pf_protocol_unregistered("NSCoding")), 1)
        let echoed = pf_protocol_check_echo(unregistered)
        XCTAssertEqual(echoed, pf_protocol_runtime("NSCopying"), "native code gets the runtime's protocol back")
        XCTAssertEqual(pf_protocol_string_conforms(echoed), 1)
        let seen = try apply(sameBoxHelper + """
        require('PFProtocolSource, NSMutableString');
        var source = PFProtocolSource.new(), returned = source.copyingProtocol();
        var visited = source.visit(block('int, id', function(p) { return same(p, protocol('NSCopying')) ? 7 : 0; }));
        [same(returned, protocol('NSCopying')), yesNo(NSMutableString.string().conformsToProtocol(returned)), visited].join()
        """)
        XCTAssertEqual(seen as? String, "true,yes,7")
        XCTAssertEqual(errors.errors.map { "\($0)" }, [])
    }

    /// A protocol no class adopts anywhere isn't in GCC's runtime at all. Once one of its compiled
    /// objects reaches JS it is (as every protocol is on Apple's runtime): by name, with its
    /// methods' types and its inherited protocols, so a script can name it and adopt it.
    func testProtocolNoClassAdoptsIsTheRuntimesOnceItReachesJS() throws {
        #if os(Linux)
        XCTAssertNil(pf_protocol_runtime("PFNeverAdopted"), "the premise: the runtime doesn't know it")
        #endif
        let adopting = uniqueClassName("PFJSNeverAdopting")
        let errors = captureErrors()
        let seen = try apply(sameBoxHelper + """
        require('PFProtocolSource');
        var p = PFProtocolSource.new().neverAdoptedProtocol();
        defineClass('\(adopting) : NSObject <PFNeverAdopted>', { neverAdoptedValue: function(x) { return x * 2; } });
        defineClass('PFProtocolCheck', {
          object_conformsTo: function(object, p) { return object.conformsToProtocol(p); }
        });
        [same(p, protocol('PFNeverAdopted')), String(p)].join()
        """)
        XCTAssertEqual(seen as? String, "true,<Protocol PFNeverAdopted>")
        XCTAssertEqual(pf_protocol_never_adopted_value(adopting, 21), 42, "the method took the protocol's types (int)")
        XCTAssertEqual(pf_conforms(adopting, "PFNeverAdopted"), 1)
        XCTAssertEqual(pf_conforms(adopting, "NSCopying"), 1, "PFNeverAdopted inherits NSCopying")
        XCTAssertEqual(pf_protocol_check_object_conforms(2, adopting, pf_protocol_unregistered("PFNeverAdopted")), 1)
        XCTAssertEqual(pf_protocol_check_object_conforms(0, nil, pf_protocol_unregistered("PFNeverAdopted")), 0)
        XCTAssertEqual(errors.errors.map { "\($0)" }, [])
    }

    /// A protocol answers in JS what it answers natively, and is never sent a message it lacks
    /// (on GCC's runtime it answers -isEqual: and -class, not -description, -retain or
    /// -methodSignatureForSelector:); it prints by name and, like a class, never goes away.
    func testAProtocolIsSentOnlyMessagesItAnswers() throws {
        let result = try apply(sameBoxHelper + """
        var p = protocol('NSCopying'), out = [];
        out.push(yesNo(p.isEqual(protocol('NSCopying'))), String(p), same(__weak(p), p));
        try { out.push(String(p.description())); } catch (e) { out.push(e.message); }
        out.join('|')
        """)
        #if os(Linux)
        XCTAssertEqual(result as? String, "yes|<Protocol NSCopying>|true|unrecognized selector -[Protocol description]")
        #else
        XCTAssertEqual((result as? String)?.hasPrefix("yes|<Protocol NSCopying>|true|"), true, "\(String(describing: result))")
        #endif
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

    /// `same(a, b)`: one object in two boxes (without the private symbols the engine keeps no
    /// box cache, so boxes aren't `===`); `yesNo(BOOL)` (a number on GCC's runtime, a boolean on Apple's).
    private var sameBoxHelper: String {
        let noBoxCache = ProcessInfo.processInfo.environment["PATCHENGINE_PRIVATE_SYMBOLS"] == "absent"
        return """
        function same(a, b) { return a === b || (\(noBoxCache) && !!a && !!b && a.isEqual(b) == true); }
        function yesNo(b) { return b ? 'yes' : 'no'; }

        """
    }
}
