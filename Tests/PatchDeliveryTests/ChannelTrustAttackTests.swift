import Foundation
import PatchDelivery
import PatchFormat
import PatchRepository
import PatchUpdater
import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Issue 31's numbered attacks on a device, each against `PatchClient` (each passed through on
/// 49dbc60): one channel stopping another, a root planted in the state folder, a freeze taken
/// for an absence of network, a signed length that trapped.
final class ChannelTrustAttackTests: XCTestCase {
    private let day: TimeInterval = 86_400

    /// A device on a clock the test moves, having taken `taking`.
    private func clockedDevice(_ fixture: ChannelFixture, taking: String = "production/cart.js") throws
        -> (PatchClient, RecordingApplier, TestClock, PatchClientConfiguration) {
        let clock = TestClock()
        var config = fixture.configuration()
        config.clock = clock.read
        let applier = RecordingApplier()
        let client = try fixture.launch(applier, config)
        XCTAssertEqual(client.update().applied, [taking])
        return (client, applier, clock, config)
    }

    // MARK: 1. Channels isolated

    /// Attack 1: a staging role that expired (signed valid for one second, or never re-signed),
    /// that the mirror lost, or that is garbage, does not stop a production device: it takes a
    /// release and later its revocation, and never asks for staging's metadata.
    func testAttack1_AnExpiredMissingOrInvalidStagingRoleLeavesProductionUpdating() throws {
        for breakage in ["expired", "missing", "invalid"] {
            let fixture = try ChannelFixture(self)
            let stagingKeys = [fixture.keys["staging"]!] + fixture.online
            try fixture.repository.edit("staging", keys: stagingKeys, validity: 1, now: fixture.now.addingTimeInterval(-60)) {
                $0.targets = [:]
            }
            try fixture.release("cart.js", script: "var cart = 1;")
            let staging = try FileManager.default.contentsOfDirectory(atPath: fixture.transport.tree.appendingPathComponent("metadata").path)
                .filter { $0.hasSuffix(".staging.json") }
            for name in staging {
                let file = fixture.transport.tree.appendingPathComponent("metadata/\(name)")
                switch breakage {
                case "missing": try FileManager.default.removeItem(at: file)
                case "invalid": try Data("{\"signed\": 1}".utf8).write(to: file)
                default: break
                }
            }
            let client = try fixture.launch(RecordingApplier())
            let events = client.update()
            XCTAssertNil(events.refreshFailure, "\(breakage): \(events)")
            XCTAssertEqual(events.applied, ["production/cart.js"], breakage)
            XCTAssertFalse(fixture.transport.requests.contains { $0.hasSuffix(".staging.json") }, "\(breakage): staging was read")

            try fixture.revoke("cart.js")
            for name in try FileManager.default.contentsOfDirectory(atPath: fixture.transport.tree.appendingPathComponent("metadata").path)
                where name.hasSuffix(".staging.json") && breakage == "missing" {
                try FileManager.default.removeItem(at: fixture.transport.tree.appendingPathComponent("metadata/\(name)"))
            }
            XCTAssertEqual(client.update().reverted, ["production/cart.js": .withdrawn], breakage)
        }
    }

    /// Attack 1, the other side: when the device's own channel role expired the channel is
    /// frozen: the refresh is refused as stale and the channel's releases stop (item 3).
    func testAttack1_TheDevicesOwnExpiredChannelRoleIsAFreeze() throws {
        let fixture = try ChannelFixture(self)
        try fixture.release("cart.js", script: "var cart = 1;")
        // Production's role signed valid for two days, then not re-signed.
        try fixture.repository.edit("production", keys: [fixture.keys["production"]!] + fixture.online, validity: 2 * day,
                                    now: fixture.now) { _ in }
        try fixture.publish()
        let (client, applier, clock, config) = try clockedDevice(fixture)

        // Three days later; snapshot and timestamp are kept fresh (an upload to staging).
        clock.now = clock.now.addingTimeInterval(3 * day)
        fixture.now = clock.now
        try fixture.release("other.js", script: "var other = 1;", channel: "staging")
        let events = client.update()
        XCTAssertEqual(events.refreshFailure, .stale(.expired(role: "production")), "\(events)")
        XCTAssertEqual(events.reverted, ["production/cart.js": .stale])
        XCTAssertEqual(applier.live, [])
    }

    // MARK: 2. Root anchored to the shipped root

    /// An attacker's repository (their root, at a higher version, their keys, channel and script),
    /// laid out exactly as a device stores it.
    private func plantedState(_ test: XCTestCase) throws -> URL {
        let evil = try ChannelFixture(test)
        for _ in 0..<2 {
            try evil.repository.editRoot(keys: [evil.keys["root-1"]!, evil.keys["root-2"]!] + evil.online) { _ in }
        }
        try evil.release("cart.js", script: "stealCards()")
        var config = evil.configuration(deviceID: "evil")
        config.bundledRoot = try evil.repository.roots[2].serialized()
        XCTAssertEqual(try evil.launch(RecordingApplier(), config).update().applied, ["production/cart.js"])
        return config.stateDirectory
    }

    private func plant(_ folders: [String], from planted: URL, into state: URL) throws {
        for folder in folders {
            let target = state.appendingPathComponent(folder)
            try? FileManager.default.removeItem(at: target)
            try FileManager.default.copyItem(at: planted.appendingPathComponent(folder), to: target)
        }
    }

    /// Attack 2: whoever wrote the state folder once (a restored backup, a shared container)
    /// plants their own repository. The stored root does not chain from the shipped one: it is
    /// discarded and reported, the planted script never runs, the real release does; and a
    /// planted root of a higher version does not survive an app update shipping a newer root.
    func testAttack2_ARootPlantedInTheStateFolderIsDiscardedAndTheShippedRootUsed() throws {
        let fixture = try ChannelFixture(self)
        let config = try fixture.deviceRunningCart()
        let planted = try plantedState(self)

        try plant(["metadata", "verified", "targets"], from: planted, into: config.stateDirectory)
        let applier = RecordingApplier()
        let client = try fixture.launch(applier, config)
        let events = client.applyCached() + client.update()
        client.markLaunchSucceeded()
        XCTAssertEqual(events.discardedRoots.count, 1, "\(events)")
        XCTAssertTrue(events.discardedRoots.first?.contains("version 2 of the chain from the shipped version 1 is missing") == true, "\(events)")
        XCTAssertFalse(applier.sources.values.contains { $0.contains("stealCards") }, "\(events)")
        XCTAssertEqual(events.applied, ["production/cart.js"])

        // An app update ships root 2 (a real rotation); the planted root 3 is still refused.
        try fixture.repository.editRoot(keys: [fixture.keys["root-1"]!, fixture.keys["root-2"]!] + fixture.online) { _ in }
        try fixture.publish()
        try plant(["metadata", "verified", "targets"], from: planted, into: config.stateDirectory)
        var updated = config
        updated.bundledRoot = try fixture.repository.roots[1].serialized()
        let afterUpdate = RecordingApplier()
        let second = try fixture.launch(afterUpdate, updated)
        let later = second.applyCached() + second.update()
        XCTAssertEqual(later.discardedRoots.count, 1, "\(later)")
        XCTAssertFalse(afterUpdate.sources.values.contains { $0.contains("stealCards") }, "\(later)")
        XCTAssertEqual(later.applied, ["production/cart.js"])
    }

    /// Attack 2 through the last verified copy: a planted copy carrying its own root is checked
    /// against the anchored root, so nothing of it runs at launch.
    func testAttack2_AVerifiedCopyUnderAPlantedRootIsNotTrusted() throws {
        let fixture = try ChannelFixture(self)
        let config = try fixture.deviceRunningCart()
        let planted = try plantedState(self)
        try plant(["verified", "targets"], from: planted, into: config.stateDirectory)

        let applier = RecordingApplier()
        let events = try fixture.launch(applier, config).applyCached()
        XCTAssertEqual(applier.calls, [], "\(events)")
        XCTAssertTrue(events.contains { if case .storedMetadataUnusable = $0 { return true } else { return false } }, "\(events)")
    }

    /// Real rotations are kept across launches (the chain is stored as it is followed) and an
    /// app update shipping a root the stored one chains from keeps it; a stored root with a
    /// step of its chain damaged is discarded.
    func testRootsFollowedThroughRotationsAreKeptAndADamagedChainIsNot() throws {
        let fixture = try ChannelFixture(self)
        try fixture.release("cart.js", script: "var cart = 1;")
        for _ in 0..<2 {
            try fixture.repository.editRoot(keys: [fixture.keys["root-1"]!, fixture.keys["root-2"]!] + fixture.online) { _ in }
        }
        try fixture.publish()
        let config = fixture.configuration()
        let first = try fixture.launch(RecordingApplier(), config)
        XCTAssertEqual(first.update().applied, ["production/cart.js"])
        first.markLaunchSucceeded()
        let rootFile = config.stateDirectory.appendingPathComponent("metadata/root.json")
        XCTAssertEqual(try Metadata<Root>(data: Data(contentsOf: rootFile)).signed.common.version, 3)

        for shipped in [0, 1] {
            var launchConfig = config
            launchConfig.bundledRoot = try fixture.repository.roots[shipped].serialized()
            let client = try fixture.launch(RecordingApplier(), launchConfig)
            let events = client.applyCached()
            client.markLaunchSucceeded()
            XCTAssertEqual(events.discardedRoots, [], "shipped root \(shipped + 1)")
            XCTAssertEqual(events.applied, ["production/cart.js"])
            XCTAssertEqual(try Metadata<Root>(data: Data(contentsOf: rootFile)).signed.common.version, 3)
        }

        try Data("{}".utf8).write(to: config.stateDirectory.appendingPathComponent("metadata/root-history/2.root.json"))
        let events = try fixture.launch(RecordingApplier(), config).applyCached()
        XCTAssertEqual(events.discardedRoots.count, 1, "\(events)")
        XCTAssertEqual(try Metadata<Root>(data: Data(contentsOf: rootFile)).signed.common.version, 1)
    }

    /// State files are read as regular files only: FIFOs planted as metadata files read as
    /// absent (opening one used to wait for a writer forever: the refresh ran into its deadline,
    /// and a FIFO as the root hung the client's creation), and a symbolic link planted as the
    /// root is not followed.
    func testStateFilesAreReadAsRegularFilesOnly() throws {
        let fixture = try ChannelFixture(self)
        let config = try fixture.deviceRunningCart()
        let metadata = config.stateDirectory.appendingPathComponent("metadata")
        func plantFIFO(_ name: String) {
            try? FileManager.default.removeItem(at: metadata.appendingPathComponent(name))
            XCTAssertEqual(mkfifo(metadata.appendingPathComponent(name).path, 0o600), 0, name)
        }
        /// Runs a launch on another thread: a blocked open must fail the test, not hang it.
        func launch() -> [PatchClientEvent]? {
            let done = expectation(description: "launch and update return")
            let box = EventsBox()
            Thread.detachNewThread {
                if let client = try? fixture.launch(RecordingApplier(), config) {
                    box.events = client.applyCached() + client.update()
                    client.markLaunchSucceeded()
                }
                done.fulfill()
            }
            guard XCTWaiter.wait(for: [done], timeout: 60) == .completed else { return nil }
            return box.events
        }

        for name in ["timestamp.json", "snapshot.json", "production.json"] { plantFIFO(name) }
        guard let events = launch() else { return XCTFail("a planted FIFO blocked the launch") }
        XCTAssertNil(events.refreshFailure, "\(events)")
        XCTAssertEqual(events.applied, ["production/cart.js"], "\(events)")

        plantFIFO("root.json")
        guard let rootEvents = launch() else { return XCTFail("a FIFO planted as the root blocked the launch") }
        XCTAssertEqual(rootEvents.discardedRoots.count, 1, "\(rootEvents)")
        XCTAssertTrue(rootEvents.discardedRoots.first?.contains("not a regular file") == true, "\(rootEvents)")

        let planted = try plantedState(self)
        let root = metadata.appendingPathComponent("root.json")
        try FileManager.default.removeItem(at: root)
        try FileManager.default.createSymbolicLink(at: root, withDestinationURL: planted.appendingPathComponent("metadata/root.json"))
        let client = try fixture.launch(RecordingApplier(), config)
        let linkEvents = client.applyCached()
        client.markLaunchSucceeded()
        XCTAssertEqual(linkEvents.discardedRoots.count, 1, "\(linkEvents)")
        XCTAssertTrue(linkEvents.discardedRoots.first?.contains("unreadable") == true, "\(linkEvents)")
        let attributes = try FileManager.default.attributesOfItem(atPath: root.path)
        XCTAssertEqual(attributes[.type] as? FileAttributeType, .typeRegular)
    }

    // MARK: 3. Freezes bounded

    /// Attack 3: a network attacker keeps serving the metadata of before a revocation, its
    /// timestamp now expired. The refresh is refused as stale (not taken for an absent network):
    /// the revoked release stops at once, is reported, and does not come back at the next launch.
    func testAttack3_AFrozenMirrorStopsARevokedReleaseAtOnce() throws {
        let fixture = try ChannelFixture(self)
        try fixture.release("cart.js", script: "var cart = 1;")
        let (client, applier, clock, config) = try clockedDevice(fixture)
        let frozen = fixture.transport.tree
        try fixture.revoke("cart.js")

        fixture.transport.tree = frozen
        clock.now = clock.now.addingTimeInterval(day + 60)
        let events = client.update()
        XCTAssertEqual(events.refreshFailure, .stale(.expired(role: "timestamp")), "\(events)")
        XCTAssertEqual(events.reverted, ["production/cart.js": .stale])
        XCTAssertEqual(events.staleReasons.count, 1)
        XCTAssertEqual(applier.live, [])

        let next = RecordingApplier()
        let relaunched = try fixture.launch(next, config)
        XCTAssertEqual((relaunched.applyCached() + relaunched.update()).applied, [])
        XCTAssertEqual(next.calls, [])

        // The real repository again (re-signed since): refreshed, the revocation taken, nothing runs.
        fixture.now = clock.now
        try fixture.release("other.js", script: "var other = 1;", channel: "staging")
        let recovered = relaunched.update()
        XCTAssertNil(recovered.refreshFailure, "\(recovered)")
        XCTAssertEqual(recovered.applied, [])
    }

    /// Attack 3 with an older copy replayed (its timestamp older than the one held, not expired):
    /// refused as stale; the device keeps running what its own, still unexpired metadata shows,
    /// and stops the channel at the first refresh after that metadata expired.
    func testAttack3_AReplayedOlderCopyStopsTheChannelOnceWhatTheDeviceHoldsExpires() throws {
        let fixture = try ChannelFixture(self)
        try fixture.release("cart.js", script: "var cart = 1;")
        let older = fixture.transport.tree
        try fixture.release("cart-2.js", script: "var cart = 2;", version: 2)
        let (client, applier, clock, _) = try clockedDevice(fixture, taking: "production/cart-2.js")

        fixture.transport.tree = older
        let replayed = client.update()
        guard case .stale(.badVersion(role: "timestamp", _))? = replayed.refreshFailure else { return XCTFail("\(replayed)") }
        XCTAssertEqual(replayed.reverted, [:], "what the device holds is still fresh")
        XCTAssertEqual(client.liveReleases.map(\.reference.path), ["production/cart-2.js"])

        clock.now = clock.now.addingTimeInterval(day + 60)
        let expired = client.update()
        XCTAssertEqual(expired.reverted, ["production/cart-2.js": .stale], "\(expired)")
        XCTAssertEqual(applier.live, [])
    }

    /// Attack 3, offline: a device without the network keeps what it verified until the bound
    /// (`maxStaleness` past the earliest expiry of its metadata), then its releases stop, at a
    /// launch and in a running process alike.
    func testAttack3_AnOfflineDeviceKeepsItsReleasesUntilTheBoundThenStops() throws {
        let fixture = try ChannelFixture(self)
        try fixture.release("cart.js", script: "var cart = 1;")
        let start = Date()
        let clock = TestClock(start)
        var config = fixture.configuration()
        config.clock = clock.read
        XCTAssertEqual(try fixture.launch(RecordingApplier(), config).update().applied, ["production/cart.js"])
        fixture.transport.offline = true

        // Two days later (the timestamp expired a day ago): offline, not frozen; it keeps running.
        clock.now = start.addingTimeInterval(2 * day)
        let applier = RecordingApplier()
        let client = try fixture.launch(applier, config)
        let offline = client.applyCached() + client.update()
        XCTAssertEqual(offline.applied, ["production/cart.js"], "\(offline)")
        guard case .network = offline.refreshFailure else { return XCTFail("\(offline)") }
        XCTAssertEqual(offline.reverted, [:])

        // Past the bound (timestamp expiry + 3 days) in the same process: stopped.
        clock.now = start.addingTimeInterval(day + config.maxStaleness + 60)
        let past = client.update()
        XCTAssertEqual(past.reverted, ["production/cart.js": .stale], "\(past)")
        XCTAssertEqual(past.staleReasons.count, 1)
        XCTAssertEqual(applier.live, [])

        // And at the next launch nothing starts.
        let relaunched = RecordingApplier()
        let events = try fixture.launch(relaunched, config).applyCached()
        XCTAssertEqual(relaunched.calls, [], "\(events)")
        XCTAssertEqual(events.staleReasons.count, 1)
    }

    // MARK: 4. Lengths checked before arithmetic

    /// Attack 4: a release whose signed length is Int64.max (one channel key, the service signing
    /// snapshot and timestamp) trapped in the bounded reader at `update()` and at every launch
    /// after. Now it is refused as too large, the device keeps running and the next launch too.
    func testAttack4_ATargetLengthOfInt64MaxIsRefusedNotATrap() throws {
        let fixture = try ChannelFixture(self)
        try fixture.release("cart.js", script: "var cart = 1;")
        let release = PatchRelease(app: fixture.appID, patchID: "huge")
        try fixture.serveSignedEdit {
            $0.targets["production/huge.js"] = TargetFile(length: .max, hashes: ["sha256": String(repeating: "0", count: 64)], custom: release.custom)
        }
        let config = fixture.configuration()
        let client = try fixture.launch(RecordingApplier(), config)
        let events = client.update()
        XCTAssertEqual(events.applied, ["production/cart.js"], "\(events)")
        XCTAssertEqual(events.refusals["production/huge.js"], .targetTooLarge(path: "production/huge.js", length: .max))

        let relaunched = try fixture.launch(RecordingApplier(), config)
        XCTAssertEqual(relaunched.applyCached().applied, ["production/cart.js"])
    }
}

/// Events handed over from a helper thread.
private final class EventsBox: @unchecked Sendable {
    var events: [PatchClientEvent] = []
}
