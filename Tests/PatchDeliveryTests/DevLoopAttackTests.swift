import Foundation
import PatchDelivery
import PatchFormat
import PatchRepository
import PatchDevServer
import PatchUpdater
import XCTest

/// The live QA loop attacked: what the development server (or someone between it and the
/// device) can serve, and which roots each side takes. The server here is the one `patchctl dev`
/// runs (`PatchServer` with its `DevChannel`), serving a real `DevelopmentRepository`, in process.
final class DevLoopAttackTests: XCTestCase {
    func testATamperedDevelopmentScriptIsRefusedAndTheLiveVersionStays() throws {
        let dev = try DevRepositoryHarness(self)
        let device = try dev.device("tamper")
        try dev.publish(["a.js": "var a = 1;\n"])
        XCTAssertEqual(try device.waitForApplied(), 1)

        try dev.publish(["a.js": "var a = 2;\n"], announce: false)
        // Whoever serves the files swaps the script (the metadata still names the real one).
        for file in try dev.servedTargets() where (try String(contentsOf: file, encoding: .utf8)) == "var a = 2;\n" {
            try Data("evil();   \n".utf8).write(to: file)
        }
        dev.announce(2)
        let refusal = try device.waitForRefusal()
        guard case .target(let path, let reason) = refusal else { return XCTFail("\(refusal)") }
        XCTAssertEqual(path, "development/a.js")
        XCTAssertTrue(reason.contains("hash") || reason.contains("sha256"), reason)
        XCTAssertEqual(device.session.liveDevelopmentVersion, 1)
        XCTAssertEqual(device.liveSources, ["var a = 1;\n"], "the tampered script never ran")
    }

    func testAReplayedOlderVersionIsRefusedAndTheLiveVersionStays() throws {
        let dev = try DevRepositoryHarness(self)
        let device = try dev.device("replay")
        try dev.publish(["a.js": "var a = 1;\n"])
        XCTAssertEqual(try device.waitForApplied(), 1)
        let versionOne = try dev.copyOfServedTree()
        try dev.publish(["a.js": "var a = 2;\n"])
        XCTAssertEqual(try device.waitForApplied(after: 1), 2)

        // The server goes back to the first version's metadata, validly signed and not expired.
        try dev.serve(versionOne)
        dev.announce(1)
        let refusal = try device.waitForRefusal()
        guard case .metadata(let why) = refusal else { return XCTFail("\(refusal)") }
        XCTAssertTrue(why.contains("timestamp"), why)
        XCTAssertEqual(device.session.liveDevelopmentVersion, 2)
        XCTAssertEqual(device.liveSources, ["var a = 2;\n"])
    }

    func testAnAnnouncedVersionTheMetadataDoesNotListIsRefused() throws {
        let dev = try DevRepositoryHarness(self)
        let device = try dev.device("liar")
        try dev.publish(["a.js": "var a = 1;\n"])
        XCTAssertEqual(try device.waitForApplied(), 1)
        // The stream carries only a number; the device believes only the verified metadata.
        dev.announce(7)
        XCTAssertEqual(try device.waitForRefusal(), .notListed(announced: 7, listed: 1))
        XCTAssertEqual(device.session.liveDevelopmentVersion, 1)
        try dev.channel.publish(event: DevelopmentSession.versionEvent, data: "7; rm -rf /")
        XCTAssertEqual(try device.waitForRefusal(count: 2), .malformedAnnouncement)
    }

    func testAnEndlessResponseOnTheDevelopmentRepositoryIsCutAtTheTimestampsLimit() throws {
        let dev = try DevRepositoryHarness(self)
        let hostile = try HostileServer()
        addTeardownBlock { hostile.stop() }
        // Between the device and the repository: timestamp.json never ends.
        let transport = RedirectingTransport { url in
            url.lastPathComponent == "timestamp.json" ? hostile.baseURL.appendingPathComponent("endless") : url
        }
        let device = try dev.device("endless", transport: transport)
        try dev.publish(["a.js": "var a = 1;\n"])
        let refusal = try device.waitForRefusal(timeout: 20)
        guard case .metadata(let why) = refusal else { return XCTFail("\(refusal)") }
        XCTAssertTrue(why.contains("more than 16384 bytes"), why)
        XCTAssertLessThan(hostile.sent("/endless"), 1 << 20, "the device stopped reading at the limit")
        XCTAssertNil(device.session.liveDevelopmentVersion)
    }

    func testTargetsWhoseLengthsOverflowTogetherAreRefusedNotACrash() throws {
        let dev = try DevRepositoryHarness(self)
        let device = try dev.device("huge")
        try dev.publish(["a.js": "var a = 1;\n"])
        XCTAssertEqual(try device.waitForApplied(), 1)
        // Validly signed (whoever holds the development keys): two scripts of Int64.max bytes
        // each. Their sum overflows; the device must refuse the version, not trap.
        var record = try Repository(directory: dev.folder.appendingPathComponent("repository"))
        let keys = try KeyFile.readAll(in: dev.folder.appendingPathComponent("keys"))
        let release = PatchRelease(app: "*", patchID: "dev", version: 2).custom
        let huge = TargetFile(length: .max, hashes: ["sha256": String(repeating: "ab", count: 32)], custom: release)
        try record.edit(DevelopmentRepository.channel, keys: keys) {
            $0.targets = ["development/a.js": huge, "development/b.js": huge]
        }
        try dev.writeMetadata(of: record)
        dev.announce(2)
        let refusal = try device.waitForRefusal()
        guard case .release(let why) = refusal else { return XCTFail("\(refusal)") }
        XCTAssertTrue(why.contains("more than \(device.session.configuration.maxPatchBytes)"), why)
        XCTAssertEqual(device.session.liveDevelopmentVersion, 1)
        XCTAssertEqual(device.liveSources, ["var a = 1;\n"])
    }

    /// The dev loop decides with the release rule devices on a release channel apply
    /// (`PatchRelease.exclusion`): a version whose release metadata is disabled, for other OS
    /// versions or for other models is refused with the reason (its copy of the rule ignored all
    /// three); one whose OS range and model list name this device is applied.
    func testTheDevLoopRefusesAVersionDisabledOrForAnotherOSOrModel() throws {
        let dev = try DevRepositoryHarness(self)
        let device = try dev.device("rule", profile: DeviceProfile(deviceID: "rule", osVersion: SemanticVersion(17, 4), model: "iPhone15,2"))
        try dev.publish(["a.js": "var a = 1;\n"])
        XCTAssertEqual(try device.waitForApplied(), 1)
        var record = try Repository(directory: dev.folder.appendingPathComponent("repository"))
        let keys = try KeyFile.readAll(in: dev.folder.appendingPathComponent("keys"))
        let steps: [(String, (inout PatchRelease) throws -> Void)] = [
            ("it is disabled", { $0.enabled = false }),
            ("it is for OS versions <16.0.0 (this device: 17.4.0)", { $0.enabled = true; $0.osVersions = try AppVersionRange(parsing: "<16") }),
            ("it is for models Pixel8 (this device: iPhone15,2)", { $0.osVersions = nil; $0.models = ["Pixel8"] }),
        ]
        for (index, (reason, change)) in steps.enumerated() {
            let version = index + 2
            try record.updateRelease("a.js", channel: DevelopmentRepository.channel, keys: keys) { release in
                release.version = version
                try change(&release)
            }
            try record.publish(to: dev.tree)
            dev.announce(version)
            let refusal = try device.waitForRefusal(count: index + 1)
            XCTAssertEqual(refusal, .release("version \(version) is not for this device: \(reason) (development/a.js)"))
            XCTAssertEqual(device.session.liveDevelopmentVersion, 1)
        }
        try record.revoke("a.js", channel: DevelopmentRepository.channel, keys: keys)
        try record.release("b.js", content: Data("var b = 1;\n".utf8),
                           release: PatchRelease(app: "*", patchID: "dev", version: 5, osVersions: try AppVersionRange(parsing: ">=17"),
                                                 models: ["iPhone15,2"]),
                           channel: DevelopmentRepository.channel, keys: keys)
        try record.publish(to: dev.tree)
        dev.announce(5)
        XCTAssertEqual(try device.waitForApplied(after: 1), 5)
        XCTAssertEqual(device.liveSources, ["var b = 1;\n"])
    }

    /// The announcement is only a hint: a newer version the verified metadata lists is applied even
    /// when a higher number was announced (a flood's announcement that arrives after a real save's
    /// merges with it into the higher one).
    func testANewerListedVersionIsAppliedWhateverHigherNumberWasAnnounced() throws {
        let dev = try DevRepositoryHarness(self)
        let device = try dev.device("merged")
        try dev.publish(["a.js": "var a = 1;\n"])
        XCTAssertEqual(try device.waitForApplied(), 1)
        try dev.publish(["a.js": "var a = 2;\n"], announce: false)
        dev.announce(9_999)
        XCTAssertEqual(try device.waitForApplied(after: 1), 2)
        XCTAssertEqual(device.liveSources, ["var a = 2;\n"])
    }

    func testAnAnnouncementFloodRefreshesAFewTimesASecondAndTheNextSaveStillApplies() throws {
        let dev = try DevRepositoryHarness(self)
        let refreshes = LockedBox(0)
        let transport = RedirectingTransport { url in
            if url.lastPathComponent == "timestamp.json" { refreshes.value += 1 }
            return url
        }
        let device = try dev.device("flood", transport: transport)
        try dev.publish(["a.js": "var a = 1;\n"])
        XCTAssertEqual(try device.waitForApplied(), 1)
        // A hostile server announces a new number every millisecond for two seconds.
        let before = refreshes.value
        let start = Date()
        var number = 1_000
        while Date().timeIntervalSince(start) < 2 {
            number += 1
            dev.announce(number)
            usleep(1_000)
        }
        let during = refreshes.value - before
        let interval = device.session.configuration.refreshIntervalAfterNoChange
        XCTAssertGreaterThan(during, 0)
        XCTAssertLessThanOrEqual(during, Int(2 / interval) + 2, "\(number - 1_000) announcements; refreshes are spaced by \(interval) s")
        // The flood left nothing behind: the next real save is applied.
        try dev.publish(["a.js": "var a = 2;\n"])
        XCTAssertEqual(try device.waitForApplied(after: 1), 2)
        XCTAssertEqual(device.liveSources, ["var a = 2;\n"])
    }

    func testAPingFloodIsAnsweredAFewTimesNotOncePerPing() throws {
        let dev = try DevRepositoryHarness(self)
        let device = try dev.device("pings")
        try dev.publish(["a.js": "var a = 1;\n"])
        XCTAssertEqual(try device.waitForApplied(), 1)
        // A hostile server (or anyone on the plain-HTTP stream) sends pings as fast as it can:
        // answering each with its own request would pile up requests on the device without end.
        let pings = 5_000
        for i in 0..<pings { _ = try dev.channel.publish(event: "ping", data: "flood-\(i)") }
        let end = Date().addingTimeInterval(30)
        while dev.pongs.value == 0, Date() < end { Thread.sleep(forTimeInterval: 0.05) }
        var answers = -1
        while dev.pongs.value != answers, Date() < end {   // until the answers stop
            answers = dev.pongs.value
            Thread.sleep(forTimeInterval: 0.5)
        }
        XCTAssertGreaterThan(answers, 0, "pings are still answered")
        XCTAssertLessThan(answers, pings / 10, "one answer at a time, with the latest nonce")
        try dev.publish(["a.js": "var a = 2;\n"])
        XCTAssertEqual(try device.waitForApplied(after: 1), 2)
    }

    func testAReleaseRootCannotOpenADevelopmentSession() throws {
        let folder = try makeTemporaryDirectory(self)
        let keys = try (0..<5).map { _ in try PatchFormat.SigningKey.generate(.ed25519) }
        let release = try Repository.create(directory: folder.appendingPathComponent("release"),
                                            settings: RepositorySettings(channels: ["production"]),
                                            keys: InitialKeys(root: [keys[0]], rootThreshold: 1, targets: [keys[1]], snapshot: keys[2],
                                                              timestamp: keys[3], channels: ["production": keys[4]]))
        let configuration = { (root: Data) in
            DevelopmentSession.Configuration(serverURL: URL(string: "http://127.0.0.1:9/")!, deviceName: "prod",
                                             developmentRoot: root, appID: "com.example.shop", appVersion: "1.4.0")
        }
        XCTAssertThrowsError(try DevelopmentSession(configuration: configuration(try release.root.serialized()), applier: RecordingApplier())) {
            XCTAssertEqual($0 as? DevelopmentSession.StartError, .notDevelopmentRoot(role: "root"))
        }
        // One release key among development keys is enough to refuse it.
        let dev = try DevRepositoryHarness(self)
        var mixed = dev.repository.repository.root.signed
        let timestampKey = try PatchFormat.SigningKey.generate(.ed25519)
        mixed.keys[timestampKey.keyID] = timestampKey.publicKey
        mixed.roles["timestamp"]!.keyids.append(timestampKey.keyID)
        XCTAssertThrowsError(try DevelopmentSession(configuration: configuration(try Metadata(signed: mixed).serialized()), applier: RecordingApplier())) {
            XCTAssertEqual($0 as? DevelopmentSession.StartError, .notDevelopmentRoot(role: "timestamp"))
        }
    }

    func testARootRotationThatTrustsAReleaseKeyIsRefusedMidSession() throws {
        let dev = try DevRepositoryHarness(self)
        let device = try dev.device("rotated")
        try dev.publish(["a.js": "var a = 1;\n"])
        XCTAssertEqual(try device.waitForApplied(), 1)
        // Root v2, validly signed by the development root key, adds a release key for timestamp.
        // (Signed here: the development repository's own edits refuse a release key.)
        let record = try Repository(directory: dev.folder.appendingPathComponent("repository"))
        let keys = try KeyFile.readAll(in: dev.folder.appendingPathComponent("keys"))
        let release = try PatchFormat.SigningKey.generate(.ed25519)
        var root = record.root.signed
        root.add(key: release.publicKey, to: "timestamp")
        root.common.version += 1
        var signed = try Metadata(signed: root)
        for key in keys where root.roles["root"]!.keyids.contains(key.keyID) { try signed.sign(with: key) }
        try signed.serialized().write(to: dev.tree.appendingPathComponent("metadata/\(root.common.version).root.json"))
        dev.announce(1)
        XCTAssertEqual(try device.waitForRefusal(), .releaseKey(role: "timestamp"))
        XCTAssertEqual(device.session.liveDevelopmentVersion, 1, "what ran keeps running")
    }

    func testAProductionPatchClientRefusesTheDevelopmentRoot() throws {
        let dev = try DevRepositoryHarness(self)
        let state = try makeTemporaryDirectory(self)
        let configuration = PatchClientConfiguration(
            metadataURL: URL(string: "https://patches.example.com/metadata/")!, targetsURL: URL(string: "https://patches.example.com/targets/")!,
            bundledRoot: try Data(contentsOf: dev.repository.rootFileURL), appID: "com.example.shop", appVersion: "1.4.0",
            channel: "production", device: DeviceProfile(deviceID: "d1"), stateDirectory: state)
        XCTAssertThrowsError(try PatchClient(configuration: configuration, applier: RecordingApplier())) {
            XCTAssertEqual($0 as? PatchClientError, .developmentKey(role: "root"))
        }
    }

    func testDevelopmentMetadataIsRenewedBeforeItExpiresAndTheRootFileFollowsTheRoot() throws {
        let dev = try DevRepositoryHarness(self)
        try dev.publish(["a.js": "var a = 1;\n"])
        var repository = dev.repository
        let before = repository.repository.timestamp.signed.common
        try repository.renewIfNeeded(now: Date().addingTimeInterval(3600))
        XCTAssertEqual(repository.repository.timestamp.signed.common, before, "fresh metadata is left alone")
        let later = Date().addingTimeInterval(7 * 3600)   // past half of the 12 hours
        try repository.renewIfNeeded(now: later)
        for expires in [repository.repository.timestamp.signed.common.expires, repository.repository.snapshot.signed.common.expires,
                        repository.repository.targets.signed.common.expires,
                        repository.repository.channels[DevelopmentRepository.channel]!.signed.common.expires] {
            XCTAssertEqual(expires.timeIntervalSince(later), DevelopmentRepository.shortExpiry, accuracy: 5)
        }
        XCTAssertEqual(repository.currentVersion, 1, "renewal publishes no new version")
        XCTAssertEqual(repository.repository.root.signed.common.version, 1)
        // Thirty days before the root expires it is renewed, and the file apps are given follows it.
        try repository.renewIfNeeded(now: Date().addingTimeInterval(DevelopmentRepository.rootExpiry - 20 * 86_400))
        XCTAssertEqual(repository.repository.root.signed.common.version, 2)
        XCTAssertEqual(try Metadata<Root>(data: Data(contentsOf: repository.rootFileURL)).signed.common.version, 2)
    }

    func testTheDevelopmentRepositoryKeysStayDevelopmentKeysWhenReopened() throws {
        let dev = try DevRepositoryHarness(self)
        try dev.publish(["a.js": "var a = 1;\n"])
        let reopened = try DevelopmentRepository.openOrCreate(in: dev.folder)
        XCTAssertFalse(reopened.created)
        XCTAssertEqual(reopened.repository.currentVersion, 1)
        XCTAssertNil(try Metadata<Root>(data: reopened.repository.rootData).signed.firstRoleTrustingReleaseKey)
        var again = reopened.repository
        XCTAssertEqual(try again.publish(scripts: [("a.js", Data("var a = 2;\n".utf8))], patchID: "dev", app: "*", appVersions: nil), 2)
    }
}

/// A development repository served by the QA server (`PatchServer` + `DevChannel`), in process.
final class DevRepositoryHarness {
    let folder: URL
    let served: URL
    var repository: DevelopmentRepository
    let channel: DevChannel
    let server: PatchServer
    /// Requests the server answered on `/_dev/pong`.
    let pongs = LockedBox(0)
    private let test: XCTestCase

    init(_ test: XCTestCase) throws {
        self.test = test
        let root = try makeTemporaryDirectory(test)
        folder = root.appendingPathComponent("keys")
        served = root.appendingPathComponent("served")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        repository = try DevelopmentRepository.openOrCreate(in: folder).repository
        channel = DevChannel(onReport: { _, _ in })
        let pongs = self.pongs
        server = PatchServer(directory: served, devChannel: channel, log: { line in
            if line.contains(DevelopmentSession.pongPath) { pongs.value += 1 }
        })
        _ = try server.start()
        let server = self.server
        test.addTeardownBlock { server.stop() }
    }

    var tree: URL { served.appendingPathComponent(DevelopmentSession.repositoryPath) }

    func publish(_ scripts: [String: String], announce: Bool = true) throws {
        let version = try repository.publish(scripts: scripts.sorted { $0.key < $1.key }.map { ($0.key, Data($0.value.utf8)) },
                                             patchID: "dev", app: "*", appVersions: nil)
        try repository.write(to: tree)
        if announce { self.announce(version) }
    }

    func announce(_ version: Int) {
        _ = try? channel.publish(event: DevelopmentSession.versionEvent, id: String(version), data: String(version))
    }

    /// Writes `record`'s current metadata into the served tree (what `Repository.publish(to:)`
    /// writes, without the scripts: for metadata listing scripts that exist nowhere).
    func writeMetadata(of record: Repository) throws {
        let metadata = tree.appendingPathComponent("metadata")
        let channel = record.channels[DevelopmentRepository.channel]!
        try channel.serialized().write(to: metadata.appendingPathComponent("\(channel.signed.common.version).\(DevelopmentRepository.channel).json"))
        try record.snapshot.serialized().write(to: metadata.appendingPathComponent("\(record.snapshot.signed.common.version).snapshot.json"))
        try record.timestamp.serialized().write(to: metadata.appendingPathComponent("timestamp.json"))
    }

    func servedTargets() throws -> [URL] {
        let folder = tree.appendingPathComponent("targets/development")
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).map { folder.appendingPathComponent($0) }
    }

    func copyOfServedTree() throws -> URL {
        let copy = served.deletingLastPathComponent().appendingPathComponent("copy-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: tree, to: copy)
        return copy
    }

    func serve(_ copy: URL) throws {
        try FileManager.default.removeItem(at: tree)
        try FileManager.default.copyItem(at: copy, to: tree)
    }

    func device(_ name: String, transport: Transport = HTTPTransport.shared, profile: DeviceProfile? = nil) throws -> DevDevice {
        try DevDevice(test, url: server.baseURL!, root: try Data(contentsOf: repository.rootFileURL), name: name, transport: transport,
                      profile: profile)
    }
}

/// A test app holding a development session with a recording applier on its own queue.
final class DevDevice {
    let session: DevelopmentSession
    let applier: QueuedApplier
    let events = LockedBox<[DevelopmentSession.Event]>([])

    init(_ test: XCTestCase, url: URL, root: Data, name: String, transport: Transport, profile: DeviceProfile? = nil) throws {
        let queue = DispatchQueue(label: "device.\(name)")
        var configuration = DevelopmentSession.Configuration(serverURL: url, deviceName: name, developmentRoot: root,
                                                             appID: "com.example.shop", appVersion: "1.4.0")
        configuration.queue = queue
        configuration.device = profile
        configuration.reconnectDelay = 0.05...0.5
        configuration.reportsEngineOutput = false
        applier = QueuedApplier(queue: queue, engine: false)
        let events = self.events
        session = try DevelopmentSession(configuration: configuration, applier: applier, transport: transport,
                                         onEvent: { events.value.append($0) })
        session.start()
        let session = self.session
        test.addTeardownBlock { session.stop() }
    }

    /// The sources of the scripts live now.
    var liveSources: [String] { applier.onQueue { recorder in recorder.live.compactMap { recorder.sources[$0] } } }

    func waitForApplied(after: Int = 0, timeout: TimeInterval = 10) throws -> Int {
        var found: Int?
        try waitFor("a version after \(after) applied", timeout: timeout) { events in
            found = events.compactMap { if case .applied(let v) = $0, v > after { return v } else { return nil } }.first
            return found != nil
        }
        return found!
    }

    func waitForRefusal(count: Int = 1, timeout: TimeInterval = 10) throws -> DevelopmentSession.Refusal {
        var found: DevelopmentSession.Refusal?
        try waitFor("refusal \(count)", timeout: timeout) { events in
            let refusals = events.compactMap { if case .refused(let r) = $0 { return r } else { return nil } }
            found = refusals.count >= count ? refusals[count - 1] : nil
            return found != nil
        }
        return found!
    }

    private func waitFor(_ what: String, timeout: TimeInterval, _ condition: ([DevelopmentSession.Event]) -> Bool) throws {
        try waitForEvents(events, what, timeout: timeout, condition)
    }
}

/// HTTP, with some URLs sent elsewhere (a hostile server standing in for one file).
struct RedirectingTransport: Transport {
    let redirect: @Sendable (URL) -> URL
    init(_ redirect: @escaping @Sendable (URL) -> URL) { self.redirect = redirect }
    func fetch(_ url: URL, maxLength: Int64, deadline: Date) async throws -> Data {
        try await HTTPTransport.shared.fetch(redirect(url), maxLength: maxLength, deadline: deadline)
    }
    // The session's reports and event stream go where they were addressed.
    func send(_ request: TransportRequest, maxLength: Int64, deadline: Date) async throws -> (status: Int, body: Data) {
        try await HTTPTransport.shared.send(request, maxLength: maxLength, deadline: deadline)
    }
    func stream(_ request: TransportRequest, silenceTimeout: TimeInterval, onOpen: @escaping @Sendable (Int) throws -> Void,
                onChunk: @escaping @Sendable (UnsafeRawBufferPointer) throws -> Void) async throws {
        try await HTTPTransport.shared.stream(request, silenceTimeout: silenceTimeout, onOpen: onOpen, onChunk: onChunk)
    }
}
