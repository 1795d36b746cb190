import Crypto
import Foundation
import PatchDelivery
import PatchServer
import XCTest

/// A fresh temporary directory, removed by `tearDown` of the test that made it.
func makeTemporaryDirectory(_ test: XCTestCase) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("patchdelivery-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url
}

/// Records every script the loader hands over, in order, and behaves like the engine:
/// a script containing `throw` fails (and leaves nothing applied), reverting an unknown name fails.
final class RecordingApplier: PatchApplying {
    enum Call: Equatable {
        case apply(String)
        case revert(String)
    }

    private(set) var calls: [Call] = []
    private(set) var live: [String] = []
    private(set) var sources: [String: String] = [:]

    private(set) var bundles: [String: [String: String]] = [:]

    func apply(script: String, name: String, bundle: [String: String]) throws {
        calls.append(.apply(name))
        bundles[name] = bundle
        if script.contains("throw") {
            throw RecordedFailure(message: "\(name): script threw")
        }
        live.append(name)
        sources[name] = script
    }

    func revert(name: String) throws {
        calls.append(.revert(name))
        guard let i = live.firstIndex(of: name) else { throw RecordedFailure(message: "\(name) is not applied") }
        live.remove(at: i)
    }

    var appliedNames: [String] { calls.compactMap { if case .apply(let n) = $0 { return n } else { return nil } } }

    struct RecordedFailure: Error, CustomStringConvertible { var message: String; var description: String { message } }
}

/// Keys, a served directory of patches, and a state directory: one device and one patch server.
final class DeliveryFixture {
    let root: URL
    let served: URL
    let stateDirectory: URL
    let key: SigningKey
    let server: PatchServer
    let appID = "com.example.shop"
    let appVersion = "1.4.0"

    init(_ test: XCTestCase, startServer: Bool = true) throws {
        root = try makeTemporaryDirectory(test)
        served = root.appendingPathComponent("served")
        stateDirectory = root.appendingPathComponent("device")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        key = SigningKey.generate(id: "release-1")
        server = PatchServer(directory: served, log: nil)
        if startServer { try server.start() }
        let server = self.server
        test.addTeardownBlock { server.stop(gracePeriod: 0.1) }
    }

    var baseURL: URL { server.baseURL ?? URL(string: "http://127.0.0.1:9/")! }

    var trustStore: TrustStore { TrustStore(keys: [key.trustedKey]) }

    /// A signed patch with one script per (name, source); defaults fit the fixture's app.
    func patch(id: String = "shop-fixes", version: Int, scripts: [(name: String, source: String)]? = nil,
               appID: String? = nil, range: String = ">=1.0.0 <2.0.0", created: Date = Date(), expires: Date? = nil,
               key: SigningKey? = nil) throws -> SignedPatch {
        try PatchSigner(key: key ?? self.key).sign(
            patchID: id, version: version, appID: appID ?? self.appID, appVersions: try AppVersionRange(parsing: range),
            created: created, expires: expires,
            scripts: scripts ?? [("fix.js", "// \(id) v\(version)\nvar fixed = \(version);\n")])
    }

    /// Puts a patch (or any bytes) on the server as `file`.
    func serve(_ patch: SignedPatch, as file: String = "patch.json") throws {
        try serve(patch.fileData(), as: file)
    }

    func serve(_ data: Data, as file: String) throws {
        let url = served.appendingPathComponent(file)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
    }

    func serveRevocations(_ entries: [RevocationList.Entry], sequence: Int = 1, issued: Date = Date(), expires: Date? = nil,
                          key: SigningKey? = nil) throws {
        let list = RevocationList(sequence: sequence, issued: issued, expires: expires, keyID: "", entries: entries)
        try serve(try PatchSigner(key: key ?? self.key).sign(list).fileData(), as: "revocations.json")
    }

    /// Requests the server answered for `path`, as (status, sent If-None-Match?) pairs.
    func requests(_ path: String) -> [PatchServer.Request] {
        server.requests.filter { $0.path == path }
    }
}

/// SHA-256 hex computed independently of the library.
func sha256Hex(_ text: String) -> String {
    SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
}

/// A value handed between threads in tests.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
