import Foundation
import PatchFormat
import PatchRepository
@testable import PatchService
import PatchUpdater
import XCTest

/// A publisher (`Publisher`: its own record, offline keys) and the release service hosting its
/// repository (the online keys), with devices reading from the service over HTTP.
final class HostedRepositoryFixture {
    static let app = "com.example.shop"
    let publisher: Publisher
    let store: ReleaseStore
    let service: ReleaseService
    let running: RunningReleaseService

    var directory: URL { publisher.directory }
    var keys: [String: PatchFormat.SigningKey] { publisher.keys }
    var repository: Repository {
        get { publisher.repository }
        set { publisher.repository = newValue }
    }
    var online: [PatchFormat.SigningKey] { publisher.online }
    func channelKeys(_ channel: String) -> [PatchFormat.SigningKey] { publisher.channelKeys(channel) }

    init(_ test: XCTestCase, store: ReleaseStore, timestampExpiry: TimeInterval = 86_400, renewalCheckInterval: TimeInterval? = nil,
         configure: (inout ReleaseService.Configuration) -> Void = { _ in }) async throws {
        publisher = try Publisher(test)
        self.store = store
        var configuration = publisher.configuration(timestampExpiry: timestampExpiry)
        configuration.renewalCheckInterval = renewalCheckInterval
        configure(&configuration)
        service = ReleaseService(store: store, configuration: configuration)
        running = try await RunningReleaseService.start(service)
        try Updater.bootstrap(rootData: publisher.rootData, metadataDirectory: publisher.directory.appendingPathComponent("device"))
    }

    func stop() async { await running.stop() }

    var appURL: URL { running.baseURL.appendingPathComponent("apps/\(Self.app)") }

    /// `patchctl repo publish --to`: the publisher's record to the service.
    @discardableResult
    func upload() async throws -> String { try await publisher.upload(to: running.baseURL) }

    /// Releases `fix.js` (enabled, everyone) on `channel` and uploads.
    func releaseFix(_ channel: String = "production") async throws {
        try repository.release("fix.js", content: Data("fix()".utf8), release: PatchRelease(app: Self.app, patchID: "fix"),
                               channel: channel, keys: channelKeys(channel))
        try await upload()
    }

    /// Posts raw upload bytes; returns the status and the refusal's reason code.
    func post(_ upload: RepositoryUpload) async throws -> (status: Int, reason: String?) {
        try await PatchServiceTests.post(appURL, "upload", try upload.encoded())
    }

    /// One device refresh cycle against the service (a fresh `Updater`, persisted trust), its
    /// clock `clockOffset` seconds ahead, reading through `transport`.
    func device(_ name: String = "device", clockOffset: TimeInterval = 0, transport: Transport = HTTPTransport.shared) -> Updater {
        var configuration = UpdaterConfiguration(metadataDirectory: directory.appendingPathComponent(name),
                                                 metadataBaseURL: appURL.appendingPathComponent("metadata/"),
                                                 targetBaseURL: appURL.appendingPathComponent("targets/"))
        if clockOffset != 0 { configuration.clock = { Date().addingTimeInterval(clockOffset) } }
        return Updater(configuration: configuration, transport: transport)
    }

    /// The releases of `channel` a device sees after one refresh, by name.
    func deviceReleases(_ channel: String, device name: String = "device", clockOffset: TimeInterval = 0) async throws -> [String: PatchRelease] {
        let updater = device(name, clockOffset: clockOffset)
        try await updater.refresh()
        var out: [String: PatchRelease] = [:]
        for target in try await updater.targets(ofRole: channel) ?? [] {
            out[String(target.path.dropFirst(channel.count + 1))] = try PatchRelease(custom: target.file.custom)
        }
        return out
    }

    /// A compromised service (its online keys in the attacker's hands) serves `metadata` as
    /// channel `role`, under a new snapshot and timestamp, with `files` as target content.
    func serveForged(_ metadata: Metadata<Targets>, as role: String, files: [Data] = []) async throws {
        let loaded = try await HostedRepository.load(from: store)
        var state = try XCTUnwrap(loaded)
        let base = state.timestamp?.version
        state.delegated[role] = try HeldMetadata(metadata)
        let signed = try service.configuration.onlineKeys.sign(&state, newSnapshot: true, now: Date())
        var contents: [String: Data] = [:]
        for file in files { contents[HashCheck.digest("sha256", of: file)!] = file }
        let forged = StoredMetadata(role: role, version: metadata.signed.common.version, data: try metadata.serialized())
        let committed = try await store.commit(RepositoryCommit(metadata: [forged] + signed, targetFiles: contents, basedOnTimestamp: base))
        XCTAssertTrue(committed)
    }

    /// Asserts that a device refreshing now refuses channel `role` for its signatures.
    func assertDeviceRefusesSignatures(of role: String, file: StaticString = #filePath, line: UInt = #line) async throws {
        let updater = device()
        do {
            try await updater.refresh()
            let seen = try await updater.targets(ofRole: role)
            XCTFail("a device took \(role) (\(seen?.map(\.path) ?? []))", file: file, line: line)
        } catch let error as UpdaterError {
            guard case .unsigned(let refused, _) = error else { return XCTFail("\(error)", file: file, line: line) }
            XCTAssertEqual(refused, role, file: file, line: line)
        }
    }

    func timestampVersion() async throws -> Int64? { try await store.latestMetadata(role: "timestamp")?.version }
}
