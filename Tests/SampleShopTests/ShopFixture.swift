import Foundation
import PatchFormat
import PatchRepository
import PatchDevServer
import XCTest

/// What one launch of the `shop` executable printed.
struct ShopRun {
    var status: Int32
    var out: String
    var err: String

    var lines: [String] { out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }

    /// The patch client's events, without the `patch: ` prefix.
    var events: [String] { lines.filter { $0.hasPrefix("patch: ") }.map { String($0.dropFirst(7)) } }

    /// The `n`th screens section (1-based), without its title line; nil when there is none.
    func screens(_ n: Int = 1) -> String? {
        var count = 0, inside = false, section: [String] = []
        for line in lines {
            if line.hasPrefix("== ") || line == "launch succeeded" {
                if inside { return section.joined(separator: "\n") }
                if line.hasPrefix("== screens") {
                    count += 1
                    inside = count == n
                }
                continue
            }
            if inside { section.append(line) }
        }
        return inside ? section.joined(separator: "\n") : nil
    }

    /// The `n`th screens section's title, e.g. "screens (live patches: shop-fixes v1)".
    func screensTitle(_ n: Int = 1) -> String? {
        let titles = lines.filter { $0.hasPrefix("== screens") }
        guard titles.indices.contains(n - 1) else { return nil }
        return String(titles[n - 1].dropFirst(3).dropLast(3))
    }
}

/// The app's TUF repository (`PatchRepository`, channels staging and production, keys in
/// memory), its published tree served by the project's own `PatchServer` on loopback, the root
/// the app ships with, and device state directories. `launch` runs the built `shop` executable
/// as one app launch.
final class ShopFixture {
    static let appID = "com.example.shop"
    static let range = ">=1.4.0 <1.5.0"
    static let release = "shop-fixes.js"
    /// The sample patches, in the order `make demo` releases them (one target, concatenated).
    static let scripts = ["total.js", "product-name.js", "gift-wrap.js", "deep-link.js"]

    /// `Samples/patches`, found from this file's place in the repository.
    static let patchesDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Samples/patches")

    /// The built `shop`: next to the test runner on Linux (`…/debug/PatchEnginePackageTests.xctest`),
    /// next to the `.xctest` bundle on Apple platforms.
    static var shopExecutable: URL {
        #if os(Linux)
        let runner = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: runner).deletingLastPathComponent().appendingPathComponent("shop")
        #else
        let bundle = Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }!
        return bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("shop")
        #endif
    }

    let root: URL
    let served: URL
    var keys: [String: PatchFormat.SigningKey] = [:]
    var repository: Repository
    /// The root metadata the app ships with.
    let rootFile: URL
    let server: PatchServer

    init(_ test: XCTestCase) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("sampleshop-\(UUID().uuidString)")
        served = root.appendingPathComponent("served")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        let root = self.root
        test.addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        for name in ["root-1", "root-2", "root-3", "targets", "snapshot", "timestamp", "staging", "production"] {
            keys[name] = try PatchFormat.SigningKey.generate(.ed25519)
        }
        let initial = InitialKeys(root: [keys["root-1"]!, keys["root-2"]!, keys["root-3"]!], rootThreshold: 2,
                                  targets: [keys["targets"]!], snapshot: keys["snapshot"]!, timestamp: keys["timestamp"]!,
                                  channels: ["staging": keys["staging"]!, "production": keys["production"]!])
        repository = try Repository.create(directory: root.appendingPathComponent("repo"),
                                           settings: RepositorySettings(channels: ["staging", "production"]), keys: initial)
        rootFile = root.appendingPathComponent("1.root.json")
        try repository.roots[0].serialized().write(to: rootFile)
        server = PatchServer(directory: served, log: nil)
        try server.start()
        let server = self.server
        test.addTeardownBlock { server.stop(gracePeriod: 0.1) }
        try publish()
    }

    var serverURL: String { server.baseURL?.absoluteString ?? "http://127.0.0.1:9/" }
    var online: [PatchFormat.SigningKey] { [keys["snapshot"]!, keys["timestamp"]!] }

    /// The sample scripts (all four by default), concatenated: one release's target.
    static func script(_ scripts: [String] = ShopFixture.scripts) throws -> Data {
        var text = ""
        for name in scripts { text += try String(contentsOf: patchesDirectory.appendingPathComponent(name), encoding: .utf8) + "\n" }
        return Data(text.utf8)
    }

    /// Releases the sample scripts to production as `name` and publishes.
    func release(_ name: String = ShopFixture.release, scripts: [String] = ShopFixture.scripts, patchID: String = "shop-fixes",
                 version: Int = 1, range: String = ShopFixture.range) throws {
        try repository.release(name, content: try Self.script(scripts),
                               release: PatchRelease(app: Self.appID, patchID: patchID, version: version, appVersions: try AppVersionRange(parsing: range)),
                               channel: "production", keys: [keys["production"]!] + online)
        try publish()
    }

    func revoke(_ name: String = ShopFixture.release) throws {
        try repository.revoke(name, channel: "production", keys: [keys["production"]!] + online)
        try publish()
    }

    /// Writes the repository's static tree into the served folder.
    func publish() throws { try repository.publish(to: served) }

    /// The served files of a target (one per hash it is listed with).
    func servedTargets(_ name: String = ShopFixture.release) throws -> [URL] {
        let folder = served.appendingPathComponent("targets/production")
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix("." + name) }
            .map { folder.appendingPathComponent($0) }
    }

    /// One launch of the shop as device `device` (its own state directory), against this fixture's
    /// server unless `online` is false; `extra` are more command-line options.
    func launch(device: String, online: Bool = true, trusting: Bool = true, extra: [String] = []) throws -> ShopRun {
        var arguments = ["--state-dir", root.appendingPathComponent("devices/\(device)").path, "--timeout", "5"]
        if trusting { arguments += ["--root", rootFile.path] }
        if online { arguments += ["--repository", serverURL, "--allow-http"] }
        return try Self.runShop(arguments + extra)
    }

    /// Runs `shop` with `arguments`; a run that takes over 60 s is killed (and fails the test).
    static func runShop(_ arguments: [String]) throws -> ShopRun {
        let process = Process()
        process.executableURL = shopExecutable
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)
        // Read both pipes before waiting, so a full pipe can't block the child.
        let errData = LockedData()
        let errReader = Thread { errData.set(err.fileHandleForReading.readDataToEndOfFile()) }
        errReader.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        while !errData.isSet { Thread.sleep(forTimeInterval: 0.005) }
        return ShopRun(status: process.terminationStatus, out: String(decoding: outData, as: UTF8.self),
                       err: String(decoding: errData.value, as: UTF8.self))
    }
}

/// Bytes handed from a reader thread.
private final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var data: Data?
    func set(_ d: Data) { lock.withLock { data = d } }
    var isSet: Bool { lock.withLock { data != nil } }
    var value: Data { lock.withLock { data ?? Data() } }
}
