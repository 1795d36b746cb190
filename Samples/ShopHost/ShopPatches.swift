import Foundation
import PatchDelivery

/// The shop's patch set-up: one signed patch file and the revocation list on the patch server,
/// checked with the trusted keys, cached in the device's state directory.
final class ShopPatches {
    static let patchFile = "shop-fixes.json"
    /// The patch id the shop's patch file must carry.
    static let patchID = "shop-fixes"
    static let revocationListFile = "revocations.json"

    /// A start-up problem the app reports before exiting (a user error, not a crash).
    struct SetupError: Error, CustomStringConvertible {
        var description: String
    }

    private let loader: PatchLoader?
    private let serverURL: URL?

    /// Without public keys, patches are off (the app runs as shipped). Without a server, only
    /// cached patches apply.
    init(server: String?, publicKeys: [String], stateDirectory: String, allowHTTP: Bool,
         appVersion: String, timeout: TimeInterval) throws {
        if let server {
            var text = server
            if !text.hasSuffix("/") { text += "/" }  // so the file names resolve under it
            guard let url = URL(string: text), url.host != nil else {
                throw SetupError(description: "--server '\(server)' is not a URL like http://127.0.0.1:8080/")
            }
            serverURL = url
        } else {
            serverURL = nil
        }
        guard !publicKeys.isEmpty else {
            print("patches: off (no --public-key)")
            loader = nil
            return
        }
        var keys: [TrustedKey] = []
        for path in publicKeys {
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
                throw SetupError(description: "cannot read public key \(path): \((error as NSError).localizedDescription)")
            }
            do { keys.append(try TrustedKey(fileData: data)) } catch {
                throw SetupError(description: "public key \(path): \(error)")
            }
        }
        var configuration = PatchLoader.Configuration(
            // Offline: a base URL that is never fetched, since update() is not called.
            baseURL: serverURL ?? URL(string: "https://offline.invalid/")!,
            appID: Shop.appID, appVersion: appVersion,
            trustStore: TrustStore(keys: keys),
            stateDirectory: URL(fileURLWithPath: stateDirectory),
            patchFiles: [.init(Self.patchFile, patchID: Self.patchID)], revocationListFile: Self.revocationListFile)
        configuration.allowsInsecureHTTP = allowHTTP
        configuration.timeout = timeout
        do {
            loader = try PatchLoader(configuration: configuration, onEvent: { event in print("patch: \(event)") })
        } catch {
            throw SetupError(description: "\(error)")
        }
        print("patches: trusting \(keys.map(\.id).joined(separator: ", ")); state in \(stateDirectory)")
    }

    /// At launch, before or without the network.
    func applyCachedPatches() {
        guard let loader else { return }
        print("== launch: cached patches ==")
        if loader.applyCachedPatches().isEmpty { print("patch: nothing cached") }
        print("live patches: \(liveSummary)")
    }

    /// Downloads and applies newer patches and the revocation list (nothing when offline).
    func update() {
        guard let loader else { return }
        guard let serverURL else {
            print("== update: offline (no --server) ==")
            return
        }
        print("== update: \(serverURL.absoluteString) ==")
        loader.update()
        print("live patches: \(liveSummary)")
    }

    func markLaunchSucceeded() {
        loader?.markLaunchSucceeded()
    }

    /// "shop-fixes v1", or "none".
    var liveSummary: String {
        guard let loader, !loader.livePatches.isEmpty else { return "none" }
        return loader.livePatches.map { "\($0.patchID) v\($0.version)" }.joined(separator: ", ")
    }
}
