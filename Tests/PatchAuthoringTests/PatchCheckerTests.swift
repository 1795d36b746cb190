import Foundation
import PatchAuthoring
import XCTest

/// `patchctl check` against the shop's real interface: a correct patch reports nothing; each
/// seeded mistake is reported once, as the right kind, at the line and column of the name.
final class PatchCheckerTests: XCTestCase {
    static let correct = """
        // A correct patch of the shop: every name is the app's (or the patch's own).
        require('SKProduct, SKCatalog');
        defineClass('SKCart', {
          totalCents: function () {
            return self.discountedSubtotalCents() + self.taxCents();
          },
          addProduct_quantity: function (product, quantity) {
            self.ORIGaddProduct_quantity(product, quantity);
            var s = NSString.stringWithFormat('%@ x %@', product.sku(), quantity);
            var doubled = [1, 2].map(function (x) { return x * 2; });
            console.log(s.toJS() + ' /2/ ' + doubled.join(','));
          }
        }, {
          sampleCart: function () {
            return self.ORIGsampleCart();
          }
        });
        defineClass('SKBadge : NSObject', {
          badgeText: function (prefix) {
            return prefix + self.description().toJS();
          }
        });
        var badge = SKBadge.alloc().init().badgeText('new: ');
        var part = NSString.stringWithString('hello').substringWithRange({location: 1, length: 2});
        var sku = SKCartLine.lineWithProduct_quantity(SKCatalog.productWithSKU('MUG-01'), 2).product().sku();
        """

    /// A mistake: `old` replaced by `new` on `line`; the finding is at `needle`'s first
    /// character in the new line, of `severity`, saying `says`.
    struct Mistake {
        var line: Int
        var old: String
        var new: String
        var needle: String
        var severity: PatchChecker.Severity
        var says: String
    }

    static let mistakes: [Mistake] = [
        Mistake(line: 3, old: "'SKCart'", new: "'SKCrat'", needle: "SKCrat", severity: .error,
                says: "class 'SKCrat' is not in the app's interface and no superclass is given; did you mean 'SKCart'?"),
        Mistake(line: 4, old: "totalCents:", new: "totalCent:", needle: "totalCent", severity: .error,
                says: "SKCart has no method -totalCent; did you mean 'totalCents' (-totalCents)?"),
        Mistake(line: 7, old: "(product, quantity) {", new: "(product) {", needle: "addProduct_quantity", severity: .error,
                says: "-addProduct:quantity: takes 2 arguments, but the function addProduct_quantity declares a different number"),
        Mistake(line: 7, old: "addProduct_quantity:", new: "addProductQuantity:", needle: "addProductQuantity", severity: .error,
                says: "did you mean 'addProduct_quantity' (-addProduct:quantity:)?"),
        Mistake(line: 5, old: "self.taxCents()", new: "self.taxCent()", needle: "taxCent", severity: .error,
                says: "'taxCent' (taxCent) is no selector the app's interface declares; did you mean 'taxCents' (taxCents)?"),
        Mistake(line: 5, old: "self.taxCents()", new: "self.taxCents(1)", needle: "taxCents", severity: .error,
                says: "'taxCents' is 'taxCents', which takes 0 arguments; this call passes 1"),
        Mistake(line: 9, old: "product.sku()", new: "product.sku(2)", needle: "sku", severity: .error,
                says: "'sku' is 'sku', which takes 0 arguments; this call passes 1"),
        Mistake(line: 8, old: "ORIGaddProduct_quantity(product, quantity)", new: "ORIGaddProduct_quantity(product)",
                needle: "ORIGaddProduct_quantity", severity: .error, says: "'addProduct:quantity:', which takes 2 arguments; this call passes 1"),
        Mistake(line: 5, old: "self.taxCents()", new: "self.ORIGitemCount()", needle: "ORIGitemCount", severity: .error,
                says: "ORIGitemCount calls the original of 'itemCount', but this defineClass('SKCart') does not override 'itemCount'"),
        Mistake(line: 2, old: "SKCatalog'", new: "SKCatalogue'", needle: "SKCatalogue", severity: .error,
                says: "require('SKCatalogue'): no such class in the app's interface; did you mean 'SKCatalog'?"),
        Mistake(line: 4, old: "totalCents: function () {", new: "release: function () {", needle: "release", severity: .error,
                says: "-release is a memory-management method"),
        Mistake(line: 14, old: "sampleCart: function", new: "itemCount: function", needle: "itemCount", severity: .error,
                says: "itemCount is an instance method of SKCart: define it in the instance methods object"),
        Mistake(line: 18, old: ": NSObject'", new: ": NSObjet'", needle: "NSObjet", severity: .error,
                says: "superclass 'NSObjet' is not in the app's interface; did you mean 'NSObject'?"),
        Mistake(line: 3, old: "'SKCart'", new: "'SKCart : SKProduct'", needle: "SKProduct", severity: .warning,
                says: "'SKCart' is a subclass of 'NSObject' in the app, not of 'SKProduct'"),
        Mistake(line: 10, old: "[1, 2].map(", new: "[1, 2].mapp(", needle: "mapp", severity: .error,
                says: "'mapp' is sent to a JS array"),
        Mistake(line: 9, old: "product.sku()", new: "product.zzqqxx()", needle: "zzqqxx", severity: .warning,
                says: "'zzqqxx' (zzqqxx) is no selector the app's interface declares"),
        Mistake(line: 7, old: "addProduct_quantity: function (product, quantity)", new: "addGiftNote: function (product, quantity)",
                needle: "addGiftNote", severity: .warning,
                says: "SKCart has no method -addGiftNote:: this adds a new method whose arguments and return value are id"),
        // Receiver-aware: the class of `self`, of `X.alloc().init()`, of a typed return value.
        Mistake(line: 15, old: "self.ORIGsampleCart()", new: "self.itemCount()", needle: "itemCount", severity: .error,
                says: "SKCart has no class method +itemCount (SKCart has it)"),
        Mistake(line: 23, old: "badgeText('new: ')", new: "taxCents()", needle: "taxCents", severity: .error,
                says: "SKBadge has no instance method -taxCents (SKCart has it)"),
        Mistake(line: 25, old: ".product().sku()", new: ".product().quantity()", needle: "quantity()", severity: .error,
                says: "SKProduct has no instance method -quantity (SKCartLine has it)"),
        Mistake(line: 25, old: "SKCatalog.productWithSKU('MUG-01')", new: "SKCatalog.lineWithProduct_quantity(null, 1)", needle: "lineWithProduct_quantity(null",
                severity: .error, says: "SKCatalog has no class method +lineWithProduct:quantity: (SKCartLine has it)"),
        // What the engine refuses when the call runs: extra arguments to a native method that
        // isn't a variadic one it knows, and messages to values JS holds as its own.
        Mistake(line: 25, old: "productWithSKU('MUG-01')", new: "productWithSKU('MUG-01', 2)", needle: "productWithSKU", severity: .error,
                says: "'productWithSKU:' takes 1 argument; this call passes 2, and the engine passes extra arguments only to selectors ending in Format:/format:"),
        Mistake(line: 24, old: "NSString.stringWithString('hello')", new: "'hello'", needle: "substringWithRange", severity: .error,
                says: "'substringWithRange' is sent to a JS string, which has no Objective-C methods"),
        Mistake(line: 10, old: "[1, 2].map(", new: "[1, 2].count(", needle: "count", severity: .error,
                says: "'count' is sent to a JS array (write NSArray.arrayWithArray([…]) for an NSArray)"),
        Mistake(line: 9, old: "product.sku()", new: "(product || []).sku()", needle: "sku", severity: .error,
                says: "'sku' is sent to possibly a JS array (an operand of ||)"),
        Mistake(line: 5, old: "self.taxCents()", new: "(self.taxCents() * 2).description()", needle: "description", severity: .error,
                says: "'description' is sent to the result of an operator (a JS number, string or boolean)"),
        Mistake(line: 5, old: "self.taxCents()", new: "function () { return 1; }.copy()", needle: "copy", severity: .error,
                says: "'copy' is sent to a JS function"),
        Mistake(line: 5, old: "self.taxCents()", new: "(7).hash()", needle: "hash", severity: .error,
                says: "'hash' is sent to a JS number"),
        // A struct passed where the method takes another type.
        Mistake(line: 24, old: "{location: 1, length: 2}", new: "{x: 1, y: 2, width: 3, height: 4}", needle: "{x", severity: .error,
                says: "argument 1 of 'substringWithRange:' is a rect ({height, width, x, y}), but the method takes NSRange"),
    ]

    var checker: PatchChecker!

    override func setUpWithError() throws {
        checker = PatchChecker(interface: try ShopInterface.get())
    }

    func testTheCorrectPatchReportsNothing() {
        XCTAssertEqual(checker.check(Self.correct), [])
        // The shop's own shipped fixes too (gift-wrap.js adds a method: a warning, as it should be).
        for name in ["total.js", "product-name.js"] {
            let source = (try? String(contentsOf: ShopInterface.repository.appendingPathComponent("Samples/patches/\(name)"), encoding: .utf8)) ?? ""
            XCTAssertFalse(source.isEmpty, name)
            XCTAssertEqual(checker.check(source), [], name)
        }
    }

    func testEachSeededMistakeIsReportedAtItsPosition() throws {
        var lines = Self.correct.components(separatedBy: "\n")
        for mistake in Self.mistakes {
            let original = lines[mistake.line - 1]
            XCTAssertTrue(original.contains(mistake.old), "line \(mistake.line) has no \(mistake.old)")
            let seeded = original.replacingOccurrences(of: mistake.old, with: mistake.new)
            lines[mistake.line - 1] = seeded
            defer { lines[mistake.line - 1] = original }
            let script = lines.joined(separator: "\n")
            let column = try XCTUnwrap(seeded.range(of: mistake.needle)).lowerBound.utf16Offset(in: seeded) + 1
            // On the mistake's line, exactly this finding (a renamed method may also orphan its
            // ORIG call elsewhere: that is reported on its own line).
            let found = checker.check(script).filter { $0.line == mistake.line }
            XCTAssertEqual(found.count, 1, "\(mistake.new): \(found)")
            guard let finding = found.first else { continue }
            XCTAssertEqual(finding.line, mistake.line, mistake.new)
            XCTAssertEqual(finding.column, column, "\(mistake.new): \(finding.message)")
            XCTAssertEqual(finding.severity, mistake.severity, "\(mistake.new): \(finding.message)")
            XCTAssertTrue(finding.message.contains(mistake.says), "\(mistake.new): \(finding.message)")
        }
    }

    func testNamesInStringsCommentsAndRegularExpressionsAreNotCalls() {
        let script = """
            // self.totalCent() in a comment
            defineClass('SKCart', {
              totalCents: function () {
                var s = 'self.taxCent()', t = `x.itemCont() ${1 + 2}`, r = /a.fooo(b)/g;  /* x.barr() */
                return self.ORIGtotalCents() / 2;
              }
            });
            """
        XCTAssertEqual(checker.check(script), [])
    }

    func testColumnsCountCharactersNotBytes() {
        let script = "var s = 'héllo'; self.taxCent();"
        let found = checker.check(script)
        XCTAssertEqual(found.map(\.column), [23])
        XCTAssertEqual(found.first?.formatted(file: "p.js"),
                       "p.js:1:23: error: 'taxCent' (taxCent) is no selector the app's interface declares; did you mean 'taxCents' (taxCents)?")
    }

    /// `protocol('X')` (convert's `@protocol(X)`) is no call of a method: a protocol the interface
    /// or the patch declares is no finding; an unknown name is an error at the name, with a guess.
    func testProtocolValuesAreCheckedByName() {
        let script = """
            defineProtocol('SKPatchShape', { area: { paramsType: '', returnType: 'double' } });
            defineClass('SKCart', {
              totalCents: function () {
                var copies = self.conformsToProtocol(protocol('NSCopying')) && self.conformsToProtocol(protocol('SKPatchShape'));
                return copies ? self.ORIGtotalCents() : self.conformsToProtocol(protocol('NSCopyng'));
              }
            });
            """
        XCTAssertEqual(checker.check(script).map { $0.formatted(file: "p.js") }, [
            "p.js:5:79: error: protocol('NSCopyng'): no such protocol in the app's interface or this patch's defineProtocol; did you mean 'NSCopying'?",
        ])
        XCTAssertEqual(PatchChecker(interface: ObjCInterface()).check("var p = protocol('Anything');"), [], "no protocols known: nothing to compare with")
    }

    /// convert's output for the corpus's `@protocol(X)` expressions checks clean against the
    /// interface its .m file gives; a misspelt protocol in it is found.
    func testConvertedProtocolExpressionsCheckClean() throws {
        let file = ConversionCorpusTests.directory.appendingPathComponent("CCProtocols.m").path
        let converted = try ConversionCorpusTests.convert("CCProtocols.m")
        let reader = ClangInterfaceReader(includePaths: [ConversionCorpusTests.directory.path,
                                                         ConversionCorpusTests.directory.appendingPathComponent("include").path])
        let checker = PatchChecker(interface: try reader.read(implementations: [file]))
        XCTAssertEqual(checker.check(converted.script), [])
        let misspelt = checker.check(converted.script.replacingOccurrences(of: "protocol('CCNamed')", with: "protocol('CCName')"))
        XCTAssertFalse(misspelt.isEmpty)
        XCTAssertTrue(misspelt.allSatisfy { $0.message.hasPrefix("protocol('CCName'): no such protocol") && $0.message.hasSuffix("did you mean 'CCNamed'?") },
                      "\(misspelt)")
    }

    /// What convert's own output calls beyond the app's selectors (JSPatch's `addExtensions`,
    /// `Number.isInteger` in its `$object` helper, `Math.trunc` for integer division) is no finding.
    func testConvertsOwnCallsAreNoFindings() {
        let script = """
            require('JPEngine').addExtensions(['JPNumber']);
            var $object = function (v) { return typeof v === 'number' ? Number.isInteger(v) : v; };
            var whole = Math.trunc(7 / 2);
            """
        XCTAssertEqual(checker.check(script), [])
    }

    /// Class extensions and private declarations in the .m files `check` is given: convert's
    /// output calls them, and they are no errors once the implementation is read.
    func testClassExtensionsOfTheImplementationAreKnown() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("checker-extension-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try """
            #import <Foundation/Foundation.h>
            @interface CXThing : NSObject
            - (NSInteger)total;
            @end
            """.write(to: dir.appendingPathComponent("CXThing.h"), atomically: true, encoding: .utf8)
        try """
            #import "CXThing.h"
            @interface CXThing () {
                NSInteger _hidden;
            }
            @property (nonatomic) NSInteger hidden;
            - (NSInteger)secretCents;
            @end
            @implementation CXThing
            @synthesize hidden = _hidden;
            - (NSInteger)secretCents { return 5; }
            - (NSInteger)total { return [self secretCents] + self.hidden + [self undeclaredCents]; }
            - (NSInteger)undeclaredCents { return 1; }
            @end
            """.write(to: dir.appendingPathComponent("CXThing.m"), atomically: true, encoding: .utf8)
        let reader = ClangInterfaceReader(includePaths: [dir.path])
        let headersOnly = try reader.read(headers: [dir.appendingPathComponent("CXThing.h").path])
        let converted = try ObjCConverter.convert(file: dir.appendingPathComponent("CXThing.m").path, reader: reader,
                                                  methods: [ObjCConverter.MethodName(parsing: "-[CXThing total]")!])
        XCTAssertEqual(converted.errors, [])
        let before = PatchChecker(interface: headersOnly).check(converted.script)
        // secretCents, hidden and undeclaredCents (implemented, declared nowhere): unknown from the header alone
        XCTAssertEqual(before.count, 3, "\(before)")
        var withImplementation = headersOnly
        withImplementation.merge(try reader.read(implementations: [dir.appendingPathComponent("CXThing.m").path]))
        XCTAssertEqual(PatchChecker(interface: withImplementation).check(converted.script), [])
    }
}
