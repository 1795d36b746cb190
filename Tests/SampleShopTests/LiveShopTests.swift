import Foundation
import PatchDelivery
import PatchRepository
import PatchDevServer
import XCTest

/// The shop's live mode (`--dev`) as real processes: the dev channel on the project's own server
/// (what `patchctl dev` runs), versions published in a development repository and announced,
/// the shop killed and launched again.
final class LiveShopTests: XCTestCase {
    var root: URL!
    var repository: DevelopmentRepository!
    var rootFile: URL!
    var server: PatchServer!
    let reports = LockedLines()

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: ShopFixture.shopExecutable.path) else {
            throw XCTSkip("shop is not built at \(ShopFixture.shopExecutable.path)")
        }
        root = FileManager.default.temporaryDirectory.appendingPathComponent("liveshop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let root = self.root!
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        repository = try DevelopmentRepository.openOrCreate(in: root.appendingPathComponent("keys")).repository
        rootFile = repository.rootFileURL
        try FileManager.default.createDirectory(at: root.appendingPathComponent("served"), withIntermediateDirectories: true)
        let reports = self.reports
        let channel = DevChannel(onReport: { device, data in
            if let report = DevReport.decode(data) { reports.append(report.formatted(device: device)) }
        })
        server = PatchServer(directory: root.appendingPathComponent("served"), devChannel: channel, log: nil)
        try server.start()
        let server = self.server!
        addTeardownBlock { server.stop(gracePeriod: 0.1) }
    }

    /// Publishes the sample scripts named as the next development version and announces it.
    func publish(_ scripts: [String]) throws -> Int {
        let sources = try scripts.map { ($0, try Data(contentsOf: ShopFixture.patchesDirectory.appendingPathComponent($0))) }
        let version = try repository.publish(scripts: sources, patchID: "dev", app: ShopFixture.appID, appVersions: nil)
        try repository.write(to: root.appendingPathComponent("served").appendingPathComponent(DevelopmentSession.repositoryPath))
        try server.devChannel!.publish(event: DevelopmentSession.versionEvent, id: String(version), data: String(version))
        return version
    }

    func testTheLiveShopShowsEachVersionAndARelaunchedShopGetsTheCurrentOneAtOnce() throws {
        var shop = try LiveShop.launch(url: server.baseURL!, root: rootFile, device: "live-shop")
        try shop.waitForLine("Total                       $38.37")
        let one = try publish(["total.js"])
        try shop.waitForLine("Total                       $42.77", timeout: 2)
        try reports.wait(for: "[live-shop] v\(one) applied")

        let two = try publish(["total.js", "gift-wrap.js"])
        try shop.waitForLine("Gift wrap? (3 items)        +$4.50", timeout: 2)
        try reports.wait(for: "[live-shop] v\(two) applied")

        // The app is killed and launched again: it starts unpatched and gets v2 without a new save.
        shop.stop()
        shop = try LiveShop.launch(url: server.baseURL!, root: rootFile, device: "live-shop")
        try shop.waitForLine("Gift wrap? (3 items)        +$4.50", timeout: 5)
        XCTAssertTrue(shop.lines.contains { $0.contains("(dev v\(two))") }, shop.lines.joined(separator: "\n"))
        shop.stop()
    }

    func testAProductionShopCannotTrustTheDevelopmentRoot() throws {
        // Handed the development root as the root it ships with, the shop refuses to start.
        let run = try ShopFixture.runShop(["--root", rootFile.path, "--state-dir", root.appendingPathComponent("device").path])
        XCTAssertNotEqual(run.status, 0)
        XCTAssertTrue(run.err.contains("root trusts a development key: refused in a production client"), run.err)
    }
}

/// A `shop --dev` process, its output collected line by line.
final class LiveShop {
    let process = Process()
    private let output = LockedLines()

    static func launch(url: URL, root: URL, device: String) throws -> LiveShop {
        let shop = LiveShop()
        shop.process.executableURL = ShopFixture.shopExecutable
        shop.process.arguments = ["--dev", url.absoluteString, "--dev-root", root.path, "--device", device, "--every", "50", "--run-for", "60"]
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
