import Foundation
import HTTPTestSupport
import PatchDelivery
import PatchPublishing
import PatchService
import XCTest

/// Runs blocking work (URLSession-based clients, the device loader) on its own thread, so the
/// few cooperative threads stay free for the service under test.
func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

func temporaryDirectory(_ test: XCTestCase) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("patchservice-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url
}

/// A free TCP port on loopback (bound, read, released).
func freePort() throws -> Int {
    guard let (fd, port) = try? PortableSocket.bindLoopback(listen: nil) else { throw XCTSkip("cannot bind a loopback port") }
    PortableSocket.close(fd)
    return Int(port)
}

/// Runs a program, waiting at most `timeout`; returns its exit status and (the end of) its output.
/// `SpawnedProgram` rather than `Process`: Foundation's Process notices the exit through a
/// descriptor the child inherits, which a daemon it starts (pg_ctl's postgres) keeps open.
@discardableResult
func runProgram(_ arguments: [String], timeout: TimeInterval = 60) throws -> (status: Int32, output: String) {
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("run-\(UUID().uuidString).log")
    defer { try? FileManager.default.removeItem(at: output) }
    let exit = try SpawnedProgram(arguments, output: output.path).wait(timeout: timeout)
    let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
    return (exit.status, String(text.suffix(4000)))
}

/// A throwaway PostgreSQL server: initdb into a temporary directory, pg_ctl start on a free
/// port (as the `postgres` user when the tests run as root), stopped in teardown.
final class PostgresInstance {
    let port: Int
    let user = "patch"
    private let dataDirectory: URL
    private let bin: String
    private let asUser: [String]

    static func binDirectory() -> String? {
        let candidates = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql"))?.sorted(by: >) ?? []
        return candidates.map { "/usr/lib/postgresql/\($0)/bin" }.first { FileManager.default.isExecutableFile(atPath: "\($0)/pg_ctl") }
    }

    init(_ test: XCTestCase) throws {
        guard let bin = Self.binDirectory() else { throw XCTSkip("PostgreSQL server binaries are not installed (make deps installs them)") }
        self.bin = bin
        let root = try temporaryDirectory(test)
        dataDirectory = root.appendingPathComponent("data")
        port = try freePort()
        if getuid() == 0 {
            // initdb refuses to run as root: the cluster belongs to the postgres user.
            try FileManager.default.setAttributes([.ownerAccountName: "postgres", .posixPermissions: 0o700], ofItemAtPath: root.path)
            asUser = ["/usr/sbin/runuser", "-u", "postgres", "--"]
        } else {
            asUser = []
        }
        let initdb = try runProgram(asUser + ["\(bin)/initdb", "-D", dataDirectory.path, "-U", user, "--auth=trust", "-E", "UTF8", "--no-sync"])
        guard initdb.status == 0 else { throw Failure(text: "initdb failed: \(initdb.output)") }
        let options = "-p \(port) -k \(root.path) -c listen_addresses=127.0.0.1 -c fsync=off"
        let start = try runProgram(asUser + ["\(bin)/pg_ctl", "-D", dataDirectory.path, "-o", options, "-l", root.appendingPathComponent("log").path, "-w", "-t", "60", "start"], timeout: 90)
        guard start.status == 0 else { throw Failure(text: "pg_ctl start failed: \(start.output)") }
        let stop = asUser + ["\(bin)/pg_ctl", "-D", dataDirectory.path, "-m", "immediate", "-w", "-t", "30", "stop"]
        test.addTeardownBlock { _ = try? runProgram(stop) }
    }

    func open() async throws -> PostgresReleaseStore {
        try await PostgresReleaseStore.open(host: "127.0.0.1", port: port, username: user, password: nil, database: "postgres")
    }

    struct Failure: Error, CustomStringConvertible { var text: String; var description: String { text } }
}

/// Keys and signed content for one app: a release key (signs patches and channels) and a
/// publisher key (signs requests), apart as in production.
struct Publisher {
    let appID = "com.example.shop"
    let releaseKey = SigningKey.generate(id: "release-1")
    let publisherKey = SigningKey.generate(id: "publisher-1")

    var configuration: ReleaseService.Configuration {
        ReleaseService.Configuration(appID: appID, releaseKeys: TrustStore(keys: [releaseKey.trustedKey]),
                                     publisherKeys: TrustStore(keys: [publisherKey.trustedKey]))
    }

    /// One creation time for every patch the tests sign: signing version 2 again (for a second
    /// channel) must give the same file, or the service rightly refuses it under the same path.
    static let created = Date()

    func patch(_ version: Int, id: String = "shop-fixes") throws -> SignedPatch {
        try PatchSigner(key: releaseKey).sign(patchID: id, version: version, appID: appID, created: Self.created,
                                              scripts: [("fix.js", "// \(id) v\(version)\nvar fixed = \(version);\n")])
    }

    func client(_ url: URL) -> PublisherClient {
        let c = PublisherClient(baseURL: url, publisherKey: publisherKey)
        c.timeout = 15
        return c
    }

    /// Uploads patch `version` and adds it as release `fix-<version>` to `channel` at `rollout`.
    @discardableResult
    func release(_ version: Int, to channel: String, rollout: Int = ReleaseChannel.fullRollout, via url: URL) async throws -> ReleaseChannel.Release {
        let patch = try self.patch(version)
        let client = self.client(url)
        let releaseKey = self.releaseKey, appID = self.appID
        return try await blocking {
            let uploaded = try client.uploadPatch(patch.fileData())
            let release = ReleaseChannel.Release(releaseID: "fix-\(version)", patchID: patch.manifest.patchID, version: version,
                                                 digest: uploaded.digest, file: uploaded.path, rollout: rollout)
            try client.edit(channel: channel, appID: appID, .release(release), releaseKey: releaseKey)
            return release
        }
    }
}

/// Records scripts like the engine would (the device side of these tests).
final class DeviceApplier: PatchApplying, @unchecked Sendable {
    private(set) var live: [String] = []
    func apply(script: String, name: String, bundle: [String: String]) throws { live.append(name) }
    func revert(name: String) throws { live.removeAll { $0 == name } }
}
