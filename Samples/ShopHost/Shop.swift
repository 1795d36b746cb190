import ArgumentParser
import Foundation
import Logging
import PatchEngine

/// The sample shop app. It launches the way an app that embeds PatchEngine would: apply the
/// releases it verified and cached before, refresh its channel from the app's TUF repository,
/// show its screens, then tell the crash-loop guard that the launch succeeded.
@main
struct Shop: ParsableCommand {
    static let appID = "com.example.shop"
    /// The version this build of the app reports; signed patches name the versions they fit.
    static let appVersion = "1.4.0"

    static let configuration = CommandConfiguration(
        commandName: "shop",
        abstract: "The sample shop app: takes its channel's patch releases at launch, then shows its screens.",
        discussion: """
            Screens: the catalog, the checkout of a sample cart, and two deep links (shop://cart, \
            shop://product/TEE-02). Version 1.4.0 ships with four bugs that Samples/patches fixes: a \
            wrong total, a catalog that crashes on a product without a name, a gift-wrap offer that \
            never shows, and a product deep link that opens nothing. Patch events are printed as \
            'patch: …'. A refused or failed release never stops the app: it keeps running without it.
            """)

    @Option(help: ArgumentHelp(
        "Base URL of the app's TUF repository (serving metadata/ and targets/). Without it the app runs offline, with what it verified and cached before.",
        valueName: "URL"))
    var repository: String?

    @Option(help: ArgumentHelp(
        "The root metadata the app ships with (the repository's 1.root.json). Without it, patches are off.", valueName: "FILE"))
    var root: String?

    @Option(help: "The release channel this build follows.")
    var channel = "production"

    @Option(name: .customLong("state-dir"), help: ArgumentHelp(
        "Where this device keeps its patch cache and state (created if missing).", valueName: "DIR"))
    var stateDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("patchengine-shop").path

    @Flag(name: .customLong("allow-http"), help: "Allow a plain http:// repository (local QA only; production uses https).")
    var allowHTTP = false

    @Option(name: .customLong("app-version"), help: "Run as this app version (to rehearse a patch's version range).")
    var appVersion = Shop.appVersion

    @Option(help: "Per-request timeout in seconds.")
    var timeout: Double = 5

    @Flag(name: .customLong("show-before-update"),
          help: "Also show the screens after applying the cached patches, before checking the server (as an app shows its first screen while it checks).")
    var showBeforeUpdate = false

    @Flag(help: "Log PatchDelivery's diagnostics to standard error.")
    var verbose = false

    @Option(help: ArgumentHelp(
        "Live QA loop: keep running, apply every version `patchctl dev` at this URL pushes, and print the screens whenever they change.",
        valueName: "URL"))
    var dev: String?

    @Option(name: .customLong("dev-root"), help: ArgumentHelp(
        "The development root `patchctl dev` printed (its dev-root.json; needed with --dev; production builds have none).", valueName: "FILE"))
    var devRoot: String?

    @Option(help: "Device name shown next to this app's reports in `patchctl dev`.")
    var device = "shop"

    @Option(help: "With --dev: render the screens every this many milliseconds.")
    var every = 200

    @Option(name: .customLong("run-for"), help: "With --dev: exit after this many seconds (default: until interrupted).")
    var runFor: Double?

    func validate() throws {
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
        guard (10...60_000).contains(every) else { throw ValidationError("--every must be 10...60000 ms") }
        if dev != nil, devRoot == nil { throw ValidationError("--dev needs --dev-root (the development root)") }
    }

    func run() throws {
        let verbose = self.verbose
        LoggingSystem.bootstrap { label in
            guard verbose else { return SwiftLogNoOpLogHandler() }
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .info
            return handler
        }
        // console.log and errors raised inside patched methods, in order with the rest.
        PatchEngine.logHandler = { line in print("js: \(line)") }

        print("shop \(appVersion) (\(Shop.appID))")
        try ShopRoutes.register()
        let patches = try ShopPatches(
            repository: repository, rootFile: root, channel: channel, stateDirectory: stateDirectory,
            allowHTTP: allowHTTP, appVersion: appVersion, timeout: timeout)

        patches.applyCachedPatches()
        if showBeforeUpdate {
            ShopScreens.show(title: "screens before the update (live patches: \(patches.liveSummary))")
        }
        patches.update()
        ShopScreens.show(title: "screens (live patches: \(patches.liveSummary))")
        patches.markLaunchSucceeded()
        print("launch succeeded")
        fflush(stdout)
        if let dev, let devRoot {
            try ShopLiveMode.run(server: dev, developmentRoot: devRoot, device: device, appVersion: appVersion,
                                 interval: TimeInterval(every) / 1000, duration: runFor)
        }
    }
}
