import Foundation
@testable import patchbench

/// The patchbench executable SwiftPM built next to the test bundle (the start-up and memory
/// probes run it as a child process).
func patchbenchExecutable() throws -> URL {
    var directory = Bundle.main.bundleURL.deletingLastPathComponent()
    if Bundle.main.bundleURL.pathExtension != "xctest" {
        directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    }
    for candidate in [directory, directory.deletingLastPathComponent()] {
        let url = candidate.appendingPathComponent("patchbench")
        if FileManager.default.isExecutableFile(atPath: url.path) { return url }
    }
    throw BenchError("no patchbench executable next to \(directory.path); build it with `swift build`")
}
