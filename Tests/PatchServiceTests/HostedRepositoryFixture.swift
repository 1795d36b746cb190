import Foundation
import PatchDelivery
import PatchFormat
import PatchRepository
@testable import PatchService
import PatchUpdater
import XCTest

/// A publisher's TUF repository (its own record, offline keys) and the release service hosting it
/// (the online snapshot and timestamp keys), with devices reading from the service over HTTP.
final class HostedRepositoryFixture {
    static let app = "com.example.shop"
    let directory: URL
    var keys: [String: PatchFormat.SigningKey] = [:]
    var repository: Repository
    let store: ReleaseStore
    let service: ReleaseService
    let running: RunningReleaseService

    var online: [PatchFormat.SigningKey] { [keys["snapshot"]!, keys["timestamp"]!] }
    /// Keys the publisher signs channel edits with (its record also re-signs its own snapshot).
    func channelKeys(_ channel: String) -> [PatchFormat.SigningKey] { [keys[channel]!] + online }

    init(_ test: XCTestCase, store: ReleaseStore, timestampExpiry: TimeInterval = 86_400, renewalCheckInterval: TimeInterval? = nil) async throws {
        directory = try temporaryDirectory(test)
        for name in ["root-1", "root-2", "root-3", "targets", "snapshot", "timestamp", "staging", "production"] {
            keys[name] = try PatchFormat.SigningKey.generate(.ed25519)
        }
        let initial = InitialKeys(root: [keys["root-1"]!, keys["root-2"]!, keys["root-3"]!], rootThreshold: 2,
                                  targets: [keys["targets"]!], snapshot: keys["snapshot"]!, timestamp: keys["timestamp"]!,
                                  channels: ["staging": keys["staging"]!, "production": keys["production"]!])
        repository = try Repository.create(directory: directory.appendingPathComponent("publisher"),
                                           settings: RepositorySettings(channels: ["staging", "production"]), keys: initial)
        self.store = store
        var configuration = ReleaseService.Configuration(appID: Self.app, releaseKeys: TrustStore(keys: []), publisherKeys: TrustStore(keys: []))
        configuration.trustedRoot = try repository.roots[0].serialized()
        configuration.onlineKeys = OnlineKeys(keys: [keys["snapshot"]!, keys["timestamp"]!], timestampExpiry: timestampExpiry)
        configuration.renewalCheckInterval = renewalCheckInterval
        service = ReleaseService(store: store, configuration: configuration)
        running = try await RunningReleaseService.start(service)
        try Updater.bootstrap(rootData: repository.roots[0].serialized(), metadataDirectory: directory.appendingPathComponent("device"))
    }

    func stop() async { await running.stop() }

    var appURL: URL { running.baseURL.appendingPathComponent("apps/\(Self.app)") }

    /// `patchctl repo publish --to`: the publisher's record to the service.
    @discardableResult
    func upload() async throws -> String { try await repository.upload(to: running.baseURL, app: Self.app, timeout: 30) }

    /// Posts raw upload bytes; returns the status and the refusal's reason code.
    func post(_ upload: RepositoryUpload) async throws -> (status: Int, reason: String?) {
        let (status, body) = try await HTTPTransport.shared.post(appURL.appendingPathComponent("upload"), body: try upload.encoded(),
                                                                 deadline: Date().addingTimeInterval(30))
        let reason = (try? JSONValue.parse(body))?.objectValue?["reason"]?.stringValue
        return (status, reason)
    }

    /// One device refresh cycle against the service (a fresh `Updater`, persisted trust).
    func device(_ name: String = "device") -> Updater {
        Updater(configuration: UpdaterConfiguration(metadataDirectory: directory.appendingPathComponent(name),
                                                    metadataBaseURL: appURL.appendingPathComponent("metadata/"),
                                                    targetBaseURL: appURL.appendingPathComponent("targets/")))
    }

    /// The releases of `channel` a device sees after one refresh, by name.
    func deviceReleases(_ channel: String) async throws -> [String: PatchRelease] {
        let updater = device()
        try await updater.refresh()
        var out: [String: PatchRelease] = [:]
        for target in try await updater.targets(ofRole: channel) ?? [] {
            out[String(target.path.dropFirst(channel.count + 1))] = try PatchRelease(custom: target.file.custom)
        }
        return out
    }

    func timestampVersion() async throws -> Int64? { try await store.latestMetadata(role: "timestamp")?.version }
}
