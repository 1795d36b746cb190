import Foundation
import PatchDelivery
import PatchFormat
import XCTest

/// A tmpfs of a few pages mounted for one test: a real read-only or full file system. Needs root
/// and a working `mount` (the test is skipped otherwise); unmounted at tear-down.
final class TinyFileSystem {
    let url: URL

    init(_ test: XCTestCase, size: String = "256k") throws {
        url = try makeTemporaryDirectory(test).appendingPathComponent("mnt")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        guard Self.run(["mount", "-t", "tmpfs", "-o", "size=\(size)", "tmpfs", url.path]) == 0 else {
            throw XCTSkip("cannot mount a tmpfs here (needs root and mount)")
        }
        let url = self.url
        test.addTeardownBlock { _ = Self.run(["umount", url.path]) }
    }

    func remountReadOnly() throws {
        guard Self.run(["mount", "-o", "remount,ro", url.path]) == 0 else { throw XCTSkip("cannot remount read-only") }
    }

    /// Writes a filler file until the file system reports it full.
    func fill() throws {
        let handle = try FileHandle(forWritingTo: {
            let filler = url.appendingPathComponent("filler")
            FileManager.default.createFile(atPath: filler.path, contents: nil)
            return filler
        }())
        defer { try? handle.close() }
        let chunk = Data(count: 4096)
        for _ in 0..<(1 << 16) {  // bounded: 256 MB at most, far more than the tmpfs holds
            do { try handle.write(contentsOf: chunk) } catch { return }
        }
        XCTFail("the tmpfs never filled up")
    }

    @discardableResult
    static func run(_ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// The crash-loop guard on `PatchClient`'s path: it fails closed (a release it can't record is
/// not applied), and with several releases pending through failed launches only the culprit is
/// disabled (`CulpritSearch`).
final class PatchClientCrashLoopTests: XCTestCase {
    func storageFailures(_ events: [PatchClientEvent]) -> [String] {
        events.compactMap { if case .storageFailed(let message) = $0 { return message } else { return nil } }
    }

    /// Launch 1 takes the release from the network and succeeds: it is cached for the next launch.
    func firstLaunch(_ f: ChannelFixture, _ config: PatchClientConfiguration) throws {
        try f.release("cart.js", script: "var cart = 1;")
        let client = try f.launch(RecordingApplier(), config)
        XCTAssertEqual(client.update().applied, ["production/cart.js"])
        client.markLaunchSucceeded()
    }

    func testADirectoryPlantedWhereTheGuardFileGoesStopsReleases() throws {
        // Runs everywhere (root included): rename(2) can't replace a directory with a file.
        let f = try ChannelFixture(self)
        let config = f.configuration()
        try firstLaunch(f, config)
        let guardFile = config.stateDirectory.appendingPathComponent("launch-guard.json")
        try FileManager.default.removeItem(at: guardFile)
        try FileManager.default.createDirectory(at: guardFile, withIntermediateDirectories: false)

        let applier = RecordingApplier()
        let client = try f.launch(applier, config)
        let events = client.applyCached()
        XCTAssertTrue(storageFailures(events).contains { $0.hasPrefix("crash-loop guard state unreadable") }, "\(events)")
        XCTAssertTrue(storageFailures(events).contains { $0.contains("release production/cart.js not applied") && $0.contains("Is a directory") },
                      "\(events)")
        XCTAssertEqual(applier.calls, [], "nothing evaluated")
        XCTAssertEqual(client.liveReleases, [])

        // From the network too; the cached target is kept for a launch that can record it.
        try f.release("cart-2.js", script: "var cart = 2;", version: 2)
        let update = client.update()
        XCTAssertTrue(storageFailures(update).contains { $0.contains("release production/cart-2.js not applied") }, "\(update)")
        XCTAssertEqual(applier.calls, [])
        try FileManager.default.removeItem(at: guardFile)
        XCTAssertEqual(try f.launch(RecordingApplier(), config).applyCached().applied, ["production/cart-2.js"])
    }

    func testAReadOnlyFileSystemStopsReleases() throws {
        let f = try ChannelFixture(self)
        let disk = try TinyFileSystem(self, size: "2m")
        var config = f.configuration()
        config.stateDirectory = disk.url.appendingPathComponent("device")
        try firstLaunch(f, config)
        try disk.remountReadOnly()

        let applier = RecordingApplier()
        let client = try f.launch(applier, config)
        let events = client.applyCached()
        XCTAssertTrue(storageFailures(events).contains { $0.contains("Read-only file system") }, "\(events)")
        XCTAssertEqual(applier.calls, [])
        XCTAssertEqual(client.liveReleases, [])
    }

    func testAFullDiskStopsReleases() throws {
        let f = try ChannelFixture(self)
        let disk = try TinyFileSystem(self, size: "2m")
        var config = f.configuration()
        config.stateDirectory = disk.url.appendingPathComponent("device")
        try firstLaunch(f, config)
        try disk.fill()

        let applier = RecordingApplier()
        let client = try f.launch(applier, config)
        let events = client.applyCached()
        XCTAssertTrue(storageFailures(events).contains { $0.contains("No space left on device") }, "\(events)")
        XCTAssertEqual(applier.calls, [])
        XCTAssertEqual(client.liveReleases, [])
    }

    struct Launch {
        var live: [String]
        var events: [PatchClientEvent]
        var succeeded: Bool
    }

    /// `count` launches the way an app makes them: cached releases, then the network; a launch
    /// "crashes" (never reaches launch success) when one of `bad` (patch ids) is live.
    func launches(_ count: Int, bad: Set<String>, _ f: ChannelFixture) throws -> [Launch] {
        var result: [Launch] = []
        for _ in 0..<count {
            let client = try f.launch(RecordingApplier())
            let events = client.applyCached() + client.update()
            let live = client.liveReleases.map(\.reference.patchID)
            let crashed = live.contains { bad.contains($0) }
            if !crashed { client.markLaunchSucceeded() }
            result.append(Launch(live: live, events: events, succeeded: !crashed))
        }
        return result
    }

    func testOneBadReleaseAmongThreeIsFoundAndOnlyItIsDisabled() throws {
        let f = try ChannelFixture(self)
        for id in ["patch-a", "patch-b", "patch-c"] { try f.release("\(id).js", script: "// \(id)", patchID: id) }
        let runs = try launches(7, bad: ["patch-b"], f)
        XCTAssertEqual(runs.map(\.live), [
            ["patch-a", "patch-b", "patch-c"],  // 1: everything new, crashes
            ["patch-a", "patch-b", "patch-c"],  // 2: crashes again: a crash loop with three suspects
            ["patch-c"],                        // 3: the newest alone: succeeds, c is cleared
            ["patch-b", "patch-c"],             // 4: b (the newer half of a, b) with c: crashes
            ["patch-b", "patch-c"],             // 5: crashes again: b alone is pinned
            ["patch-a", "patch-c"],             // 6: b disabled; a tried: succeeds, cleared, search over
            ["patch-a", "patch-c"],             // 7: an ordinary launch
        ])
        XCTAssertEqual(runs.map(\.succeeded), [false, false, true, false, false, true, true])
        XCTAssertEqual(runs[2].events.first, .crashLoopSearchStarted(suspects: [
            PatchVersionID(patchID: "patch-c", version: 1), PatchVersionID(patchID: "patch-b", version: 1),
            PatchVersionID(patchID: "patch-a", version: 1)]))
        XCTAssertTrue(runs[5].events.contains { if case .disabledByCrashLoop(let r, 2) = $0 { return r.patchID == "patch-b" } else { return false } },
                      "\(runs[5].events)")
    }

    /// A release that crashes the app while `update()` waits on a silent server is still caught:
    /// only so many launches that end during the wait are excused.
    func testOnlySoManyLaunchesKilledDuringTheNetworkWaitAreExcused() throws {
        let f = try ChannelFixture(self)
        try f.release("cart.js", script: "var cart = 1;")
        let first = try f.launch(RecordingApplier())
        first.update()   // applied, never reaches launch success
        f.transport.silent = true
        var stuck: [DispatchGroup] = []
        var disabled = false
        for _ in 0..<(CrashLoopGuard.maxExcusedNetworkWaits + 3) {
            let client = try f.launch(RecordingApplier())
            let events = client.applyCached()
            if events.contains(where: { if case .disabledByCrashLoop = $0 { return true } else { return false } }) { disabled = true; break }
            let before = f.transport.requests.count
            let group = DispatchGroup()
            group.enter()
            Thread.detachNewThread { client.update(); group.leave() }
            stuck.append(group)
            let deadline = Date().addingTimeInterval(10)
            while f.transport.requests.count == before, Date() < deadline { usleep(10_000) }
        }
        f.transport.silent = false
        XCTAssertTrue(disabled, "a release that never lets a launch succeed is disabled in the end")
        for group in stuck { _ = group.wait(timeout: .now() + 30) }
    }
}
