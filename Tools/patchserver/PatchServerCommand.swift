import ArgumentParser
import Foundation
import Logging
import PatchDelivery
import PatchFormat
import PatchService

/// `patchserver DIR`: the release service on one machine (SQLite in DIR, nothing else needed);
/// `patchserver --postgres URL`: one of several instances sharing a PostgreSQL database.
@main
struct PatchServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "patchserver",
        abstract: "Hosts release channels and signed patches, takes publisher operations and device telemetry.")

    @Argument(help: "Directory for the embedded SQLite database (releases.sqlite); not needed with --postgres.")
    var directory: String?

    @Option(help: "PostgreSQL URL (postgres://user:password@host:port/database) shared by several instances.")
    var postgres: String?

    @Option(help: "The app the service hosts releases for.")
    var appID: String

    @Option(parsing: .upToNextOption, help: "Public release key files: patches and channel documents must verify with one of them.")
    var releaseKey: [String]

    @Option(parsing: .upToNextOption, help: "Public publisher key files: publisher requests must be signed with one of them.")
    var publisherKey: [String]

    @Option(help: "The TUF root devices ship with (the publisher's record/root/1.root.json): the repository's chain starts from it.")
    var root: String?

    @Option(parsing: .upToNextOption, help: "Private key files of the online snapshot and timestamp roles that root names.")
    var onlineKey: [String] = []

    @Option(help: "Seconds a timestamp the service signs stays valid (re-signed at half of it).")
    var timestampExpiry: Int = 86_400

    @Option(help: "Seconds a snapshot the service signs stays valid.")
    var snapshotExpiry: Int = 7 * 86_400

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port (0 picks a free one).")
    var port = 8080

    @Option(help: "Write the port here once listening.")
    var portFile: String?

    @Option(help: "Most connections open at once (lowered to fit the open-file limit); at the cap the longest-idle one makes room.")
    var maxConnections = 4096

    func run() async throws {
        let store: ReleaseStore
        if let postgres {
            guard let url = URLComponents(string: postgres), url.scheme == "postgres" || url.scheme == "postgresql",
                  let host = url.host, let user = url.user else {
                throw ValidationError("--postgres must look like postgres://user[:password]@host[:port]/database")
            }
            store = try await PostgresReleaseStore.open(host: host, port: url.port ?? 5432, username: user, password: url.password,
                                                        database: String(url.path.dropFirst()))
        } else {
            guard let directory else { throw ValidationError("give a directory for the SQLite database, or --postgres") }
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            store = try await SQLiteReleaseStore.open(path: (directory as NSString).appendingPathComponent("releases.sqlite"))
        }
        var configuration = ReleaseService.Configuration(
            appID: appID,
            releaseKeys: try TrustStore(publicKeyFiles: releaseKey.map { URL(fileURLWithPath: $0) }),
            publisherKeys: try TrustStore(publicKeyFiles: publisherKey.map { URL(fileURLWithPath: $0) }))
        configuration.limits.maxConnections = maxConnections
        if let root {
            guard let data = FileManager.default.contents(atPath: root) else { throw ValidationError("cannot read --root \(root)") }
            guard !onlineKey.isEmpty, timestampExpiry > 0, snapshotExpiry > 0 else {
                throw ValidationError("--root needs the --online-key files of its snapshot and timestamp roles, and positive expiries")
            }
            configuration.trustedRoot = data
            configuration.onlineKeys = OnlineKeys(
                keys: try onlineKey.map { file in
                    guard let data = FileManager.default.contents(atPath: file) else { throw ValidationError("cannot read --online-key \(file)") }
                    return try SigningKey(keyFile: data, what: file)
                },
                timestampExpiry: TimeInterval(timestampExpiry), snapshotExpiry: TimeInterval(snapshotExpiry))
        }
        let portFile = self.portFile
        let service = ReleaseService(store: store, configuration: configuration)
        try await service.prepareRepository()
        let renewal = Task { await service.keepTimestampFresh() }
        defer { renewal.cancel() }
        let app = service.application(host: host, port: port) { port in
            print("patchserver listening on http://\(self.host):\(port)/ (status page: /status)")
            if let portFile { try? String(port).write(toFile: portFile, atomically: true, encoding: .utf8) }
        }
        try await app.runService()
        try await store.close()
    }
}
