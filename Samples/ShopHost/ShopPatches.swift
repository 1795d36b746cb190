import Foundation
import PatchDelivery
import PatchFormat

/// The shop's patch set-up: the releases of one channel of the app's TUF repository, taken
/// through `PatchClient` from the root metadata the app ships with, cached in the device's
/// state directory.
final class ShopPatches {
    /// A start-up problem the app reports before exiting (a user error, not a crash).
    struct SetupError: Error, CustomStringConvertible {
        var description: String
    }

    private let client: PatchClient?
    private let online: Bool

    /// Without a root, patches are off (the app runs as shipped). Without a repository, only
    /// what was verified and cached before applies.
    init(repository: String?, rootFile: String?, channel: String, stateDirectory: String, allowHTTP: Bool,
         appVersion: String, timeout: TimeInterval) throws {
        var base = URL(string: "https://offline.invalid/")!
        online = repository != nil
        if let repository {
            var text = repository
            if !text.hasSuffix("/") { text += "/" }  // so metadata/ and targets/ resolve under it
            guard let url = URL(string: text), url.host != nil else {
                throw SetupError(description: "--repository '\(repository)' is not a URL like http://127.0.0.1:8080/")
            }
            base = url
        }
        guard let rootFile else {
            print("patches: off (no --root)")
            client = nil
            return
        }
        let root: Data
        do { root = try Data(contentsOf: URL(fileURLWithPath: rootFile)) } catch {
            throw SetupError(description: "cannot read root \(rootFile): \((error as NSError).localizedDescription)")
        }
        let state = URL(fileURLWithPath: stateDirectory)
        var configuration = PatchClientConfiguration(
            metadataURL: base.appendingPathComponent("metadata/"), targetsURL: base.appendingPathComponent("targets/"),
            bundledRoot: root, appID: Shop.appID, appVersion: appVersion, channel: channel,
            device: DeviceProfile(deviceID: try Self.installID(in: state), osVersion: SemanticVersion(17, 4), model: "iPhone15,2"),
            stateDirectory: state)
        configuration.allowsInsecureHTTP = allowHTTP
        configuration.downloadTimeout = timeout
        configuration.updateDeadline = timeout * 4
        do {
            client = try PatchClient(configuration: configuration, onEvent: { event in print("patch: \(event)") })
        } catch {
            throw SetupError(description: "\(error)")
        }
        print("patches: channel \(channel) from \(online ? base.absoluteString : "(offline)"); state in \(stateDirectory)")
    }

    /// This install's random id (the rollout bucket is derived from it), kept in the state folder.
    private static func installID(in state: URL) throws -> String {
        let file = state.appendingPathComponent("install-id")
        if let data = try? Data(contentsOf: file), let text = String(data: data, encoding: .utf8), !text.isEmpty, text.count <= 64 {
            return text
        }
        let id = UUID().uuidString
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        try Data(id.utf8).write(to: file, options: .atomic)
        return id
    }

    /// At launch, before or without the network.
    func applyCachedPatches() {
        guard let client else { return }
        print("== launch: cached releases ==")
        if client.applyCached().isEmpty { print("patch: nothing cached") }
        print("live patches: \(liveSummary)")
    }

    /// Fresh metadata, downloads, applies and reverts (nothing when offline).
    func update() {
        guard let client else { return }
        guard online else {
            print("== update: offline (no --repository) ==")
            return
        }
        print("== update: \(client.configuration.metadataURL.deletingLastPathComponent().absoluteString) ==")
        client.update()
        print("live patches: \(liveSummary)")
    }

    func markLaunchSucceeded() {
        client?.markLaunchSucceeded()
    }

    /// "shop-fixes v1", or "none".
    var liveSummary: String {
        guard let client, !client.liveReleases.isEmpty else { return "none" }
        return client.liveReleases.map { "\($0.reference.patchID) v\($0.reference.version)" }.joined(separator: ", ")
    }
}
