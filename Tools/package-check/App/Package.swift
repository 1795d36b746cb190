// swift-tools-version:6.0
// The app package Tools/package-check/run.sh builds: PatchEngine by version, as an app has it.
import PackageDescription

let package = Package(
    name: "App",
    platforms: [.macOS(.v13), .iOS(.v15)],
    dependencies: [
        .package(url: "PATCHENGINE_REPOSITORY", from: "1.0.0"),
    ],
    targets: [
        .executableTarget(name: "App", dependencies: [.product(name: "PatchEngine", package: "PatchEngine")]),
    ],
    swiftLanguageModes: [.v5]
)
