import ArgumentParser
import Foundation
import Logging
import PatchFormat
import PatchService

/// `patchserver DIR`: the release service on one machine (SQLite in DIR, nothing else needed);
/// `patchserver --postgres URL`: one of several instances sharing a PostgreSQL database.
@main
struct PatchServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "patchserver",
        abstract: "Hosts an app's TUF repository of patches (uploaded by patchctl repo publish --to), takes device telemetry.",
        discussion: """
            The service holds the online snapshot and timestamp keys only: it signs a new snapshot and timestamp \
            for each upload it verified against --root, and re-signs the timestamp before it expires. Devices \
            read /apps/APP/metadata/ and /apps/APP/targets/; the status page is /status.
            """)

    @Argument(help: "Directory for the embedded SQLite database (releases.sqlite); not needed with --postgres.")
    var directory: String?

    @Option(help: "PostgreSQL URL (postgres://user:password@host:port/database) shared by several instances.")
    var postgres: String?

    @Option(help: "The app the service hosts the repository of.")
    var appID: String

    @Option(help: "The TUF root devices ship with (the publisher's record/root/1.root.json): the repository's chain starts from it.")
    var root: String

    @Option(parsing: .upToNextOption, help: "Private key files of the online snapshot and timestamp roles that root names.")
    var onlineKey: [String]

    @Option(help: "Seconds a timestamp the service signs stays valid (re-signed at half of it): devices see a revocation within it.")
    var timestampExpiry: Int = 86_400

    @Option(help: "Seconds a snapshot the service signs stays valid.")
    var snapshotExpiry: Int = 7 * 86_400

    @Option(help: "Seconds a new root, targets or channel role version must stay valid for the service to take it (below: expires-too-soon).")
    var minimumRoleValidity: Int = Int(ReleaseService.Configuration.defaultMinimumRoleValidity)

    @Option(help: "Roles expiring within this many seconds are flagged on /status and /api/status.")
    var expiryWarning: Int = 7 * 86_400

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port (0 picks a free one).")
    var port = 8080

    @Option(help: "Write the port here once listening.")
    var portFile: String?

    @Option(help: "Most connections open at once (lowered to fit the open-file limit); at the cap the longest-idle one makes room.")
    var maxConnections = 4096

    func run() async throws {
        guard let rootData = FileManager.default.contents(atPath: root) else { throw ValidationError("cannot read --root \(root)") }
        guard timestampExpiry > 0, snapshotExpiry > 0 else { throw ValidationError("expiry periods must be positive") }
        guard minimumRoleValidity >= 0, expiryWarning >= 0 else { throw ValidationError("--minimum-role-validity and --expiry-warning must not be negative") }
        let keys = try onlineKey.map { file in
            guard let data = FileManager.default.contents(atPath: file) else { throw ValidationError("cannot read --online-key \(file)") }
            return try SigningKey(keyFile: data, what: file)
        }
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
            appID: appID, trustedRoot: rootData,
            onlineKeys: OnlineKeys(keys: keys, timestampExpiry: TimeInterval(timestampExpiry), snapshotExpiry: TimeInterval(snapshotExpiry)))
        configuration.limits.maxConnections = maxConnections
        configuration.minimumRoleValidity = TimeInterval(minimumRoleValidity)
        configuration.expiryWarning = TimeInterval(expiryWarning)
        let service = ReleaseService(store: store, configuration: configuration)
        try await service.prepareRepository()
        let renewal = Task { await service.keepTimestampFresh() }
        defer { renewal.cancel() }
        let portFile = self.portFile
        let app = service.application(host: host, port: port) { port in
            print("patchserver listening on http://\(self.host):\(port)/ (repository: /apps/\(self.appID)/, status page: /status)")
            if let portFile { try? String(port).write(toFile: portFile, atomically: true, encoding: .utf8) }
        }
        try await app.runService()
        try await store.close()
    }
}
