// swift-tools-version:6.2
// 6.2 or later: SwiftPM then lets an app depend on this package by version although its
// Objective-C targets carry unsafe flags (GNUstep's on Linux, -fno-objc-arc on Apple).
import PackageDescription
import Foundation

// MARK: - Platform differences (Linux: GNUstep Foundation on GCC's Objective-C runtime)
//
// Everything platform-specific about building lives here. On Apple platforms the
// system Objective-C runtime, Foundation and JavaScriptCore need no flags at all.

/// Directory of the Swift toolchain's runtime libraries, which ship `Block/Block.h`
/// and `linux/libBlocksRuntime.so` (the Blocks runtime Foundation already loads).
let toolchainLib: String = {
    let candidates = [
        ProcessInfo.processInfo.environment["SWIFT_TOOLCHAIN_LIB"],
        "/opt/swift/usr/lib/swift",
        "/usr/lib/swift",
        "/usr/share/swift/usr/lib/swift",
    ].compactMap { $0 }
    return candidates.first { FileManager.default.fileExists(atPath: $0 + "/Block/Block.h") } ?? "/opt/swift/usr/lib/swift"
}()

/// GCC's include folders that hold the Objective-C runtime's headers (`objc/objc.h`, from
/// libobjc-N-dev), whatever GCC version and architecture the machine has; clang doesn't look there.
let gccObjCIncludes: [String] = {
    let root = "/usr/lib/gcc"
    let fileManager = FileManager.default
    var found: [String] = []
    for triple in (try? fileManager.contentsOfDirectory(atPath: root))?.sorted() ?? [] {
        let versions = (try? fileManager.contentsOfDirectory(atPath: "\(root)/\(triple)")) ?? []
        // Newest version first: numerically, so 12 comes after 9.
        for version in versions.sorted(by: { $0.compare($1, options: .numeric) == .orderedDescending }) {
            let include = "\(root)/\(triple)/\(version)/include"
            if fileManager.fileExists(atPath: include + "/objc/objc.h") {
                found.append(include)
                break
            }
        }
    }
    return found
}()

/// Flags for compiling Objective-C against GNUstep with clang (see shared/notes/platform.md).
let gnustepObjCFlags: [String] = [
    "-fobjc-runtime=gcc", "-fobjc-exceptions", "-fexceptions",
    "-fconstant-string-class=NSConstantString",
    "-DGNUSTEP", "-DGNUSTEP_BASE_LIBRARY=1", "-DGNU_RUNTIME=1",
    "-I/usr/include/GNUstep",
] + gccObjCIncludes.map { "-I" + $0 } + [
    "-I\(toolchainLib)/Block",
    "-Wno-deprecated-objc-isa-usage", "-Wno-objc-root-class",
]
/// Apple platforms: the Objective-C targets are written for manual reference counting, as GCC's
/// runtime requires (no ARC there), so ARC is turned off where SwiftPM would turn it on (Darwin);
/// `PEPlatform.h` stops the build if it is ever on. libffi is found as each platform has it:
/// `<ffi.h>` on Linux, `<ffi/ffi.h>` in the macOS SDK, none public on iOS (`PEPlatform.h`).
let appleObjCFlags: [String] = ["-fno-objc-arc"]
/// App Store builds: `PATCHENGINE_NO_PRIVATE_API=1` in the environment that resolves and builds the
/// package leaves every private symbol out (docs/private-symbols.md): `PE_NO_PRIVATE_API` for the
/// C-family targets, `PATCHENGINE_NO_PRIVATE_API` for Swift.
let noPrivateAPI: Bool = {
    guard let value = ProcessInfo.processInfo.environment["PATCHENGINE_NO_PRIVATE_API"] else { return false }
    return !value.isEmpty && value != "0"
}()
/// Every C-family target: what an App Store build leaves out.
let privateAPICSettings: [CSetting] = noPrivateAPI ? [.define("PE_NO_PRIVATE_API")] : []
/// The Objective-C targets: GNUstep's flags on Linux, manual reference counting on Apple.
let objcCSettings: [CSetting] = privateAPICSettings + [
    .headerSearchPath("shim", .when(platforms: [.linux])),
    .unsafeFlags(gnustepObjCFlags, .when(platforms: [.linux])),
    .unsafeFlags(appleObjCFlags, .when(platforms: [.macOS, .iOS, .tvOS, .watchOS, .visionOS, .macCatalyst])),
]
let objcLinkerSettings: [LinkerSetting] = [
    .linkedLibrary("gnustep-base", .when(platforms: [.linux])),
    .linkedLibrary("objc", .when(platforms: [.linux])),
    // iOS has no public libffi: the runtime core does without it there (PEPlatform.h, PE_HAS_LIBFFI).
    .linkedLibrary("ffi", .when(platforms: [.linux, .macOS])),
    .linkedLibrary("BlocksRuntime", .when(platforms: [.linux])),
    .unsafeFlags(["-L\(toolchainLib)/linux"], .when(platforms: [.linux])),
]

let package = Package(
    name: "PatchEngine",
    platforms: [.macOS(.v13), .iOS(.v15)],
    // What an app and its release team use. The QA server library, the benchmarks, the
    // conformance client and the test support are built and run here (executable targets of the
    // root package need no product) but not exported.
    products: [
        .library(name: "PatchEngine", targets: ["PatchEngine"]),
        .library(name: "PatchEngineObjC", targets: ["PatchEngineObjC"]),
        .library(name: "PatchRouter", targets: ["PatchRouter"]),
        .library(name: "PatchRouterBindings", targets: ["PatchRouterBindings"]),
        .library(name: "PatchDelivery", targets: ["PatchDelivery"]),
        .library(name: "PatchFormat", targets: ["PatchFormat"]),
        .library(name: "PatchUpdater", targets: ["PatchUpdater"]),
        .executable(name: "patchctl", targets: ["patchctl"]),
        .executable(name: "patchserver", targets: ["patchserver"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // Patch delivery: Ed25519 signatures (CryptoKit's API on Linux), logging, the QA HTTP server.
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        // The release service (`patchserver`): HTTP, and its two storages.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/vapor/sqlite-nio", from: "1.13.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // The updater's transport (PatchUpdater/HTTPTransport.swift says why not URLSession).
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        // JavaScriptCore's C API.
        .systemLibrary(
            name: "CJavaScriptCore",
            pkgConfig: "javascriptcoregtk-4.1",
            providers: [.apt(["libjavascriptcoregtk-4.1-dev"])]
        ),
        // What every other target would otherwise spell again: LockedValue (state you can't touch
        // without its lock), the one bounded regular-file reader, the one log escaper. No dependency.
        .target(name: "PatchSupport"),
        // The Objective-C runtime core: forwarding, invocation marshalling, class building, hooks.
        // Its public header is plain C so Swift can import it on Linux (no Objective-C interop there).
        // It knows nothing of the engine above it: no JavaScriptCore, no script, no engine state.
        .target(
            name: "PatchRuntime",
            cSettings: objcCSettings,
            linkerSettings: objcLinkerSettings
        ),
        // The engine's C support (plain C, no Objective-C): per-thread JS entries, the lock-drop
        // order, the process footprint, JavaScriptCore's options and private symbol names, and the
        // engine's three scripts (Scripts/*.js) compiled in with #embed. Uses the runtime core's
        // stress points and private-symbol lookup.
        .target(
            name: "CPatchEngine",
            dependencies: ["PatchRuntime"],
            exclude: ["Scripts"],
            cSettings: privateAPICSettings
        ),
        // The Swift engine: public API, JS context, preprocessor, value boxing, patch loading.
        .target(
            name: "PatchEngine",
            dependencies: ["CPatchEngine", "PatchRuntime", "CJavaScriptCore", "PatchSupport"],
            swiftSettings: noPrivateAPI ? [.define("PATCHENGINE_NO_PRIVATE_API")] : [],
            linkerSettings: [
                .linkedLibrary("javascriptcoregtk-4.1", .when(platforms: [.linux])),
                .linkedFramework("JavaScriptCore", .when(platforms: [.macOS, .iOS])),
            ]
        ),
        // The Objective-C API (PEPatchEngine.h) for Objective-C apps: an Objective-C target over C
        // entry points that a Swift target exports (@_cdecl), so it works where Swift has no @objc
        // (Linux) as on Apple. One way: PatchEngineObjC -> PatchEngineObjCBridge -> PatchEngine,
        // PatchDelivery (SwiftPM can't mix languages in one target).
        .target(
            name: "PatchEngineObjCBridge",
            dependencies: ["PatchEngine", "PatchDelivery", "PatchFormat"]
        ),
        .target(
            name: "PatchEngineObjC",
            dependencies: ["PatchEngineObjCBridge"],
            cSettings: objcCSettings,
            linkerSettings: objcLinkerSettings
        ),
        // Objective-C that calls PEPatchEngine.h as an app does (README's Objective-C example is
        // ReadmeExample.m), with C entry points for its tests.
        .target(
            name: "PatchEngineObjCFixtures",
            dependencies: ["PatchEngineObjC"],
            path: "Tests/PatchEngineObjCFixtures",
            cSettings: objcCSettings,
            linkerSettings: objcLinkerSettings
        ),
        .testTarget(
            name: "PatchEngineObjCTests",
            dependencies: ["PatchEngineObjCFixtures", "PatchEngine", "PatchRepository", "PatchFormat"]
        ),
        .executableTarget(
            name: "patchctl",
            dependencies: [
                "PatchEngine",
                "PatchDelivery",
                "PatchDevServer",
                "PatchUpdater",
                "PatchFormat",
                "PatchRepository",
                "PatchAuthoring",
                "PatchSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tools/patchctl"
        ),
        // Writing patches: the app's Objective-C interface read from its headers by clang's front
        // end, and the checker that holds a patch script against it (`patchctl interface`, `check`).
        .target(
            name: "PatchAuthoring",
            dependencies: ["PatchEngine"],
            path: "Tools/PatchAuthoring"
        ),
        // `patchctl convert`'s corpus: one construct per method, compiled, so the tests can call each
        // method natively and converted (NotCompiled: what GCC's runtime can't compile; Expected: scripts).
        .target(
            name: "ConversionCorpus",
            path: "Tests/ConversionCorpus",
            exclude: ["NotCompiled", "Expected"],
            cSettings: objcCSettings,
            linkerSettings: objcLinkerSettings
        ),
        .testTarget(
            name: "PatchAuthoringTests",
            // ShopKit: the round trip converts the shop's Objective-C and patches its compiled classes.
            dependencies: ["PatchAuthoring", "PatchEngine", "ShopKit", "ConversionCorpus"]
        ),
        // The Update Framework's metadata: roles, canonical JSON, keys, signatures, thresholds,
        // hashes (docs/tuf-design.md); and the release vocabulary they sign (versions, ranges,
        // rollout buckets, `PatchRelease` and its device rule). No engine, no network: servers
        // and tools build on it.
        .target(
            name: "PatchFormat",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // The telemetry wire format devices send and the release service counts (no engine).
        .target(name: "PatchTelemetry"),
        // The TUF client workflow (spec §5) over PatchFormat: trusted metadata, delegation
        // search, bounded downloads, atomic persistence.
        .target(
            name: "PatchUpdater",
            dependencies: [
                "PatchFormat", "PatchSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        // The conformance suite's client under test (CLIENT-CLI.md) over PatchUpdater.
        .executableTarget(
            name: "patch-tuf-client",
            dependencies: ["PatchUpdater"],
            path: "Tools/patch-tuf-client"
        ),
        .testTarget(
            name: "PatchUpdaterTests",
            dependencies: ["PatchUpdater", "PatchFormat", "PatchRepository", "HTTPTestSupport"]
        ),
        // The publisher's side of TUF: the repository record, channel roles, releases, key
        // rotation, signatures from several key holders, the static tree (`patchctl repo`).
        .target(
            name: "PatchRepository",
            dependencies: ["PatchFormat", "PatchUpdater"]
        ),
        // Signed, versioned, revocable patches: format, trust, loader, cache, crash-loop guard.
        // Kept apart from PatchEngine so the engine itself depends on no Swift package.
        .target(
            name: "PatchDelivery",
            dependencies: [
                "PatchEngine",
                "PatchFormat",
                "PatchUpdater",
                "PatchTelemetry",
                "PatchSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // What every HTTP server here does against hostile clients (SwiftNIO handlers, one set of
        // limits): request-head size and time limits, idle timeout, a connection cap that sheds
        // idle connections, accept back-off when descriptors run out, stalled readers closed.
        .target(
            name: "ServerDefences",
            dependencies: ["PatchSupport", .product(name: "NIOCore", package: "swift-nio")],
            path: "Tools/ServerDefences"
        ),
        // A small HTTP server for QA: serves a directory of patches on loopback with ETags (SwiftNIO).
        // Not `PatchServer`: its folder would fold into Tools/patchserver (the release service) on a
        // case-insensitive disk.
        .target(
            name: "PatchDevServer",
            dependencies: [
                "ServerDefences", "PatchSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tools/PatchDevServer"
        ),
        // The release service (Hummingbird 2): hosts the app's TUF repository (uploads verified
        // against the trusted root, online snapshot and timestamp keys), telemetry intake, the
        // status page; storage in SQLite or PostgreSQL. No engine: the signed format only.
        .target(
            name: "PatchService",
            dependencies: [
                "PatchFormat", "PatchTelemetry", "ServerDefences",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Tools/PatchService"
        ),
        .executableTarget(
            name: "patchserver",
            dependencies: ["PatchService", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Tools/patchserver"
        ),
        .testTarget(
            name: "PatchServiceTests",
            dependencies: ["PatchService", "PatchDelivery", "HTTPTestSupport", "patchserver",
                           "PatchFormat", "PatchRepository", "PatchUpdater", "patchctl"]
        ),
        // What the servers' hardening tests share: raw sockets a test controls byte by byte
        // (PortableSocket: the Glibc/Darwin differences once), hostile clients (idle floods),
        // servers and programs in child processes (descriptor limit, peak memory).
        .target(
            name: "HTTPTestSupport",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            path: "Tests/HTTPTestSupport"
        ),
        // Objective-C classes the tests patch, plus C entry points that call them natively.
        .target(
            name: "PatchFixtures",
            dependencies: ["PatchRuntime"],
            path: "Tests/PatchFixtures",
            cSettings: objcCSettings,
            linkerSettings: objcLinkerSettings
        ),
        .testTarget(
            name: "PatchEngineTests",
            dependencies: ["PatchEngine", "PatchFixtures", "PatchRuntime", "CPatchEngine", "CJavaScriptCore", "PatchRouter",
                           "PatchRouterBindings", "PatchSupport"]
        ),
        // JSPatch's own test suite (../shared/third_party/jspatch-tests, read there at test time):
        // the native classes its scripts patch, with UIKit/CoreGraphics stand-ins, and its assertions.
        .target(
            name: "JSPatchFixtures",
            path: "Tests/JSPatchFixtures",
            cSettings: objcCSettings,
            linkerSettings: objcLinkerSettings
        ),
        .testTarget(
            name: "JSPatchSuiteTests",
            dependencies: ["PatchEngine", "JSPatchFixtures", .product(name: "Crypto", package: "swift-crypto")],
            // jsCFunctionTest.js finds the fixtures' C functions by name (dlsym), as an app's would
            // be found in the app's executable: the test executable exports its symbols.
            linkerSettings: [.unsafeFlags(["-Xlinker", "--export-dynamic"], .when(platforms: [.linux]))]
        ),
        // URL router with JLRoutes' matching rules, thread-safe; pure Swift, only PatchSupport (its locks).
        .target(name: "PatchRouter", dependencies: ["PatchSupport"]),
        // The router's `routes` global for patch scripts, a `ScriptExtension` an app registers
        // (PatchRouterBindings.register()): the engine itself does not depend on the router.
        .target(name: "PatchRouterBindings", dependencies: ["PatchEngine", "PatchRouter"]),
        .testTarget(name: "PatchRouterTests", dependencies: ["PatchRouter"]),
        // `make bench`: Objective-C subjects and native timing loops, and the harness that
        // prints the ratios (Benchmarks/README.md).
        .target(
            name: "BenchFixtures",
            dependencies: ["PatchRuntime", "CJavaScriptCore"],
            path: "Benchmarks/BenchFixtures",
            cSettings: objcCSettings,
            linkerSettings: objcLinkerSettings
        ),
        .executableTarget(
            name: "patchbench",
            dependencies: [
                "PatchEngine", "PatchRuntime", "CJavaScriptCore", "BenchFixtures", "PatchRouter",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/patchbench"
        ),
        // `make bench`, delivery part: PatchUpdater against python-tuf (Tools/tuf-bench/run.sh).
        .executableTarget(
            name: "tufbench",
            dependencies: ["PatchUpdater"],
            path: "Benchmarks/tufbench"
        ),
        // `make bench`, second part: the live QA loop's save → applied latency (Benchmarks/README.md).
        .executableTarget(
            name: "qaloopbench",
            dependencies: [
                "PatchDelivery", "PatchEngine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/qaloopbench"
        ),
        // Runs the harness with tiny iteration counts: it executes and gives sane numbers (no timing asserted).
        .testTarget(
            name: "PatchBenchTests",
            dependencies: ["patchbench", "BenchFixtures", "PatchEngine", "PatchRuntime"]
        ),
        // The sample shop (`make demo`, Samples/README.md): an Objective-C "app" with real bugs,
        // the Swift host that loads signed patches at launch, and its end-to-end tests.
        .target(
            name: "ShopKit",
            path: "Samples/ShopKit",
            cSettings: objcCSettings,
            linkerSettings: objcLinkerSettings
        ),
        .executableTarget(
            name: "shop",
            dependencies: [
                "ShopKit", "PatchDelivery", "PatchFormat", "PatchEngine", "PatchRouter", "PatchRouterBindings",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Samples/ShopHost"
        ),
        // `make demo`'s staged rollout: simulated devices following a release channel.
        .executableTarget(
            name: "fleet",
            dependencies: [
                "PatchDelivery", "PatchFormat",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Samples/Fleet"
        ),
        .testTarget(
            name: "SampleShopTests",
            dependencies: ["shop", "PatchDelivery", "PatchDevServer", "PatchFormat", "PatchRepository"]
        ),
        .testTarget(
            name: "PatchDeliveryTests",
            dependencies: [
                "PatchDelivery", "PatchDevServer", "PatchEngine", "patchctl", "HTTPTestSupport", "PatchUpdater",
                "PatchFormat", "PatchRepository",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
    ],
    // The code predates Swift 6's strict concurrency checking; tools version 6.x would make it
    // the default language mode.
    swiftLanguageModes: [.v5]
)
