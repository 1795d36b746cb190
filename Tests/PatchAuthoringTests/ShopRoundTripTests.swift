import Foundation
import PatchAuthoring
import PatchEngine
import ShopKit
import XCTest

/// The round trip on real code: the sample shop's own Objective-C (Samples/ShopKit/*.m), converted
/// into patches that override the same methods of the compiled classes, gives the same screens as
/// the compiled code. Every method is converted; the ones that can't be are named with the reason.
final class ShopRoundTripTests: XCTestCase {
    /// What the shop shows: every screen `make demo` shows, and the product screen for an unknown SKU.
    static func screens() -> String {
        sk_show_catalog()
        sk_show_checkout()
        var opened = sk_open_product("MUG-01")
        opened += sk_open_product("GIFT-50") * 10 + sk_open_product("NOPE-99") * 100
        _ = sk_open_cart()
        guard let text = sk_take_display() else { return "" }
        defer { free(text) }
        return String(cString: text) + "opened: \(opened)\n"
    }

    /// Methods that can't be converted, with the reason the converter gives: genuine limits of
    /// a patch (a static C function has no symbol; a va_list can't be built from JS).
    static let notConvertible: [String: String] = [
        "+[SKDisplay show:]": "C function SKDisplayLines is static in the app",
        "+[SKDisplay showFormat:]": "variadic C arguments can't be read in a patch",
        "+[SKDisplay take]": "C function SKDisplayLines is static in the app",
    ]

    /// The shop's product-name fix (Samples/patches), applied in both runs: with it no screen raises.
    static func productNameFix() throws -> String {
        try String(contentsOf: ShopInterface.repository.appendingPathComponent("Samples/patches/product-name.js"), encoding: .utf8)
    }

    func testConvertedShopKitGivesTheSameScreens() throws {
        let shipped = Self.screens()
        XCTAssertTrue(shipped.contains("!! screen crashed: NSInvalidArgumentException"), shipped)
        _ = try PatchEngine.evaluate(try Self.productNameFix(), name: "product-name.js")
        let fixed = Self.screens()
        try PatchEngine.revert("product-name.js")
        XCTAssertTrue(fixed.contains("GIFT-50 Item GIFT-50"), fixed)

        let reader = ClangInterfaceReader(includePaths: [ShopInterface.shopKit.path, ShopInterface.shopKit.appendingPathComponent("include").path])
        let files = try FileManager.default.contentsOfDirectory(atPath: ShopInterface.shopKit.path)
            .filter { $0.hasSuffix(".m") }.sorted()
            // Files without an @implementation (C functions only) have no method to convert.
            .filter { ((try? String(contentsOfFile: ShopInterface.shopKit.appendingPathComponent($0).path, encoding: .utf8)) ?? "").contains("@implementation") }
        var scripts: [(name: String, script: String)] = []
        var converted: [String] = [], refused: [String: String] = [:]
        for file in files {
            let path = ShopInterface.shopKit.appendingPathComponent(file).path
            let all = try ObjCConverter.convert(file: path, reader: reader)
            var clean: [ObjCConverter.MethodName] = []
            for method in all.methods {
                let errors = all.errors.filter { $0.method == method }
                if let first = errors.first { refused[method.description] = first.message } else { clean.append(method) }
            }
            guard !clean.isEmpty else { continue }
            let result = clean.count == all.methods.count ? all : try ObjCConverter.convert(file: path, reader: reader, methods: clean)
            XCTAssertEqual(result.errors, [], file)
            // What convert writes, check accepts: no error against the shop's interface.
            let findings = PatchChecker(interface: try ShopInterface.get()).check(result.script).filter { $0.severity == .error }
            XCTAssertEqual(findings, [], "\(file): \(findings.map { $0.formatted(file: file) })")
            converted += clean.map(\.description)
            scripts.append((file, Self.instrumented(result.script)))
        }
        // Every method not converted is a known limit, for the reason stated.
        XCTAssertEqual(Set(refused.keys), Set(Self.notConvertible.keys), "\(refused)")
        for (method, reason) in Self.notConvertible {
            XCTAssertTrue(refused[method]?.contains(reason) == true, "\(method): \(refused[method] ?? "converted")")
        }
        XCTAssertGreaterThanOrEqual(converted.count, 30, "\(converted)")

        let allowed = PatchEngine.allowedCFunctions
        PatchEngine.allowedCFunctions = allowed.union(["SKRow", "SKFormatCents"])
        var applied = ["round-trip-counter.js", "round-trip-read.js"]
        defer {
            // Only what this test applied: other tests in the process keep theirs.
            for name in applied.reversed() { try? PatchEngine.revert(name) }
            PatchEngine.allowedCFunctions = allowed
        }
        _ = try PatchEngine.evaluate("globalThis.roundTripCalls = {};", name: "round-trip-counter.js")
        for (name, script) in scripts {
            applied.append(name)
            do { _ = try PatchEngine.evaluate(script, name: name) } catch {
                XCTFail("\(name): \(error)\n\(script)")
                return
            }
        }
        // As shipped: the same screens, except that the catalog's exception stays inside the
        // patched method (the engine reports a JS method's failure and returns nil to its native
        // caller; it never lets an exception unwind native frames), so the screen shows no rows
        // instead of the crash line.
        let shippedFailures = EngineFailures()
        let patchedShipped = shippedFailures.during { Self.screens() }
        let reported = shippedFailures.messages
        XCTAssertEqual(patchedShipped, shipped.replacingOccurrences(
            of: "!! screen crashed: NSInvalidArgumentException: Tried to add nil value for key 'title' to dictionary\n", with: ""))
        XCTAssertTrue(reported.contains { $0.contains("Tried to add nil value for key 'title'") }, "\(reported)")

        // With the product-name fix over the converted methods: the same screens exactly.
        _ = try PatchEngine.evaluate(try Self.productNameFix(), name: "product-name.js")
        applied.append("product-name.js")
        let fixedFailures = EngineFailures()
        XCTAssertEqual(fixedFailures.during { Self.screens() }, fixed)
        XCTAssertEqual(fixedFailures.messages, [])

        // The converted methods ran (the screens above are theirs, not the compiled code's).
        let calls = try PatchEngine.evaluate("JSON.stringify(Object.keys(globalThis.roundTripCalls).sort())", name: "round-trip-read.js") as? String ?? ""
        for method in ["-[SKCart totalCents]", "-[SKCart taxCents]", "+[SKCart sampleCart]", "-[SKCartLine amountCents]",
                       "+[SKCatalog productWithSKU:]", "+[SKCatalogScreen rows]", "+[SKCheckoutScreen showCart:]",
                       "+[SKProductScreen openSKU:]", "-[SKProduct displayName]", "+[SKCartScreen showCart:]"] {
            XCTAssertTrue(calls.contains("\"\(method)\""), "\(method) did not run: \(calls)")
        }
    }

    /// Each converted method counts its calls in `roundTripCalls`, so the test knows the screens
    /// came from the patches.
    static func instrumented(_ script: String) -> String {
        var out: [String] = [], className = "", isClassSide = false
        for line in script.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("defineClass('") {
                let name = line.dropFirst("defineClass('".count).prefix { $0 != "'" && $0 != " " }
                className = String(name)
                isClassSide = false
            } else if line.hasPrefix("}, {") {
                isClassSide = true
            }
            out.append(line)
            if line.hasPrefix("  "), !line.hasPrefix("   "), let range = line.range(of: ": function (") {
                let jsName = String(line.dropFirst(2)[..<range.lowerBound])
                let params = line[range.upperBound...].prefix { $0 != ")" }
                let colons = params.isEmpty ? 0 : params.split(separator: ",").count
                let selector = selectorName(jsName, colons)
                let key = "\(isClassSide ? "+" : "-")[\(className) \(selector)]"
                out.append("    roundTripCalls['\(key)'] = (roundTripCalls['\(key)'] || 0) + 1;")
            }
        }
        return out.joined(separator: "\n")
    }

    static func selectorName(_ jsName: String, _ arguments: Int) -> String {
        SelectorName.selector(jsName: jsName, argumentCount: arguments)
    }
}
