import Foundation
import PatchDelivery
import PatchServer
import XCTest

/// What one launch of the `shop` executable printed.
struct ShopRun {
    var status: Int32
    var out: String
    var err: String

    var lines: [String] { out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }

    /// The loader's events, without the `patch: ` prefix.
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

/// One patch server (the project's own `PatchServer` on loopback) serving a directory, a signing
/// key whose public half the app trusts, and device state directories. `launch` runs the built
/// `shop` executable as one app launch.
final class ShopFixture {
    static let appID = "com.example.shop"
    static let range = ">=1.4.0 <1.5.0"
    static let patchFile = "shop-fixes.json"
    /// The sample patches, in the order `make demo` signs them.
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
    let key: SigningKey
    let publicKeyFile: URL
    let server: PatchServer

    init(_ test: XCTestCase) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("sampleshop-\(UUID().uuidString)")
        served = root.appendingPathComponent("served")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        let root = self.root
        test.addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        key = SigningKey.generate(id: "shop-release")
        publicKeyFile = root.appendingPathComponent("shop-release.public-key.json")
        try key.trustedKey.fileData().write(to: publicKeyFile)
        server = PatchServer(directory: served, log: nil)
        try server.start()
        let server = self.server
        test.addTeardownBlock { server.stop(gracePeriod: 0.1) }
        // A device takes no patch before it has a fresh revocation list: the server always has one.
        try publishRevocations([], sequence: 1)
    }

    var serverURL: String { server.baseURL?.absoluteString ?? "http://127.0.0.1:9/" }

    /// The sample patch (all four scripts by default), signed for the shop's 1.4 versions.
    func signedPatch(id: String = "shop-fixes", version: Int = 1, scripts: [String] = ShopFixture.scripts,
                     range: String = ShopFixture.range, key: SigningKey? = nil) throws -> SignedPatch {
        let sources = try scripts.map { name in
            (name: name, source: try String(contentsOf: Self.patchesDirectory.appendingPathComponent(name), encoding: .utf8))
        }
        return try PatchSigner(key: key ?? self.key).sign(
            patchID: id, version: version, appID: Self.appID, appVersions: try AppVersionRange(parsing: range),
            scripts: sources)
    }

    /// Puts bytes on the server as the shop's patch file.
    func publish(_ data: Data) throws {
        try data.write(to: served.appendingPathComponent(Self.patchFile))
    }

    func publish(_ patch: SignedPatch) throws { try publish(patch.fileData()) }

    /// Serves a signed revocation list naming `ids`.
    func publishRevocations(_ ids: [String], sequence: Int) throws {
        let list = RevocationList(sequence: sequence, issued: Date(), keyID: key.id,
                                  entries: ids.map { RevocationList.Entry(patchID: $0) })
        try PatchSigner(key: key).sign(list).fileData().write(to: served.appendingPathComponent("revocations.json"))
    }

    /// One launch of the shop as device `device` (its own state directory), against this fixture's
    /// server unless `online` is false; `extra` are more command-line options.
    func launch(device: String, online: Bool = true, trusting: Bool = true, extra: [String] = []) throws -> ShopRun {
        var arguments = ["--state-dir", root.appendingPathComponent("devices/\(device)").path, "--timeout", "5"]
        if trusting { arguments += ["--public-key", publicKeyFile.path] }
        if online { arguments += ["--server", serverURL, "--allow-http"] }
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
