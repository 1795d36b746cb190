import Foundation
import HTTPTestSupport
import PatchFormat
import PatchRepository
import PatchService
import PatchUpdater
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

/// A publisher with its own TUF repository record (offline root, targets and channel keys) and
/// the configuration of a release service hosting it (the online snapshot and timestamp keys).
final class Publisher: @unchecked Sendable {
    let appID = "com.example.shop"
    let directory: URL
    var keys: [String: PatchFormat.SigningKey] = [:]
    var repository: Repository

    init(_ test: XCTestCase) throws {
        directory = try temporaryDirectory(test)
        for name in ["root-1", "root-2", "root-3", "targets", "snapshot", "timestamp", "staging", "production"] {
            keys[name] = try PatchFormat.SigningKey.generate(.ed25519)
        }
        let initial = InitialKeys(root: [keys["root-1"]!, keys["root-2"]!, keys["root-3"]!], rootThreshold: 2,
                                  targets: [keys["targets"]!], snapshot: keys["snapshot"]!, timestamp: keys["timestamp"]!,
                                  channels: ["staging": keys["staging"]!, "production": keys["production"]!])
        repository = try Repository.create(directory: directory.appendingPathComponent("publisher"),
                                           settings: RepositorySettings(channels: ["staging", "production"]), keys: initial)
    }

    var online: [PatchFormat.SigningKey] { [keys["snapshot"]!, keys["timestamp"]!] }
    /// Keys a channel edit is signed with (the record also re-signs its own snapshot and timestamp).
    func channelKeys(_ channel: String) -> [PatchFormat.SigningKey] { [keys[channel]!] + online }

    var rootData: Data { try! repository.roots[0].serialized() }

    /// A service configuration hosting this repository.
    func configuration(timestampExpiry: TimeInterval = 86_400) -> ReleaseService.Configuration {
        ReleaseService.Configuration(appID: appID, trustedRoot: rootData, onlineKeys: OnlineKeys(keys: online, timestampExpiry: timestampExpiry))
    }

    static func script(_ version: Int) -> Data { Data("// shop-fixes v\(version)\nvar fixed = \(version);\n".utf8) }

    /// Releases patch `version` as `fix-<version>` on `channel` at `rollout` (hundredths of a
    /// percent) and uploads the record to the service at `url`.
    func release(_ version: Int, to channel: String, rollout: Int = PatchRelease.maxRollout, via url: URL) async throws {
        try repository.release("fix-\(version)", content: Self.script(version),
                               release: PatchRelease(app: appID, patchID: "shop-fixes", version: version, rollout: rollout),
                               channel: channel, keys: channelKeys(channel))
        try await upload(to: url)
    }

    @discardableResult
    func upload(to url: URL) async throws -> String { try await repository.upload(to: url, app: appID, timeout: 30) }

    /// The service's `/api/status`.
    func status(_ url: URL) async throws -> [PatchService.ChannelStatus] {
        let data = try await HTTPTransport.shared.fetch(url.appendingPathComponent("api/status"), maxLength: 1 << 20, deadline: Date().addingTimeInterval(30))
        return try JSONDecoder().decode([PatchService.ChannelStatus].self, from: data)
    }

    /// Writes the files `patchserver` starts from: the trusted root and the online key files.
    func serviceFiles(in directory: URL) throws -> (root: String, onlineKeys: [String]) {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let root = directory.appendingPathComponent("1.root.json")
        try rootData.write(to: root)
        let keyFiles = try ["snapshot", "timestamp"].map { name -> String in
            let file = directory.appendingPathComponent("\(name).key")
            try KeyFile.write(keys[name]!, to: file)
            return file.path
        }
        return (root.path, keyFiles)
    }
}

/// POSTs `body` to `path` of the service; the status and the answer's `reason`.
func post(_ base: URL, _ path: String, _ body: Data) async throws -> (status: Int, reason: String?) {
    let (status, answer) = try await HTTPTransport.shared.post(base.appendingPathComponent(path), body: body, deadline: Date().addingTimeInterval(30))
    return (status, (try? JSONDecoder().decode([String: String].self, from: answer))?["reason"])
}
