import Foundation
import PatchDelivery
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

/// If the crash-loop guard can't record a patch as pending, the patch is not applied.
final class CrashLoopGuardFailClosedTests: XCTestCase {
    /// Launch 1 applies v1 from the network and succeeds: v1 is cached for the next launch.
    func firstLaunch(_ f: DeliveryFixture, _ config: PatchLoader.Configuration) throws {
        try f.serve(try f.patch(version: 1))
        let loader = try f.launch(RecordingApplier(), configuration: config)
        XCTAssertEqual(loader.update().first, .applied(patchID: "shop-fixes", version: 1, source: .network))
        XCTAssertEqual(loader.markLaunchSucceeded(), [])
    }

    func guardUnavailable(_ events: [PatchEvent]) -> [String] {
        events.compactMap { if case let .guardUnavailable(id, version, message) = $0 { return "\(id) v\(version): \(message)" } else { return nil } }
    }

    func testADirectoryPlantedWhereTheGuardFileGoesStopsPatches() throws {
        // Runs everywhere (root included): rename(2) can't replace a directory with a file.
        let f = try DeliveryFixture(self)
        try firstLaunch(f, f.configuration())
        let guardFile = f.stateDirectory.appendingPathComponent("launch-guard.json")
        try FileManager.default.removeItem(at: guardFile)
        try FileManager.default.createDirectory(at: guardFile, withIntermediateDirectories: false)

        let applier = RecordingApplier()
        let loader = try f.launch(applier)
        let events = loader.applyCachedPatches()
        XCTAssertEqual(events.first, .stateReset(file: "launch-guard.json", message: "launch-guard.json is not a regular file"))
        XCTAssertEqual(guardUnavailable(events).count, 1, "\(events)")
        XCTAssertTrue(guardUnavailable(events)[0].hasPrefix("shop-fixes v1: cannot rename \(guardFile.path): Is a directory"),
                      guardUnavailable(events)[0])
        XCTAssertEqual(applier.calls, [], "nothing evaluated")
        XCTAssertEqual(loader.livePatches, [])
        XCTAssertFalse(events.contains { if case .applied = $0 { return true } else { return false } })
        XCTAssertTrue(events[1].description.hasPrefix("not applied shop-fixes v1: the crash-loop guard could not record it first (cannot rename"),
                      events[1].description)

        // From the network too, and the cached copy is kept for a launch that can record it.
        try f.serve(try f.patch(version: 2))
        let update = loader.update()
        XCTAssertEqual(guardUnavailable(update).count, 1, "\(update)")
        XCTAssertEqual(applier.calls, [])
        try FileManager.default.removeItem(at: guardFile)
        let fixed = RecordingApplier()
        XCTAssertEqual(try f.launch(fixed).applyCachedPatches(), [.applied(patchID: "shop-fixes", version: 1, source: .cache)])
    }

    func testAReadOnlyFileSystemStopsPatches() throws {
        // A read-only mount binds root too (a directory's mode bits would not).
        let f = try DeliveryFixture(self)
        let disk = try TinyFileSystem(self)
        var config = f.configuration()
        config.stateDirectory = disk.url.appendingPathComponent("device")
        try firstLaunch(f, config)
        try disk.remountReadOnly()

        let applier = RecordingApplier()
        let loader = try f.launch(applier, configuration: config)
        let events = loader.applyCachedPatches()
        XCTAssertEqual(guardUnavailable(events).count, 1, "\(events)")
        XCTAssertTrue(guardUnavailable(events)[0].contains("Read-only file system"), guardUnavailable(events)[0])
        XCTAssertEqual(applier.calls, [])
        XCTAssertEqual(loader.livePatches, [])
    }

    func testAFullDiskStopsPatches() throws {
        let f = try DeliveryFixture(self)
        let disk = try TinyFileSystem(self)
        var config = f.configuration()
        config.stateDirectory = disk.url.appendingPathComponent("device")
        try firstLaunch(f, config)
        try disk.fill()

        let applier = RecordingApplier()
        let loader = try f.launch(applier, configuration: config)
        let events = loader.applyCachedPatches()
        XCTAssertEqual(guardUnavailable(events).count, 1, "\(events)")
        XCTAssertTrue(guardUnavailable(events)[0].contains("No space left on device"), guardUnavailable(events)[0])
        XCTAssertEqual(applier.calls, [])
        XCTAssertEqual(loader.livePatches, [])
    }
}
