import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PatchDelivery
import PatchEngine
import HTTPTestSupport
import XCTest

/// Runs the real `patchctl` executable, built next to this test bundle.
final class PatchCtlTests: XCTestCase {
    struct Run {
        var status: Int32
        var out: String
        var err: String
    }

    /// The products directory: on Linux the test runner is itself an executable there
    /// (`…/debug/PatchEnginePackageTests.xctest`); on Apple platforms it is the `.xctest` bundle's folder.
    static var patchctl: URL {
        #if os(Linux)
        let runner = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: runner).deletingLastPathComponent().appendingPathComponent("patchctl")
        #else
        let bundle = Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }!
        return bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("patchctl")
        #endif
    }

    func patchctl(_ arguments: [String]) throws -> Run {
        let process = Process()
        process.executableURL = Self.patchctl
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read before waiting, so a full pipe can't block the child.
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, out: String(decoding: outData, as: UTF8.self),
                   err: String(decoding: errData, as: UTF8.self))
    }

    var dir: URL!

    struct MissingExecutable: Error, CustomStringConvertible {
        var path: String
        var description: String { "patchctl is not at \(path)" }
    }

    override func setUpWithError() throws {
        // The test target depends on patchctl, so it is always built next to the tests.
        guard FileManager.default.isExecutableFile(atPath: Self.patchctl.path) else {
            throw MissingExecutable(path: Self.patchctl.path)
        }
        dir = try makeTemporaryDirectory(self)
    }

    func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    func write(_ text: String, _ name: String) throws {
        try Data(text.utf8).write(to: dir.appendingPathComponent(name))
    }

    /// keygen with id `qa-key` into `keys/`.
    func keygen(_ id: String = "qa-key") throws {
        let run = try patchctl(["keygen", "--out", path("keys"), "--id", id])
        XCTAssertEqual(run.status, 0, run.err)
    }

    func testKeygenWritesPrivateKey0600AndPublicKey() throws {
        let run = try patchctl(["keygen", "--out", path("keys"), "--id", "qa-key"])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertTrue(run.out.contains("key id:      qa-key"), run.out)
        let privateURL = dir.appendingPathComponent("keys/qa-key.private-key.json")
        let publicURL = dir.appendingPathComponent("keys/qa-key.public-key.json")
        let attributes = try FileManager.default.attributesOfItem(atPath: privateURL.path)
        XCTAssertEqual(attributes[.posixPermissions] as? Int, 0o600)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: publicURL.path)[.posixPermissions] as? Int, 0o644)
        let key = try SigningKey(fileData: Data(contentsOf: privateURL))
        let pub = try TrustedKey(fileData: Data(contentsOf: publicURL))
        XCTAssertEqual(key.id, "qa-key")
        XCTAssertEqual(pub.publicKey.rawRepresentation, key.privateKey.publicKey.rawRepresentation)
        XCTAssertTrue(run.out.contains(pub.base64))

        let again = try patchctl(["keygen", "--out", path("keys"), "--id", "qa-key"])
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.err.contains("qa-key.private-key.json already exists; not overwriting a key"), again.err)
        XCTAssertEqual(try SigningKey(fileData: Data(contentsOf: privateURL)).privateKey.rawRepresentation,
                       key.privateKey.rawRepresentation, "the old key is untouched")

        let derived = try patchctl(["keygen", "--out", path("keys")])
        XCTAssertEqual(derived.status, 0, derived.err)
        XCTAssertTrue(derived.out.contains("key id:      ed25519-"), derived.out)
    }

    func testSignThenVerify() throws {
        try keygen()
        try write("var a = 1;\n", "a.js")
        try write("var b = 2;\n", "b.js")
        let sign = try patchctl(["sign", path("a.js"), path("b.js"), "--key", path("keys/qa-key.private-key.json"),
                                 "--id", "shop-fixes", "--version", "3", "--app-id", "com.example.shop",
                                 "--app-version", ">=1.0 <2.0", "--expires", "2030-01-01", "--out", path("patch.json")])
        XCTAssertEqual(sign.status, 0, sign.err)
        XCTAssertEqual(sign.out, "signed shop-fixes v3 (a.js, b.js) with key qa-key -> \(path("patch.json"))\n")

        let verify = try patchctl(["verify", path("patch.json"), "--public-key", path("keys/qa-key.public-key.json")])
        XCTAssertEqual(verify.status, 0, verify.err)
        XCTAssertEqual(verify.out, "valid: patch shop-fixes v3 for com.example.shop >=1.0.0 <2.0.0, scripts a.js, b.js, "
                       + "signed by qa-key, expires 2030-01-01T00:00:00Z\n")

        // The library agrees, and the scripts are in the given order.
        let store = try TrustStore(publicKeyFiles: [dir.appendingPathComponent("keys/qa-key.public-key.json")])
        let patch = try PatchVerifier(trustStore: store).verify(patchFile: Data(contentsOf: dir.appendingPathComponent("patch.json")))
        XCTAssertEqual(patch.orderedScripts.map(\.source), ["var a = 1;\n", "var b = 2;\n"])

        let fits = try patchctl(["verify", path("patch.json"), "--public-key", path("keys/qa-key.public-key.json"),
                                 "--app-id", "com.example.shop", "--app-version", "2.0.0"])
        XCTAssertEqual(fits.status, 1)
        XCTAssertTrue(fits.err.hasSuffix("app version 2.0.0 is outside the patch's range '>=1.0.0 <2.0.0'\n"), fits.err)
    }

    func testVerifyFailuresExitNonZeroWithTheReason() throws {
        try keygen()
        try keygen("other")
        try write("var a = 1;\n", "a.js")
        let sign = try patchctl(["sign", path("a.js"), "--key", path("keys/qa-key.private-key.json"),
                                 "--id", "p", "--version", "1", "--any-app", "--no-expiry", "--out", path("patch.json")])
        XCTAssertEqual(sign.status, 0, sign.err)
        let text = try String(contentsOf: dir.appendingPathComponent("patch.json"), encoding: .utf8)
        try write(text.replacingOccurrences(of: "var a = 1;", with: "var a = 2;"), "tampered.json")
        try write(text.replacingOccurrences(of: "\"version\" : 1", with: "\"version\" : 9"), "bumped.json")

        let pub = path("keys/qa-key.public-key.json")
        let tampered = try patchctl(["verify", path("tampered.json"), "--public-key", pub])
        XCTAssertEqual(tampered.status, 1)
        XCTAssertEqual(tampered.out, "")
        XCTAssertTrue(tampered.err.hasPrefix("invalid: \(path("tampered.json")): script hash mismatch: 'a.js' has SHA-256"), tampered.err)

        let bumped = try patchctl(["verify", path("bumped.json"), "--public-key", pub])
        XCTAssertEqual(bumped.status, 1)
        XCTAssertTrue(bumped.err.contains("bad signature: the manifest was not signed by key 'qa-key'"), bumped.err)

        let wrongKey = try patchctl(["verify", path("patch.json"), "--public-key", path("keys/other.public-key.json")])
        XCTAssertEqual(wrongKey.status, 1)
        XCTAssertTrue(wrongKey.err.contains("signed with unknown key 'qa-key'"), wrongKey.err)

        let retired = try patchctl(["verify", path("patch.json"), "--public-key", path("keys/other.public-key.json"), "--retired-key", pub])
        XCTAssertEqual(retired.status, 1)
        XCTAssertTrue(retired.err.contains("signed with retired key 'qa-key'"), retired.err)

        try write("garbage", "garbage.json")
        let garbage = try patchctl(["verify", path("garbage.json"), "--public-key", pub])
        XCTAssertEqual(garbage.status, 1)
        XCTAssertTrue(garbage.err.contains("malformed patch: patch file is not valid JSON"), garbage.err)

        let missing = try patchctl(["verify", path("nope.json"), "--public-key", pub])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.err.contains("cannot read file \(path("nope.json")): no such file"), missing.err)

        let usage = try patchctl(["verify", path("patch.json")])
        XCTAssertEqual(usage.status, 64, "ArgumentParser's usage error")
        XCTAssertTrue(usage.err.contains("Missing expected argument '--public-key <PUBLIC> ...'"), usage.err)
    }

    func testSignFailures() throws {
        try keygen()
        try write("var a = 1;\n", "a.js")
        try write("var a = 2;\n", "dup-a.js")
        let key = path("keys/qa-key.private-key.json")
        func sign(_ extra: [String], scripts: [String]? = nil) throws -> Run {
            let expiry = extra.contains("--expires") ? [] : ["--no-expiry"]
            return try patchctl(["sign"] + (scripts ?? [path("a.js")]) + ["--key", key, "--id", "p", "--version", "1",
                                                                          "--app-id", "com.example.shop", "--out", path("out.json")] + expiry + extra)
        }
        var run = try sign([], scripts: [path("missing.js")])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.err.contains("cannot read script \(path("missing.js")): no such file"), run.err)

        run = try sign(["--app-version", ">=1.x"])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.err.contains("--app-version: invalid version '>=1.x'"), run.err)

        run = try sign(["--expires", "next tuesday"])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.err.contains("--expires 'next tuesday' is not an ISO 8601 date"), run.err)

        run = try sign(["--expires", "2001-02-03"])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.err.contains("--expires 2001-02-03T00:00:00Z is in the past"), run.err)

        run = try patchctl(["sign", path("a.js"), "--key", path("a.js"), "--id", "p", "--version", "1", "--any-app", "--no-expiry",
                            "--out", path("out.json")])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.err.contains("key file is not valid JSON"), run.err)

        run = try patchctl(["sign", path("a.js"), "--key", key, "--id", "p", "--version", "0", "--any-app", "--no-expiry",
                            "--out", path("out.json")])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.err.contains("manifest field 'version' must be at least 1, found 0"), run.err)

        try FileManager.default.createDirectory(at: dir.appendingPathComponent("x"), withIntermediateDirectories: true)
        try write("var a = 3;\n", "x/a.js")
        run = try sign([], scripts: [path("a.js"), path("x/a.js")])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.err.contains("two scripts are named a.js"), run.err)

        XCTAssertFalse(FileManager.default.fileExists(atPath: path("out.json")), "no patch written by a failed sign")
    }

    func testSignRequiresAnAppIDAndAnExpiryUnlessToldOtherwise() throws {
        try keygen()
        try write("var a = 1;\n", "a.js")
        func sign(_ extra: [String]) throws -> Run {
            try patchctl(["sign", path("a.js"), "--key", path("keys/qa-key.private-key.json"), "--id", "p", "--version", "1",
                          "--out", path("out.json")] + extra)
        }
        let cases: [([String], String)] = [
            (["--expires", "2030-01-01"], "give --app-id APP (the app the patch is for), or --any-app to let any app apply it"),
            (["--app-id", "com.example.shop"],
             "give --expires DATE (when devices stop applying the patch), or --no-expiry for a patch that never expires"),
            (["--app-id", "com.example.shop", "--any-app", "--no-expiry"], "--app-id and --any-app exclude each other"),
            (["--app-id", "*", "--no-expiry"], "--app-id '*' would let any app apply the patch: say --any-app instead"),
            (["--any-app", "--expires", "2030-01-01", "--no-expiry"], "--expires and --no-expiry exclude each other"),
        ]
        for (extra, message) in cases {
            let run = try sign(extra)
            XCTAssertEqual(run.status, 64, "a usage error: \(extra)")
            XCTAssertTrue(run.err.contains("Error: \(message)"), "\(extra):\n\(run.err)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: path("out.json")), "nothing written: \(extra)")
        }
        // Told otherwise, explicitly: a patch for any app that never expires.
        let any = try sign(["--any-app", "--no-expiry"])
        XCTAssertEqual(any.status, 0, any.err)
        let pub = path("keys/qa-key.public-key.json")
        XCTAssertEqual(try patchctl(["verify", path("out.json"), "--public-key", pub]).out,
                       "valid: patch p v1 for * *, scripts a.js, signed by qa-key, expires never\n")
        let one = try sign(["--app-id", "com.example.shop", "--expires", "2030-01-01"])
        XCTAssertEqual(one.status, 0, one.err)
        XCTAssertEqual(try patchctl(["verify", path("out.json"), "--public-key", pub]).out,
                       "valid: patch p v1 for com.example.shop *, scripts a.js, signed by qa-key, expires 2030-01-01T00:00:00Z\n")
    }

    func testLintRefusesIncludeOfAScriptThePatchDoesNotCarry() throws {
        try write("include('helpers.js');\ninclude('./helpers.js');\n  include(\"misc.js\");\n// include('gone.js') in a comment\n"
                  + "var s = new Set(); s.include('not-a-script');\n", "main.js")
        try write("var helper = 1;\n", "helpers.js")
        let run = try patchctl(["lint", path("main.js"), path("helpers.js")])
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.err.split(separator: "\n").map(String.init), [
            "\(path("main.js")):3:12: error: include('misc.js'): the patch has no script named 'misc.js' (its scripts: main.js, helpers.js)",
        ])
        // Alone, main.js is a patch without helpers.js.
        let alone = try patchctl(["lint", path("main.js")])
        XCTAssertEqual(alone.status, 1)
        XCTAssertTrue(alone.err.hasPrefix("\(path("main.js")):1:10: error: include('helpers.js'): the patch has no script named 'helpers.js'"),
                      alone.err)
        try write("var m = 1;\ninclude('./misc.js');\n", "other.js")
        try write("var x = 2;\n", "misc.js")
        let fine = try patchctl(["lint", path("other.js"), path("misc.js")])
        XCTAssertEqual(fine.status, 0, fine.err)
        XCTAssertEqual(fine.out, "2 scripts checked: 0 errors, 0 warnings\n")
    }

    /// `patchctl interface` on the shop's headers, then `check` (text and --json), and `sign
    /// --interface` refusing a patch with errors unless --force.
    func testInterfaceCheckAndSignRefusingAPatchWithErrors() throws {
        let shopKit = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Samples/ShopKit")
        let headers = try FileManager.default.contentsOfDirectory(atPath: shopKit.path).filter { $0.hasSuffix(".h") }.sorted()
            .map { shopKit.appendingPathComponent($0).path }
        let iface = try patchctl(["interface"] + headers + ["-I", shopKit.path, "-I\(shopKit.path)/include", "-o", path("shop.json")])
        XCTAssertEqual(iface.status, 0, iface.err)
        XCTAssertTrue(iface.out.hasPrefix("9 app classes ("), iface.out)

        try write("defineClass('SKCart', {\n  totalCents: function () {\n    return self.discountedSubtotalCents() + self.taxCents();\n  }\n});\n", "good.js")
        try write("defineClass('SKCart', {\n  totalCent: function () {\n    return self.taxCents(1) + self.giftNote();\n  }\n});\n", "bad.js")
        let good = try patchctl(["check", path("good.js"), "--interface", path("shop.json")])
        XCTAssertEqual(good.status, 0, good.err)
        XCTAssertEqual(good.out, "1 script checked: 0 errors, 0 warnings\n")
        XCTAssertEqual(good.err, "")

        let bad = try patchctl(["check", path("bad.js"), "--interface", path("shop.json")])
        XCTAssertEqual(bad.status, 1)
        XCTAssertEqual(bad.err.split(separator: "\n").map(String.init), [
            "\(path("bad.js")):2:3: error: SKCart has no method -totalCent; did you mean 'totalCents' (-totalCents)?",
            "\(path("bad.js")):3:17: error: 'taxCents' is 'taxCents', which takes 0 arguments; this call passes 1",
            "\(path("bad.js")):3:36: warning: 'giftNote' (giftNote) is no selector the app's interface declares",
        ])
        let json = try patchctl(["check", path("bad.js"), "--interface", path("shop.json"), "--json"])
        XCTAssertEqual(json.status, 1)
        let findings = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [[String: Any]])
        XCTAssertEqual(findings.map { "\($0["severity"]!) \($0["line"]!):\($0["column"]!)" }, ["error 2:3", "error 3:17", "warning 3:36"])
        XCTAssertEqual(findings.first?["file"] as? String, path("bad.js"))

        try keygen()
        func sign(_ script: String, _ extra: [String]) throws -> Run {
            try patchctl(["sign", path(script), "--key", path("keys/qa-key.private-key.json"), "--id", "p", "--version", "1",
                          "--app-id", "com.example.shop", "--no-expiry", "--out", path("out.json"), "--interface", path("shop.json")] + extra)
        }
        let refused = try sign("bad.js", [])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.err.contains("not signed: `patchctl check` found 2 errors (--force signs anyway)"), refused.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("out.json")), "nothing written")
        let forced = try sign("bad.js", ["--force"])
        XCTAssertEqual(forced.status, 0, forced.err)
        XCTAssertTrue(forced.err.contains("2:3: error: SKCart has no method -totalCent"), forced.err)
        try FileManager.default.removeItem(atPath: path("out.json"))
        let fine = try sign("good.js", [])
        XCTAssertEqual(fine.status, 0, fine.err)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("out.json")))

        let missing = try patchctl(["check", path("good.js"), "--interface", path("nope.json")])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.err.contains("cannot read interface \(path("nope.json")): no such file"), missing.err)
    }

    /// `patchctl convert` a method of the shop into a patch, `check` it against the shop's interface;
    /// a file with code a patch can't run: its places on stderr, exit 1 unless --allow-partial.
    func testConvertThenCheck() throws {
        let shopKit = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Samples/ShopKit")
        let includes = ["-I", shopKit.path, "-I\(shopKit.path)/include"]
        let converted = try patchctl(["convert", shopKit.appendingPathComponent("SKCart.m").path, "--method", "-[SKCart totalCents]",
                                      "--method", "+[SKCart sampleCart]", "-o", path("fix.js")] + includes)
        XCTAssertEqual(converted.status, 0, converted.err)
        XCTAssertEqual(converted.err, "")
        XCTAssertEqual(try String(contentsOfFile: path("fix.js"), encoding: .utf8), """
            // Converted from SKCart.m by patchctl convert.
            require('SKCatalog');
            defineClass('SKCart', {
              totalCents: function () {
                return (self.discountedSubtotalCents() - self.discountCents()) + self.taxCents();
              }
            }, {
              sampleCart: function () {
                var cart = self.new();
                cart.addProduct_quantity(SKCatalog.productWithSKU('MUG-01'), 2);
                cart.addProduct_quantity(SKCatalog.productWithSKU('TEE-02'), 1);
                cart.applyCoupon_percent('SPRING10', 10);
                return cart;
              }
            });

            """)
        let headers = try FileManager.default.contentsOfDirectory(atPath: shopKit.path).filter { $0.hasSuffix(".h") }.sorted()
            .map { shopKit.appendingPathComponent($0).path }
        XCTAssertEqual(try patchctl(["interface"] + headers + includes + ["-o", path("shop.json")]).status, 0)
        let checked = try patchctl(["check", path("fix.js"), "--interface", path("shop.json")])
        XCTAssertEqual(checked.status, 0, checked.err)
        XCTAssertEqual(checked.out, "1 script checked: 0 errors, 0 warnings\n")

        let display = shopKit.appendingPathComponent("SKDisplay.m").path
        let partial = try patchctl(["convert", display] + includes)
        XCTAssertEqual(partial.status, 1)
        let lines = partial.err.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "\(display):14:6: error: C function SKDisplayLines is static in the app: there is no symbol for the patch to call")
        XCTAssertTrue(lines.contains("\(display):20:5: error: compiler builtin __builtin_va_start: variadic C arguments can't be read in a patch"), partial.err)
        XCTAssertTrue(partial.err.contains("places not converted (marked in the script: it throws there)"), partial.err)
        XCTAssertTrue(partial.out.contains("throw new Error('patchctl convert: not converted: C function SKDisplayLines is static"), partial.out)
        let allowed = try patchctl(["convert", display, "--allow-partial"] + includes)
        XCTAssertEqual(allowed.status, 0, allowed.err)
        XCTAssertEqual(allowed.out, partial.out)

        let unknown = try patchctl(["convert", display, "--method", "-[SKDisplay nothing]"] + includes)
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.err.contains("not implemented in \(display): -[SKDisplay nothing]"), unknown.err)
        let malformed = try patchctl(["convert", display, "--method", "SKDisplay show"] + includes)
        XCTAssertNotEqual(malformed.status, 0)
        XCTAssertTrue(malformed.err.contains("write it as '-[Class selector:]'"), malformed.err)
    }

    func testRevokeCreatesAndExtendsASignedList() throws {
        try keygen()
        try keygen("other")
        let key = path("keys/qa-key.private-key.json")
        var run = try patchctl(["revoke", "shop-fixes", "--key", key, "--out", path("revocations.json")])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertTrue(run.out.hasPrefix("revocation list #1 revoking shop-fixes, signed with key qa-key"), run.out)

        run = try patchctl(["revoke", "promo", "--versions", "2,3", "--key", key, "--out", path("revocations.json")])
        XCTAssertEqual(run.status, 0, run.err)
        let store = try TrustStore(publicKeyFiles: [dir.appendingPathComponent("keys/qa-key.public-key.json")])
        let list = try PatchVerifier(trustStore: store).verify(revocationListFile: Data(contentsOf: dir.appendingPathComponent("revocations.json"))).list
        XCTAssertEqual(list.sequence, 2)
        XCTAssertEqual(list.entries, [.init(patchID: "promo", versions: [2, 3]), .init(patchID: "shop-fixes")])

        run = try patchctl(["verify", path("revocations.json"), "--public-key", path("keys/qa-key.public-key.json")])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertEqual(run.out, "valid: revocation list #2 revoking promo v2,3; shop-fixes, signed by qa-key\n")

        // A list signed by someone else is not extended (its entries would be re-signed unchecked).
        run = try patchctl(["revoke", "x", "--key", path("keys/other.private-key.json"), "--out", path("revocations.json")])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.err.contains("cannot extend \(path("revocations.json")): signed with unknown key 'qa-key'"), run.err)

        run = try patchctl(["revoke", "bad id", "--key", key, "--out", path("r2.json")])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.err.contains("patch id 'bad id' must be letters"), run.err)
        run = try patchctl(["revoke", "p", "--versions", "two", "--key", key, "--out", path("r2.json")])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.err.contains("--versions 'two' must be positive whole numbers"), run.err)
    }

    func testLintWarnsAboutMisspelledClassesAndSelectors() throws {
        try write("""
            require('UIView, PFCrat');
            defineClass('PFCart', {
              // totl: function() {} in a comment is not checked
              totl: function() {
                return self.ORIGtotal() + self.addItm_count(1, 2);
              },
            });
            """, "fix.js")
        try write("# shop classes\nPFCart\nPFProduct\n- total\n- addItem:count:\ncheckout\n", "names.txt")
        let run = try patchctl(["lint", path("fix.js"), "--classes", path("names.txt")])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertEqual(run.err.split(separator: "\n").map(String.init), [
            "\(path("fix.js")):1:18: warning: class 'PFCrat' is not in the class list; did you mean 'PFCart'?",
            "\(path("fix.js")):4:3: warning: selector 'totl' is not in the selector list; did you mean 'total' (total)?",
            "\(path("fix.js")):5:36: warning: selector 'addItm_count' is not in the selector list; did you mean 'addItem_count' (addItem:count:)?",
        ])
        XCTAssertEqual(run.out, "1 script checked: 0 errors, 3 warnings\n")

        let strict = try patchctl(["lint", path("fix.js"), "--classes", path("names.txt"), "--warnings-as-errors"])
        XCTAssertEqual(strict.status, 1)

        let plain = try patchctl(["lint", path("fix.js")])
        XCTAssertEqual(plain.status, 0, "without a class list only syntax is checked")
        XCTAssertEqual(plain.err, "")
    }

    func testLintReportsSyntaxErrorsWithFileLineColumn() throws {
        try write("var ok = 1;\nvar broken = ;\n", "broken.js")
        let run = try patchctl(["lint", path("broken.js")])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.err.hasPrefix("\(path("broken.js")):2:"), run.err)
        XCTAssertTrue(run.err.contains(": error: "), run.err)
    }

    func testHelpDocumentsEveryCommand() throws {
        let root = try patchctl(["--help"])
        XCTAssertEqual(root.status, 0)
        for command in ["keygen", "sign", "verify", "lint", "preprocess", "serve", "revoke"] {
            XCTAssertTrue(root.out.contains("  \(command) "), "root help lists \(command)")
        }
        let expectations = [
            "keygen": ["--out <DIR>", "--id"],
            "sign": ["<SCRIPT> ...", "--key <PRIVATE>", "--id", "--version", "--app-version <RANGE>", "--expires <DATE>", "--out <PATCH>"],
            "verify": ["<PATCH>", "--public-key <PUBLIC>"],
            "lint": ["<SCRIPT> ...", "--classes <FILE>"],
            "serve": ["<DIR>", "--port", "--port-file <FILE>"],
            "revoke": ["<ID> ...", "--key <PRIVATE>", "--out <LIST>", "--versions"],
        ]
        for (command, needles) in expectations {
            let run = try patchctl(["help", command])
            XCTAssertEqual(run.status, 0, command)
            for needle in needles { XCTAssertTrue(run.out.contains(needle), "\(command) --help mentions \(needle):\n\(run.out)") }
        }
    }

    func testServeServesLogsAndStopsOnInterrupt() throws {
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("www"), withIntermediateDirectories: true)
        try write("{\"hello\": 1}", "www/patch.json")
        let process = Process()
        process.executableURL = Self.patchctl
        process.arguments = ["serve", path("www"), "--port", "0", "--port-file", path("port")]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        var port: Int?
        for _ in 0..<100 where port == nil {
            port = (try? String(contentsOf: dir.appendingPathComponent("port"), encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if port == nil { Thread.sleep(forTimeInterval: 0.05) }
        }
        let bound = try XCTUnwrap(port, "serve wrote its port")
        let body = try Data(contentsOf: URL(string: "http://127.0.0.1:\(bound)/patch.json")!)
        XCTAssertEqual(String(decoding: body, as: UTF8.self), "{\"hello\": 1}")

        process.interrupt()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "SIGINT stops the server cleanly")
        let log = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(log.split(separator: "\n").map(String.init),
                       ["serving \(path("www")) on http://127.0.0.1:\(bound)/ (Ctrl-C to stop)", "GET /patch.json 200", "stopped"])
    }
}

extension ServerProcess {
    /// `patchctl serve DIR --port 0` in a child process.
    static func serve(_ directory: URL, scratch: URL, openFileLimit: Int? = nil) throws -> ServerProcess {
        try ServerProcess(executable: PatchCtlTests.patchctl, arguments: ["serve", directory.path, "--port", "0"],
                          scratch: scratch, openFileLimit: openFileLimit)
    }
}
