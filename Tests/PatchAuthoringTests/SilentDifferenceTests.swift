import ConversionCorpus
import Foundation
import PatchAuthoring
import PatchEngine
import XCTest

/// The corpus of constructs whose first conversions ran but differed from the compiled code
/// (issue 33; Tests/ConversionCorpus/CCSilent.m, NotCompiled/CCSilentModern.m): each converted
/// method gives what the compiled one gives, or is refused at its place with the reason.
final class SilentDifferenceTests: XCTestCase {
    static func method(_ text: String) -> ObjCConverter.MethodName { ObjCConverter.MethodName(parsing: text)! }

    /// Refused (the variadic implementations themselves read `va_list`; `sum:` isn't a format).
    static let refused: Set<String> = ["log:", "sum:", "refusedVariadic", "refusedCounter", "storedCount"]

    static let calls: [String] = [
        "CCSilent.new().variadicCalls('http://x/a%20b')", "(function () { var o = CCSilent.new(); o.setPriority(42); return o.variadicCalls('u'); })()",
        "CCSilent.new().literalsEverywhere_flag(['ab', 'c'], true)", "CCSilent.new().literalsEverywhere_flag(null, false)",
        "CCSilent.new().boxedReceivers(3)", "CCSilent.new().boxedReceivers(-8)",
        "CCSilent.new().nilEverywhere('g')", "CCSilent.new().nilEverywhere(null)",
        "CCSilent.new().pick(null)", "CCSilent.new().pick('p')",
        "CCSilent.new().captures()",
        "(function () { var o = CCSilent.new(); var parts = o.pointerFormat(o).toJS().split('|'); return parts[0] === parts[1] && /^0x[0-9a-f]+$/.test(parts[0]); })()",
        "CCSilent.new().scanned('ab/cd')", "CCSilent.new().scanned('/cd')", "CCSilent.new().constants()", "CCSilent.new().externConstants()", "CCSilent.new().constantExpressions()",
        "NSString.stringWithString('abc').ccSilentTagged()",
    ]

    func testSilentDifferencesBehaveAsTheCompiledMethods() throws {
        XCTAssertEqual(cc_silent_class_count(), 1)
        let allowed = PatchEngine.allowedExternConstants
        PatchEngine.allowedExternConstants = ["CCSilentExternKey", "CCSilentExternLimit"]
        defer { PatchEngine.allowedExternConstants = allowed }
        try ConversionCorpusTests.assertConvertedBehaveAsNative("CCSilent.m", calls: Self.calls, classes: "CCSilent, NSString", skipping: Self.refused)
    }

    /// `@protocol(X)` (Tests/ConversionCorpus/CCProtocols.m) becomes `protocol('X')`: conformsToProtocol:
    /// of instances and classes, a protocol passed as an argument and one returned.
    func testProtocolExpressionsBehaveAsTheCompiledMethods() throws {
        XCTAssertEqual(cc_protocols_class_count(), 2)
        let calls = ["CCProtocols.new().conformances(CCProtocolShape.new())", "CCProtocols.new().conformances(NSObject.new())",
                     "CCProtocols.new().conformances(NSString.stringWithString('s'))",
                     "CCProtocols.new().passed(CCProtocolShape.new())", "CCProtocols.new().passed(NSObject.new())",
                     "CCProtocols.new().object_adopts(CCProtocolShape.new(), protocol('CCNamed'))",
                     "CCProtocols.new().object_adopts(NSObject.new(), protocol('CCNamed'))",
                     "CCProtocolShape.new().conformsToProtocol(CCProtocols.new().protocolFor(1))",
                     "NSObject.new().conformsToProtocol(CCProtocols.new().protocolFor(0))",
                     "CCProtocols.new().returned(CCProtocolShape.new())", "CCProtocols.new().returned(NSObject.new())",
                     "CCProtocolShape.new().copy().name()"]
        try ConversionCorpusTests.assertConvertedBehaveAsNative("CCProtocols.m", calls: calls, classes: "CCProtocols, CCProtocolShape, NSObject, NSString",
                                                                skipping: [])
        let converted = try ConversionCorpusTests.convert("CCProtocols.m")
        XCTAssertTrue(converted.script.contains(".conformsToProtocol(protocol('NSCopying'))"), converted.script)
        XCTAssertEqual(converted.errors, [])
    }

    /// What can't be converted faithfully is refused where it is, with the reason.
    func testRefusalsAreReportedAtTheirPlace() throws {
        let silent = try ConversionCorpusTests.convert("CCSilent.m", methods: [Self.method("-[CCSilent refusedCounter]"), Self.method("-[CCSilent refusedVariadic]")])
        XCTAssertEqual(silent.errors.map { ConversionCorpusTests.relative($0.description) }, [
            "CCSilent.m:169:14: error: global variable CCSilentCounter is the app's mutable state: a patch can't read or change it "
                + "(keep such state in the patch, as a property of a class it defines, or reach it through a method of the app)",
            "CCSilent.m:175:12: error: -sum: is variadic and not a format method: the engine passes extra arguments only to selectors "
                + "ending in Format:/format: and Foundation's nil-terminated lists (call a non-variadic variant, or give the method a "
                + "format attribute, NS_FORMAT_FUNCTION)",
        ])
        let dictionary = try ConversionCorpusTests.convert("CCSilent.m", methods: [Self.method("-[CCSilentDictionary storedCount]")])
        XCTAssertEqual(dictionary.errors.map { ConversionCorpusTests.relative($0.description) }, [
            "CCSilent.m:211:13: error: instance variable _storage of CCSilentDictionary: a patch reaches instance variables through "
                + "key-value coding, which NSDictionary answers itself (inherited, e.g. with its entries): reach the value through a method of the class",
        ])
        let modern = try ConversionCorpusTests.convert("NotCompiled/CCSilentModern.m", methods: [Self.method("-[CCSilentModern refusedBlockMessage]")])
        XCTAssertEqual(modern.errors.map { ConversionCorpusTests.relative($0.description) }, [
            "NotCompiled/CCSilentModern.m:30:18: error: -description sent to a block (a block is a JS function in a patch; only copy, retain, autorelease and release convert)",
        ])
    }

    /// A `__weak` parameter a block captures doesn't keep its object alive: once the object is
    /// gone, the block sees nil. (The class is made in JS, as weak references don't compile here,
    /// and keeps the block and the status in JS: a block stored through a property is sent
    /// -retain, which a block on GCC's runtime can't answer.)
    func testWeakParameterIsCapturedWeakly() throws {
        if ProcessInfo.processInfo.environment["PATCHENGINE_PRIVATE_SYMBOLS"] == "absent" {
            throw XCTSkip("needs a collection now (JSSynchronousGarbageCollectForDebugging)")
        }
        let converted = try ConversionCorpusTests.convert("NotCompiled/CCSilentModern.m", methods: [Self.method("-[CCSilentModern observe:]")])
        XCTAssertEqual(converted.errors, [])
        let defined = converted.script
            .replacingOccurrences(of: "defineClass('CCSilentModern <CCSilentModernConvertedMethods>', {",
                                  with: "defineClass('CCSilentWeakProbe : NSObject <CCSilentModernConvertedMethods>', [], {\n  _setHandler: function (h) { silentHandler = h; },\n  _setStatus: function (s) { silentStatus = s; },")
            .replacingOccurrences(of: "self.setHandler(", with: "self._setHandler(")
            .replacingOccurrences(of: "$blockSelf.setStatus(", with: "$blockSelf._setStatus(")
        XCTAssertTrue(defined.contains("CCSilentWeakProbe") && defined.contains("_setHandler(block("), defined)
        _ = try PatchEngine.evaluate("var silentHandler = null, silentStatus = null;\n" + defined, name: "silent-weak.js")
        defer { for name in ["silent-weak.js", "silent-weak-run.js", "silent-weak-check.js"] { try? PatchEngine.revert(name) } }
        _ = try PatchEngine.evaluate("""
            require('CCSilentWeakProbe, NSMutableArray');
            var probe = CCSilentWeakProbe.new();
            (function () { var target = NSMutableArray.alloc().init(); target.addObject('x'); probe.observe(target); })();
            """, name: "silent-weak-run.js")
        var status: Any?
        for _ in 0..<20 {
            PatchEngine.collectGarbage()
            status = try PatchEngine.evaluate("silentStatus = null; silentHandler(); silentStatus === null ? 'nil' : String(silentStatus.toJS())", name: "silent-weak-check.js")
            if status as? String == "nil" { break }
        }
        XCTAssertEqual(status as? String, "nil", "the block kept the target alive")
    }

    /// An extern constant the app doesn't list can't be read: the call fails, naming the list.
    func testExternConstantsNeedTheAppsPermission() throws {
        XCTAssertThrowsError(try PatchEngine.evaluate("externConstant('CCSilentExternKey', 'NSString *')", name: "silent-extern.js")) { error in
            XCTAssertTrue("\(error)".contains("CCSilentExternKey is not in PatchEngine.allowedExternConstants"), "\(error)")
        }
        let allowed = PatchEngine.allowedExternConstants
        PatchEngine.allowedExternConstants = ["CCSilentExternKey", "CCSilentNoSuchSymbol"]
        defer { PatchEngine.allowedExternConstants = allowed }
        XCTAssertEqual(try PatchEngine.evaluate("String(externConstant('CCSilentExternKey', 'NSString *').toJS())", name: "silent-extern.js") as? String, "extern-key")
        XCTAssertThrowsError(try PatchEngine.evaluate("externConstant('CCSilentNoSuchSymbol', 'NSInteger')", name: "silent-extern.js")) { error in
            XCTAssertTrue("\(error)".contains("no symbol named CCSilentNoSuchSymbol"), "\(error)")
        }
    }
}
