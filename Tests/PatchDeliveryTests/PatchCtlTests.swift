import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PatchDelivery
import PatchEngine
import PatchFormat
import PatchRepository
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

    func patchctl(_ arguments: [String]) throws -> Run { try Self.run(arguments) }

    /// Runs patchctl to its end with `arguments`; its status and output.
    static func run(_ arguments: [String]) throws -> Run {
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

    /// `patchctl interface` on the shop's headers, then `check` (text and --json), and `repo
    /// release --interface` refusing a patch with errors unless --force.
    func testInterfaceCheckAndReleaseRefusingAPatchWithErrors() throws {
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

        let initialized = try patchctl(["repo", "init", path("repo"), "--root-keys", "1", "--root-threshold", "1"])
        XCTAssertEqual(initialized.status, 0, initialized.err)
        func release(_ script: String, _ extra: [String]) throws -> Run {
            try patchctl(["repo", "release", path("repo"), path(script), "--channel", "staging", "--app", "com.example.shop",
                          "--patch-id", "p", "--interface", path("shop.json")] + extra)
        }
        let listed = { (name: String) in
            (try? String(contentsOfFile: self.path("repo/record/staging.json"), encoding: .utf8))?.contains("staging/\(name)") ?? false
        }
        let refused = try release("bad.js", [])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.err.contains("not released: `patchctl check` found 2 errors (--force releases anyway)"), refused.err)
        XCTAssertFalse(listed("bad.js"), "nothing released")
        let forced = try release("bad.js", ["--force"])
        XCTAssertEqual(forced.status, 0, forced.err)
        XCTAssertTrue(forced.err.contains("2:3: error: SKCart has no method -totalCent"), forced.err)
        XCTAssertTrue(listed("bad.js"))
        let fine = try release("good.js", [])
        XCTAssertEqual(fine.status, 0, fine.err)
        XCTAssertTrue(listed("good.js"))

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
        let cart = shopKit.appendingPathComponent("SKCart.m").path
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
            //# patchctl-convert-lines {"files":["\(cart)"],"lines":15,"map":[[4,0,68],[5,0,70],[7,-1,0],[8,0,7],[9,0,9],[10,0,10],[11,0,11],[12,0,12],[13,0,13],[15,-1,0]]}

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
        for command in ["lint", "interface", "check", "convert", "preprocess", "serve", "dev", "repo"] {
            XCTAssertTrue(root.out.contains("  \(command) "), "root help lists \(command)")
        }
        // The old signed-patch commands are gone: `repo` signs targets and revokes them.
        for command in ["keygen", "sign", "verify", "revoke"] {
            XCTAssertFalse(root.out.contains("\n  \(command) "), "root help lists no \(command):\n\(root.out)")
        }
        let expectations = [
            "lint": ["<SCRIPT> ...", "--classes <FILE>"],
            "serve": ["<DIR>", "--port", "--port-file <FILE>"],
            "dev": ["<DIR>", "--key-dir <DIR>", "--interface <IFACE.json>"],
            "repo": ["release", "promote", "revoke", "renew", "rotate", "publish"],
        ]
        for (command, needles) in expectations {
            let run = try patchctl(["help", command])
            XCTAssertEqual(run.status, 0, command)
            for needle in needles { XCTAssertTrue(run.out.contains(needle), "\(command) --help mentions \(needle):\n\(run.out)") }
        }
    }

    /// A release repository trusts release keys only (release builds refuse every role trusting a
    /// development key): `repo rotate` refuses a development key for a top-level or a channel
    /// role and records nothing; `repo init` refuses a key folder holding development keys and
    /// never overwrites a key file. A release key is rotated in as before.
    /// `repo release` refuses a malformed version range before anything is signed (it used to sign
    /// it, and every device then refused the release): the option, the text and the reason are
    /// named, the channel's record stays as it was. A good range is signed in its normal form.
    func testReleaseRefusesAMalformedVersionRangeBeforeSigning() throws {
        var run = try patchctl(["repo", "init", path("repo"), "--root-keys", "1", "--root-threshold", "1"])
        XCTAssertEqual(run.status, 0, run.err)
        try write("var a = 1;\n", "a.js")
        let record = { try Data(contentsOf: self.dir.appendingPathComponent("repo/record/staging.json")) }
        let before = try record()
        func release(_ extra: [String]) throws -> Run {
            try patchctl(["repo", "release", path("repo"), path("a.js"), "--channel", "staging", "--app", "com.example.shop", "--patch-id", "p"] + extra)
        }
        for (option, value, reason) in [
            ("--app-versions", ">=1.2.0 <2.O", "'O' is not a number without leading zeros in '<2.O'"),
            ("--app-versions", "1.4.2.1", "expected MAJOR.MINOR.PATCH"),
            ("--app-versions", "", "empty version range (use * for any version)"),
            ("--os-versions", "<=", "operator '<=' has no version"),
        ] {
            run = try release([option, value])
            XCTAssertEqual(run.status, 1, "\(option) \(value)")
            XCTAssertTrue(run.err.contains("\(option): invalid version '\(value)': \(reason)"), run.err)
            XCTAssertEqual(try record(), before, "nothing signed for \(option) \(value)")
        }
        run = try release(["--app-versions", ">=1.2 <2", "--os-versions", ">=16"])
        XCTAssertEqual(run.status, 0, run.err)
        let signed = String(decoding: try record(), as: UTF8.self)
        XCTAssertTrue(signed.contains(#""app_versions":">=1.2.0 <2.0.0""#), signed)
        XCTAssertTrue(signed.contains(#""os_versions":">=16.0.0""#), signed)
    }

    func testRotateAndInitRefuseDevelopmentKeysForAReleaseRepository() throws {
        var run = try patchctl(["repo", "init", path("repo"), "--root-keys", "1", "--root-threshold", "1"])
        XCTAssertEqual(run.status, 0, run.err)
        let development = try PatchFormat.SigningKey.generate(.ed25519).forDevelopment
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("dev-keys"), withIntermediateDirectories: true)
        try KeyFile.write(development, to: dir.appendingPathComponent("dev-keys/targets.key"))
        let record = { try Data(contentsOf: self.dir.appendingPathComponent("repo/record/targets.json")) }
        let before = try record()

        for role in ["production", "timestamp", "root"] {
            run = try patchctl(["repo", "rotate", path("repo"), "--role", role, "--add", path("dev-keys/targets.key")])
            XCTAssertEqual(run.status, 1, role)
            XCTAssertTrue(run.err.contains("a release repository's \(role) role cannot trust development key \(development.keyID.prefix(16))… "
                                           + "(a `patchctl dev` key): release builds of the app refuse every role that trusts one"), run.err)
        }
        XCTAssertEqual(try record(), before, "nothing recorded")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("repo/record/root/2.root.json")), "no new root")

        run = try patchctl(["repo", "init", path("repo2"), "--keys", path("dev-keys")])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.err.contains("\(path("dev-keys")) holds development key \(development.keyID.prefix(16))… (a `patchctl dev` key folder)"), run.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("repo2")), "nothing created")
        XCTAssertEqual(try KeyFile.read(dir.appendingPathComponent("dev-keys/targets.key")).keyID, development.keyID, "the development key is intact")

        run = try patchctl(["repo", "init", path("repo3"), "--keys", path("repo/keys")])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.err.contains("exists: repo init never overwrites a key file"), run.err)

        run = try patchctl(["repo", "keygen", path("production-2.key")])
        XCTAssertEqual(run.status, 0, run.err)
        run = try patchctl(["repo", "rotate", path("repo"), "--role", "production", "--add", path("production-2.key"),
                            "--remove", path("repo/keys/channel-production.key")])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertNotEqual(try record(), before, "a release key is rotated in")
    }

    /// `repo status` warns (standard error, exit 0) about root, targets and channel roles that
    /// expired or expire within the warning window; `repo renew` re-signs one with a fresh expiry.
    func testRepoStatusWarnsAboutRolesCloseToExpiryAndRenewExtendsThem() throws {
        var run = try patchctl(["repo", "init", path("repo"), "--root-keys", "1", "--root-threshold", "1"])
        XCTAssertEqual(run.status, 0, run.err)
        run = try patchctl(["repo", "status", path("repo")])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertFalse(run.err.contains("warning"), run.err)

        run = try patchctl(["repo", "renew", path("repo"), "staging", "--valid-for", "7200"])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertTrue(run.out.contains("staging version 2 signed and recorded"), run.out)
        run = try patchctl(["repo", "renew", path("repo"), "production", "--valid-for", "1"])
        XCTAssertEqual(run.status, 0, run.err)
        Thread.sleep(forTimeInterval: 1.5)
        run = try patchctl(["repo", "status", path("repo")])
        XCTAssertEqual(run.status, 0, run.err)
        let warnings = run.err.split(separator: "\n").filter { $0.hasPrefix("warning: ") }
        guard warnings.count == 2 else { return XCTFail("two warnings expected: \(run.err)") }
        XCTAssertTrue(warnings[0].hasPrefix("warning: staging version 2 expires in 1 h ("), run.err)
        XCTAssertTrue(warnings[0].hasSuffix("renew it (`patchctl repo renew`) and publish before then"), run.err)
        XCTAssertTrue(warnings[1].hasPrefix("warning: production version 2 expired "), run.err)
        XCTAssertTrue(warnings[1].hasSuffix("devices that need it take nothing from it until you renew it (`patchctl repo renew`) and publish"), run.err)

        run = try patchctl(["repo", "status", path("repo"), "--expiry-warning", "60"])
        XCTAssertEqual(run.err.split(separator: "\n").filter { $0.hasPrefix("warning: ") }.count, 1, "only the expired one within a minute's window")

        for role in ["staging", "production"] {
            run = try patchctl(["repo", "renew", path("repo"), role])
            XCTAssertEqual(run.status, 0, run.err)
        }
        run = try patchctl(["repo", "status", path("repo")])
        XCTAssertFalse(run.err.contains("warning"), run.err)

        for bad in [["snapshot"], ["nope"], ["staging", "--valid-for", "0"]] {
            run = try patchctl(["repo", "renew", path("repo")] + bad)
            XCTAssertEqual(run.status, 1, "\(bad)")
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
