import Foundation
import XCTest

/// `patchctl preprocess FILE`, run as a separate process.
final class PreprocessorCommandTests: XCTestCase {
    /// The directory holding the built products (the test bundle and `patchctl`).
    private static var productsDirectory: URL {
        #if os(macOS)
        // Xcode/SwiftPM on macOS: the .xctest bundle sits in the products directory.
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        return Bundle.main.bundleURL.deletingLastPathComponent()
        #else
        // Linux: the test runner is itself an executable in the products directory.
        return Bundle.main.bundleURL
        #endif
    }

    private struct Run { var status: Int32; var stdout: String; var stderr: String }

    private func patchctl(_ arguments: [String], stdin: String? = nil) throws -> Run {
        let executable = Self.productsDirectory.appendingPathComponent("patchctl")
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: executable.path])  // `swift test` builds it
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus,
                   stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
    }

    private func temporaryFile(_ contents: Data) throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("preprocess-\(UUID().uuidString).js")
        try contents.write(to: url)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    func testPrintsTheRewrittenScript() throws {
        let script = """
            defineClass('JPViewController', {
              viewDidLoad: function() {
                self.ORIGviewDidLoad() // self.log("not here")
                var v = UIView.alloc().initWithFrame({x: 0, y: 0, width: 1, height: 1}), t = new Date().getTime()
                console.log(`frame ${v.frame().width}`)
              }
            })

            """
        let file = try temporaryFile(Data(script.utf8))
        let run = try patchctl(["preprocess", file.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stderr, "")
        XCTAssertEqual(run.stdout, """
            defineClass('JPViewController', {
              viewDidLoad: function() {
                self.__c(__pe.ORIGviewDidLoad||"ORIGviewDidLoad")() // self.log("not here")
                var v = UIView.__c(__pe.alloc||"alloc")().__c(__pe.initWithFrame||"initWithFrame")({x: 0, y: 0, width: 1, height: 1}), t = new Date().__c(__pe.getTime||"getTime")()
                console.__c(__pe.log||"log")(`frame ${v.__c(__pe.frame||"frame")().width}`)
              }
            })

            """)
    }

    func testReadsStandardInput() throws {
        let run = try patchctl(["preprocess", "-"], stdin: "a.b('c.d()')\r\n")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, "a.__c(__pe.b||\"b\")('c.d()')\r\n")
    }

    func testMissingFileIsAClearError() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-\(UUID().uuidString).js").path
        let run = try patchctl(["preprocess", path])
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stdout, "")
        XCTAssertEqual(run.stderr, "patchctl preprocess: cannot read \(path): No such file or directory\n")
    }

    func testDirectoryIsAClearError() throws {
        let path = FileManager.default.temporaryDirectory.path
        let run = try patchctl(["preprocess", path])
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stdout, "")
        XCTAssertEqual(run.stderr, "patchctl preprocess: cannot read \(path): Is a directory\n")
    }

    func testAnEndlessInputIsCutAtTheLimitWithAClearError() throws {
        let run = try patchctl(["preprocess", "/dev/zero"])
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stdout, "")
        XCTAssertEqual(run.stderr, "patchctl preprocess: cannot read /dev/zero: larger than the 16777216-byte limit\n")
    }

    func testBinaryFileIsAClearError() throws {
        let file = try temporaryFile(Data([0x61, 0x2E, 0x62, 0x28, 0xFF, 0xFE, 0x29]))
        let run = try patchctl(["preprocess", file.path])
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stdout, "")
        XCTAssertEqual(run.stderr, "patchctl preprocess: \(file.path) is not UTF-8 text\n")
    }

    func testMissingArgumentShowsUsage() throws {
        let run = try patchctl(["preprocess"])
        XCTAssertNotEqual(run.status, 0)
        XCTAssertTrue(run.stderr.contains("Missing expected argument '<script>'"), run.stderr)
    }
}
