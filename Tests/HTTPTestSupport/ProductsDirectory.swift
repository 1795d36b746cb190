import Foundation

/// The build products folder, where SwiftPM puts the package's executables (`patchserver`,
/// `patch-tuf-client`) beside the tests: on Linux the test runner is itself an executable there
/// (`…/debug/PatchEnginePackageTests.xctest`); on Apple platforms the runner is Xcode's `xctest`
/// and the tests are an `.xctest` bundle in that folder.
public var productsDirectory: URL {
    #if os(Linux)
    let runner = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    return URL(fileURLWithPath: runner).deletingLastPathComponent()
    #else
    let bundle = Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }
    return (bundle?.bundleURL ?? URL(fileURLWithPath: CommandLine.arguments[0])).deletingLastPathComponent()
    #endif
}
