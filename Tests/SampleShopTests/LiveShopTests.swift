import Foundation
import PatchDelivery
import PatchServer
import XCTest

/// The shop's live mode (`--dev`) as real processes: the dev channel on the project's own server
/// (what `patchctl dev` runs), versions signed with a development key, the shop killed and
/// launched again.
final class LiveShopTests: XCTestCase {
    var root: URL!
    var key: SigningKey!
    var publicKeyFile: URL!
    var server: PatchServer!
    let reports = LockedLines()
    var version = 0

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: ShopFixture.shopExecutable.path) else {
            throw XCTSkip("shop is not built at \(ShopFixture.shopExecutable.path)")
        }
        root = FileManager.default.temporaryDirectory.appendingPathComponent("liveshop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let root = self.root!
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        key = DevelopmentKey.generate()
        publicKeyFile = root.appendingPathComponent("dev-public-key.json")
        try DevelopmentKey.publicFileData(key).write(to: publicKeyFile)
        let reports = self.reports
        let channel = DevChannel(onReport: { device, data in
            if let report = DevReport.decode(data) { reports.append(report.formatted(device: device)) }
        })
        server = PatchServer(directory: root, devChannel: channel, log: nil)
        try server.start()
        let server = self.server!
        addTeardownBlock { server.stop(gracePeriod: 0.1) }
    }

    /// Signs the sample scripts named with the development key and pushes them as the next version.
    func publish(_ scripts: [String]) throws -> Int {
        version += 1
        let sources = try scripts.map { ($0, try String(contentsOf: ShopFixture.patchesDirectory.appendingPathComponent($0), encoding: .utf8)) }
        let patch = try PatchSigner(key: key).sign(patchID: "dev", version: version, appID: ShopFixture.appID, scripts: sources)
        try server.devChannel!.publish(event: "patch", id: String(version), data: patch.fileData().base64EncodedString())
        return version
    }

    func testTheLiveShopShowsEachVersionAndARelaunchedShopGetsTheCurrentOneAtOnce() throws {
        var shop = try LiveShop.launch(url: server.baseURL!, key: publicKeyFile, device: "live-shop")
        try shop.waitForLine("Total                       $38.37")
        let one = try publish(["total.js"])
        try shop.waitForLine("Total                       $42.77", timeout: 2)
        try reports.wait(for: "[live-shop] v\(one) applied")

        let two = try publish(["total.js", "gift-wrap.js"])
        try shop.waitForLine("Gift wrap? (3 items)        +$4.50", timeout: 2)
        try reports.wait(for: "[live-shop] v\(two) applied")

        // The app is killed and launched again: it starts unpatched and gets v2 without a new save.
        shop.stop()
        shop = try LiveShop.launch(url: server.baseURL!, key: publicKeyFile, device: "live-shop")
        try shop.waitForLine("Gift wrap? (3 items)        +$4.50", timeout: 5)
        XCTAssertTrue(shop.lines.contains { $0.contains("(dev v\(two))") }, shop.lines.joined(separator: "\n"))
        shop.stop()
    }

    func testAProductionShopCannotTrustTheDevelopmentKey() throws {
        // Handed the development public key as the root it ships with, the shop refuses to start.
        let run = try ShopFixture.runShop(["--root", publicKeyFile.path, "--state-dir", root.appendingPathComponent("device").path])
        XCTAssertNotEqual(run.status, 0)
        XCTAssertTrue(run.err.contains("bundled root: "), run.err)
    }
}

/// A `shop --dev` process, its output collected line by line.
final class LiveShop {
    let process = Process()
    private let output = LockedLines()

    static func launch(url: URL, key: URL, device: String) throws -> LiveShop {
        let shop = LiveShop()
        shop.process.executableURL = ShopFixture.shopExecutable
        shop.process.arguments = ["--dev", url.absoluteString, "--dev-key", key.path, "--device", device, "--every", "50", "--run-for", "60"]
        let pipe = Pipe()
        shop.process.standardOutput = pipe
        shop.process.standardError = pipe
        shop.process.standardInput = Pipe()
        let output = shop.output
        let partial = PartialLines()
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            guard !data.isEmpty else { handle.readabilityHandler = nil; return }
            for line in partial.take(appending: data) { output.append(line) }
        }
        try shop.process.run()
        return shop
    }

    var lines: [String] { output.all }

    func waitForLine(_ text: String, timeout: TimeInterval = 10) throws {
        try output.wait(for: text, timeout: timeout)
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning, Date() < deadline { usleep(10_000) }
    }

    deinit { stop() }
}

final class LockedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }

    /// Waits (bounded) for a line containing `text`.
    func wait(for text: String, timeout: TimeInterval = 10) throws {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if all.contains(where: { $0.contains(text) }) { return }
            usleep(10_000)
        } while Date() < deadline
        XCTFail("no line with '\(text)' within \(timeout) s; got:\n" + all.suffix(60).joined(separator: "\n"))
        throw NSError(domain: "LiveShopTests", code: 1)
    }
}

/// Bytes not yet ending in a newline.
final class PartialLines: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    func take(appending more: Data) -> [String] {
        lock.withLock {
            data.append(more)
            var lines: [String] = []
            while let newline = data.firstIndex(of: UInt8(ascii: "\n")) {
                lines.append(String(decoding: data[data.startIndex..<newline], as: UTF8.self))
                data = Data(data[data.index(after: newline)...])
            }
            return lines
        }
    }
}
