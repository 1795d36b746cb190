import Foundation
import Logging
import NIOCore
import PostgresNIO

/// The shared storage: several service instances behind a load balancer use one PostgreSQL
/// database. Races between instances are settled by the database (conditional upserts, unique
/// nonces), never by an instance's memory.
public final class PostgresReleaseStore: ReleaseStore, @unchecked Sendable {
    private let client: PostgresClient
    private let runner: Task<Void, Never>

    /// Connects (the pool runs in its own task until `close()`) and creates the tables if missing.
    public static func open(host: String, port: Int, username: String, password: String?, database: String) async throws -> PostgresReleaseStore {
        var configuration = PostgresClient.Configuration(host: host, port: port, username: username, password: password,
                                                         database: database, tls: .disable)
        configuration.options.connectTimeout = .seconds(10)
        let store = PostgresReleaseStore(client: PostgresClient(configuration: configuration, backgroundLogger: Logger(label: "PatchService.Postgres")))
        try await store.migrate()
        return store
    }

    private init(client: PostgresClient) {
        self.client = client
        runner = Task { await client.run() }
    }

    public func migrate() async throws {
        // Two instances starting together may both try to create the tables: serialize on an advisory lock.
        try await client.withTransaction(logger: Logger(label: "PatchService.Postgres")) { c in
            try await c.query("SELECT pg_advisory_xact_lock(424242)", logger: Self.quiet)
            try await c.query("CREATE TABLE IF NOT EXISTS tuf_metadata (role TEXT NOT NULL, version BIGINT NOT NULL, data BYTEA NOT NULL, PRIMARY KEY (role, version))", logger: Self.quiet)
            try await c.query("CREATE TABLE IF NOT EXISTS tuf_targets (sha256 TEXT PRIMARY KEY, data BYTEA NOT NULL)", logger: Self.quiet)
            try await c.query("CREATE TABLE IF NOT EXISTS telemetry (channel TEXT NOT NULL, release_id TEXT NOT NULL, kind TEXT NOT NULL, hour BIGINT NOT NULL, count BIGINT NOT NULL, PRIMARY KEY (channel, release_id, kind, hour))", logger: Self.quiet)
        }
    }

    private static let quiet = Logger(label: "PatchService.Postgres.query")

    public func metadata(role: String, version: Int64) async throws -> Data? {
        for try await data in try await client.query("SELECT data FROM tuf_metadata WHERE role = \(role) AND version = \(version)").decode(ByteBuffer.self) {
            return Data(data.readableBytesView)
        }
        return nil
    }

    public func latestMetadata(role: String) async throws -> StoredMetadata? {
        let rows = try await client.query("SELECT version, data FROM tuf_metadata WHERE role = \(role) ORDER BY version DESC LIMIT 1")
        for try await (version, data) in rows.decode((Int64, ByteBuffer).self) {
            return StoredMetadata(role: role, version: version, data: Data(data.readableBytesView))
        }
        return nil
    }

    public func targetFile(sha256: String) async throws -> Data? {
        for try await data in try await client.query("SELECT data FROM tuf_targets WHERE sha256 = \(sha256)").decode(ByteBuffer.self) {
            return Data(data.readableBytesView)
        }
        return nil
    }

    /// Commits from all instances take turns on one advisory lock, so the timestamp check and the
    /// inserts are one step.
    public func commit(_ commit: RepositoryCommit) async throws -> Bool {
        try await client.withTransaction(logger: Self.quiet) { c in
            try await c.query("SELECT pg_advisory_xact_lock(424243)", logger: Self.quiet)
            var newest: Int64?
            for try await version in try await c.query("SELECT MAX(version) FROM tuf_metadata WHERE role = 'timestamp'", logger: Self.quiet).decode(Int64?.self) {
                newest = version
            }
            guard newest == commit.basedOnTimestamp else { return false }
            for m in commit.metadata {
                let bytes = ByteBuffer(bytes: m.data)
                try await c.query("INSERT INTO tuf_metadata (role, version, data) VALUES (\(m.role), \(m.version), \(bytes)) ON CONFLICT DO NOTHING", logger: Self.quiet)
            }
            for (hash, data) in commit.targetFiles {
                let bytes = ByteBuffer(bytes: data)
                try await c.query("INSERT INTO tuf_targets (sha256, data) VALUES (\(hash), \(bytes)) ON CONFLICT DO NOTHING", logger: Self.quiet)
            }
            return true
        }
    }

    public func addTelemetry(_ counts: [TelemetryCount]) async throws {
        guard !counts.isEmpty else { return }
        try await client.withTransaction(logger: Self.quiet) { connection in
            for c in counts {
                try await connection.query("""
                    INSERT INTO telemetry (channel, release_id, kind, hour, count) VALUES (\(c.channel), \(c.releaseID), \(c.kind), \(c.hour), \(c.count))
                    ON CONFLICT (channel, release_id, kind, hour) DO UPDATE SET count = telemetry.count + excluded.count
                    """, logger: Self.quiet)
            }
        }
    }

    public func telemetry(since hour: Int) async throws -> [TelemetryCount] {
        var out: [TelemetryCount] = []
        let rows = try await client.query("SELECT channel, release_id, kind, hour, count FROM telemetry WHERE hour >= \(hour) ORDER BY channel, release_id, kind, hour")
        for try await (channel, id, kind, hour, count) in rows.decode((String, String, String, Int, Int).self) {
            out.append(TelemetryCount(channel: channel, releaseID: id, kind: kind, hour: hour, count: count))
        }
        return out
    }

    public func telemetryTotals() async throws -> [TelemetryCount] {
        var out: [TelemetryCount] = []
        let rows = try await client.query("SELECT channel, release_id, kind, SUM(count)::BIGINT FROM telemetry GROUP BY channel, release_id, kind ORDER BY channel, release_id, kind")
        for try await (channel, id, kind, count) in rows.decode((String, String, String, Int).self) {
            out.append(TelemetryCount(channel: channel, releaseID: id, kind: kind, hour: 0, count: count))
        }
        return out
    }

    public func close() async throws {
        runner.cancel()
        _ = await runner.value
    }
}
