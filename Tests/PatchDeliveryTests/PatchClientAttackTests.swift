import Foundation
import PatchDelivery
import PatchFormat
import PatchRepository
import PatchUpdater
import XCTest

/// Issue 19's numbered attacks that reach a device, each against `PatchClient` (the old
/// `ReleaseLoader` / `PatchLoader` let each of them through). Named after the attack's number.
final class PatchClientAttackTests: XCTestCase {
    private let day: TimeInterval = 86_400

    /// Attack 3: a mirror with no key serves a 180-day-old copy of the repository (from when a
    /// now-disabled release was enabled) to a fresh install and to a device that was offline.
    /// Freshness is on by default (the timestamp role expires after a day): refused, nothing runs.
    func testAttack3_StaleMetadataIsRefusedByDefault() throws {
        let fixture = try ChannelFixture(self)
        fixture.now = Date().addingTimeInterval(-180 * day)
        try fixture.release("cart.js", script: "var cart = 1;")
        let stale = fixture.transport.tree
        fixture.now = Date()
        try fixture.change("cart.js") { $0.enabled = false }
        let current = fixture.transport.tree

        fixture.transport.tree = stale
        let fresh = RecordingApplier()
        let events = try fixture.launch(fresh).update()
        XCTAssertEqual(events.refreshFailure, .stale(.expired(role: "timestamp")), "\(events)")
        XCTAssertEqual(fresh.calls, [])

        // A device that saw the release disabled, then was offline, then meets the mirror.
        fixture.transport.tree = current
        let config = fixture.configuration(deviceID: "returning")
        XCTAssertEqual(try fixture.launch(RecordingApplier(), config).update().applied, [])
        fixture.transport.tree = stale
        let returning = RecordingApplier()
        let client = try fixture.launch(returning, config)
        let later = client.applyCached() + client.update()
        XCTAssertNotNil(later.refreshFailure)
        XCTAssertEqual(returning.calls, [], "the disabled release must not run again")
    }

    /// Attack 4: damaging one state file must not lower the rollback floor. Each trusted role
    /// file is a floor of its own (timestamp: its version and snapshot's; snapshot: every role's
    /// version; the channel role: its version), so damaging any one of them, then serving an
    /// older (still unexpired) copy of the repository, is refused.
    func testAttack4_ADamagedStateFileCannotLowerTheFloor() throws {
        for damaged in ["timestamp.json", "snapshot.json", "production.json"] {
            let fixture = try ChannelFixture(self)
            try fixture.release("cart.js", script: "var cart = 1;")
            let older = fixture.transport.tree
            try fixture.change("cart.js") { $0.enabled = false }
            let config = fixture.configuration()
            XCTAssertEqual(try fixture.launch(RecordingApplier(), config).update().applied, [])

            let file = config.stateDirectory.appendingPathComponent("metadata/\(damaged)")
            XCTAssertTrue(FileManager.default.fileExists(atPath: file.path))
            try Data("{\"damaged".utf8).write(to: file)
            fixture.transport.tree = older
            let applier = RecordingApplier()
            let client = try fixture.launch(applier, config)
            let events = client.applyCached() + client.update()
            // A timestamp older than the one held is a stale answer; an older snapshot, a refusal.
            switch events.refreshFailure {
            case .metadata(.badVersion)?, .stale(.badVersion)?: break
            default: return XCTFail("\(damaged): \(events)")
            }
            XCTAssertEqual(applier.calls, [], "\(damaged) damaged: the older, enabled release was taken")
        }
    }

    /// Attack 5: a development key (the live QA loop's) in the root an app ships with, in a
    /// root the repository serves later, or on a channel's delegation is refused; and a channel
    /// that was delegated to one blocks nothing once it is rotated back to a release key.
    func testAttack5_ADevelopmentKeyInTheTrustStoreOrOnAChannelIsRefused() throws {
        let fixture = try ChannelFixture(self)
        try fixture.release("cart.js", script: "var cart = 1;")
        let applier = RecordingApplier()
        let client = try fixture.launch(applier)
        XCTAssertEqual(client.update().applied, ["production/cart.js"])

        // On the channel: a dev-key-signed channel role with another release. (Signed outside the
        // publisher's record, which refuses a development key in a release repository.)
        let developmentKey = try PatchFormat.SigningKey.generate(.ed25519).forDevelopment
        let dev = PatchRelease(app: fixture.appID, patchID: "dev")
        try fixture.serveSigned([
            ("targets", fixture.keys["targets"]!, { Self.delegateProduction(to: developmentKey, in: &$0) }),
            ("production", developmentKey, { $0.targets["production/dev.js"] = TargetFile(data: Data("dev()".utf8), custom: dev.custom) }),
        ])
        let refused = client.update()
        XCTAssertEqual(refused.refreshFailure, .developmentKey(role: "production"), "\(refused)")
        XCTAssertEqual(client.liveReleases.map(\.reference.path), ["production/cart.js"], "what ran keeps running, nothing new")

        // Rotated to a new release key (targets twice: past the version the mistake was served
        // under): the real channel is taken again, nothing blocked.
        let releaseKey = try PatchFormat.SigningKey.generate(.ed25519)
        for _ in 0..<2 {
            try fixture.repository.edit("targets", keys: [fixture.keys["targets"]!, releaseKey] + fixture.online) {
                Self.delegateProduction(to: releaseKey, in: &$0)
            }
        }
        fixture.keys["production"] = releaseKey
        try fixture.release("cart-2.js", script: "var cart = 2;", version: 2)
        XCTAssertEqual(client.update().applied, ["production/cart-2.js"])

        // In root: a development key for the timestamp role, served as root v2, then bundled.
        let devRoot = try fixture.serveRoot { $0.add(key: developmentKey.publicKey, to: "timestamp") }
        XCTAssertEqual(client.update().refreshFailure, .developmentKey(role: "timestamp"))
        var bundled = fixture.configuration(deviceID: "new-install")
        bundled.bundledRoot = devRoot
        XCTAssertThrowsError(try PatchClient(configuration: bundled, applier: RecordingApplier(), transport: fixture.transport)) {
            XCTAssertEqual($0 as? PatchClientError, .developmentKey(role: "timestamp"))
        }
    }

    /// The top-level targets role delegating production to `key` alone (a key rotation).
    private static func delegateProduction(to key: PatchFormat.SigningKey, in targets: inout Targets) {
        var delegations = targets.delegations!
        let index = delegations.roles!.firstIndex { $0.name == "production" }!
        delegations.roles![index].keyids = [key.keyID]
        delegations.keys[key.keyID] = key.publicKey
        targets.delegations = delegations
    }

    /// Attack 6: a silent server and launches killed while `update()` waits for it (the system's
    /// launch watchdog) must not disable a good release: such launches are not held against the
    /// releases they applied from the cache. A launch killed after the wait still counts.
    func testAttack6_ASilentServerAndKilledLaunchesDoNotDisableAGoodRelease() throws {
        let fixture = try ChannelFixture(self)
        try fixture.release("cart.js", script: "var cart = 1;")
        let first = try fixture.launch(RecordingApplier())
        XCTAssertEqual(first.update().applied, ["production/cart.js"])
        first.markLaunchSucceeded()

        fixture.transport.silent = true
        var stuck: [DispatchGroup] = []
        for launch in 0..<3 {
            let applier = RecordingApplier()
            let client = try fixture.launch(applier)
            XCTAssertEqual(client.applyCached().applied, ["production/cart.js"], "launch \(launch)")
            let requestsBefore = fixture.transport.requests.count
            let group = DispatchGroup()
            group.enter()
            Thread.detachNewThread {
                client.update()
                group.leave()
            }
            stuck.append(group)
            // The launch is killed while the request hangs: it never returns, never succeeds.
            let deadline = Date().addingTimeInterval(10)
            while fixture.transport.requests.count == requestsBefore, Date() < deadline { usleep(10_000) }
        }
        fixture.transport.silent = false
        let applier = RecordingApplier()
        let back = try fixture.launch(applier)
        let events = back.applyCached() + back.update()
        XCTAssertFalse(events.contains { if case .disabledByCrashLoop = $0 { return true } else { return false } }, "\(events)")
        XCTAssertEqual(back.liveReleases.map(\.reference.path), ["production/cart.js"])
        for group in stuck { _ = group.wait(timeout: .now() + 30) }
    }

    /// Attack 10: a channel role with the version the device already trusts and other content
    /// (a fork signed by the channel key) is not taken, also by a launch that only calls
    /// `update()` (no document held in memory): the version the device stored is the reference.
    func testAttack10_EqualVersionOtherContentIsRefusedOnUpdateOnlyLaunches() throws {
        let fixture = try ChannelFixture(self)
        let config = try fixture.deviceRunningCart()

        // The fork: the same channel version, signed by the channel key, listing another release.
        let channel = fixture.repository.channels["production"]!
        var forked = channel.signed
        let evil = Data("evil()".utf8)
        forked.targets["production/evil.js"] = TargetFile(data: evil, custom: PatchRelease(app: fixture.appID, patchID: "evil").custom)
        var metadata = try Metadata(signed: forked)
        try metadata.sign(with: fixture.keys["production"]!)
        let tree = fixture.transport.tree
        try metadata.serialized().write(to: tree.appendingPathComponent("metadata/\(forked.common.version).production.json"))
        try evil.write(to: tree.appendingPathComponent("targets/production/\(HashCheck.digest("sha256", of: evil)!).evil.js"))

        for launch in 0..<2 {
            let applier = RecordingApplier()
            let client = try fixture.launch(applier, config)
            let events = client.update()   // update() only
            client.markLaunchSucceeded()
            XCTAssertEqual(events.applied, ["production/cart.js"], "launch \(launch): \(events)")
            XCTAssertFalse(applier.appliedNames.contains { $0.contains("evil") })
        }
    }

    /// Attack 11: the device's state deleted or replaced consistently with an older copy: what
    /// the real, fresh repository says decides (v2 runs, v1 does not), and stale copies an
    /// attacker serves to the emptied device are refused.
    func testAttack11_DeletedOrReplacedStateCannotRollBack() throws {
        let fixture = try ChannelFixture(self)
        fixture.now = Date().addingTimeInterval(-2 * day)
        try fixture.release("cart-1.js", script: "v = 1", version: 1)
        let oldTree = fixture.transport.tree
        let config = fixture.configuration()
        let oldState = fixture.directory.appendingPathComponent("old-state")
        let old = try fixture.launch(RecordingApplier(), { var c = config; c.stateDirectory = oldState; c.clock = { fixture.now }; return c }())
        XCTAssertEqual(old.update().applied, ["production/cart-1.js"])
        fixture.now = Date()
        try fixture.revoke("cart-1.js")
        try fixture.release("cart-2.js", script: "v = 2", version: 2)
        XCTAssertEqual(try fixture.launch(RecordingApplier(), config).update().applied, ["production/cart-2.js"])

        // Deleted: served the old copy, the emptied device refuses it (expired); served the real one, v2.
        try FileManager.default.removeItem(at: config.stateDirectory)
        fixture.transport.tree = oldTree
        let emptied = RecordingApplier()
        XCTAssertEqual(try fixture.launch(emptied, config).update().refreshFailure, .stale(.expired(role: "timestamp")))
        XCTAssertEqual(emptied.calls, [])

        // Replaced consistently with the state of two days ago (metadata, last verified copy, v1's script).
        try FileManager.default.removeItem(at: config.stateDirectory)
        try FileManager.default.copyItem(at: oldState, to: config.stateDirectory)
        fixture.transport.tree = fixture.repositoryTree
        let replaced = RecordingApplier()
        let events = try fixture.launch(replaced, config).update()
        XCTAssertEqual(events.applied, ["production/cart-2.js"], "\(events)")
        XCTAssertFalse(replaced.appliedNames.contains { $0.contains("cart-1") })
    }

    /// Attack 13: an endless response (timestamp or target) is cut at its limit as bytes
    /// arrive, over the real HTTP transport; the device keeps running what it verified. (Peak
    /// memory of a launch against it is measured in a process of its own: EndlessResponseTests.)
    func testAttack13_AnEndlessResponseIsCutAtItsLimit() throws {
        let server = try HostileServer()
        defer { server.stop() }
        let fixture = try ChannelFixture(self)
        try fixture.release("cart.js", script: "var cart = 1;")
        let client = try fixture.launch(RecordingApplier())
        XCTAssertEqual(client.update().applied, ["production/cart.js"])

        fixture.transport.redirect("timestamp.json", to: server.baseURL.appendingPathComponent("endless"))
        let events = client.update()
        XCTAssertEqual(events.refreshFailure, .network(.tooLarge(url: server.baseURL.appendingPathComponent("endless").absoluteString, maxLength: 16_384)))
        XCTAssertLessThan(server.sent("/endless"), 16 << 20, "the client let go of the connection")
        XCTAssertEqual(client.liveReleases.map(\.reference.path), ["production/cart.js"])

        // An endless target: cut at the length its metadata lists.
        let targetFixture = try ChannelFixture(self)
        try targetFixture.release("big.js", script: String(repeating: "x", count: 100))
        targetFixture.transport.redirect("big.js", to: server.baseURL.appendingPathComponent("endless"))
        let applier = RecordingApplier()
        let refused = try targetFixture.launch(applier).update()
        guard case .target(_, .download(.tooLarge(_, 100)))? = refused.refusals["production/big.js"] else { return XCTFail("\(refused)") }
        XCTAssertEqual(applier.calls, [])
    }
}
