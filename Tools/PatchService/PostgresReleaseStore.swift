import Foundation
import PatchPublishing
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
            try await c.query("CREATE TABLE IF NOT EXISTS patches (path TEXT PRIMARY KEY, digest TEXT NOT NULL, data BYTEA NOT NULL)", logger: Self.quiet)
            try await c.query("CREATE TABLE IF NOT EXISTS channels (name TEXT PRIMARY KEY, sequence BIGINT NOT NULL, digest TEXT NOT NULL, data BYTEA NOT NULL)", logger: Self.quiet)
            try await c.query("CREATE TABLE IF NOT EXISTS revocations (id INTEGER PRIMARY KEY CHECK (id = 1), sequence BIGINT NOT NULL, digest TEXT NOT NULL, data BYTEA NOT NULL)", logger: Self.quiet)
            try await c.query("CREATE TABLE IF NOT EXISTS nonces (nonce TEXT PRIMARY KEY, key_id TEXT NOT NULL, ts BIGINT NOT NULL)", logger: Self.quiet)
            try await c.query("CREATE TABLE IF NOT EXISTS tuf_metadata (role TEXT NOT NULL, version BIGINT NOT NULL, data BYTEA NOT NULL, PRIMARY KEY (role, version))", logger: Self.quiet)
            try await c.query("CREATE TABLE IF NOT EXISTS tuf_targets (sha256 TEXT PRIMARY KEY, data BYTEA NOT NULL)", logger: Self.quiet)
            try await c.query("CREATE TABLE IF NOT EXISTS telemetry (channel TEXT NOT NULL, release_id TEXT NOT NULL, kind TEXT NOT NULL, hour BIGINT NOT NULL, count BIGINT NOT NULL, PRIMARY KEY (channel, release_id, kind, hour))", logger: Self.quiet)
        }
    }

    private static let quiet = Logger(label: "PatchService.Postgres.query")

    public func putPatch(path: String, data: Data, digest: String) async throws {
        let bytes = ByteBuffer(bytes: data)
        let rows = try await client.query("INSERT INTO patches (path, digest, data) VALUES (\(path), \(digest), \(bytes)) ON CONFLICT (path) DO NOTHING RETURNING path")
        var inserted = false
        for try await _ in rows.decode(String.self) { inserted = true }
        if !inserted, let existing = try await patch(path: path), existing.digest != digest {
            throw StoreConflict(description: "'\(path)' already holds another patch (digest \(existing.digest))")
        }
    }

    public func patch(path: String) async throws -> StoredFile? {
        let rows = try await client.query("SELECT digest, data FROM patches WHERE path = \(path)")
        for try await (digest, data) in rows.decode((String, ByteBuffer).self) {
            return StoredFile(data: Data(data.readableBytesView), digest: digest)
        }
        return nil
    }

    public func patches() async throws -> [String: Data] {
        var out: [String: Data] = [:]
        for try await (path, data) in try await client.query("SELECT path, data FROM patches").decode((String, ByteBuffer).self) {
            out[path] = Data(data.readableBytesView)
        }
        return out
    }

    public func channel(_ name: String) async throws -> StoredChannel? {
        try await collect(try await client.query("SELECT name, sequence, digest, data FROM channels WHERE name = \(name)")).first
    }

    public func channels() async throws -> [StoredChannel] {
        try await collect(try await client.query("SELECT name, sequence, digest, data FROM channels ORDER BY name"))
    }

    private func collect(_ rows: PostgresRowSequence) async throws -> [StoredChannel] {
        var out: [StoredChannel] = []
        for try await (name, sequence, digest, data) in rows.decode((String, Int, String, ByteBuffer).self) {
            out.append(StoredChannel(name: name, sequence: sequence, digest: digest, data: Data(data.readableBytesView)))
        }
        return out
    }

    public func putChannel(_ c: StoredChannel) async throws -> Bool {
        let bytes = ByteBuffer(bytes: c.data)
        let rows = try await client.query("""
            INSERT INTO channels (name, sequence, digest, data) VALUES (\(c.name), \(c.sequence), \(c.digest), \(bytes))
            ON CONFLICT (name) DO UPDATE SET sequence = excluded.sequence, digest = excluded.digest, data = excluded.data
            WHERE excluded.sequence > channels.sequence RETURNING name
            """)
        var stored = false
        for try await _ in rows.decode(String.self) { stored = true }
        return stored
    }

    public func revocationList() async throws -> StoredFile? {
        for try await (digest, data) in try await client.query("SELECT digest, data FROM revocations WHERE id = 1").decode((String, ByteBuffer).self) {
            return StoredFile(data: Data(data.readableBytesView), digest: digest)
        }
        return nil
    }

    public func putRevocationList(sequence: Int, data: Data, digest: String) async throws -> Bool {
        let bytes = ByteBuffer(bytes: data)
        let rows = try await client.query("""
            INSERT INTO revocations (id, sequence, digest, data) VALUES (1, \(sequence), \(digest), \(bytes))
            ON CONFLICT (id) DO UPDATE SET sequence = excluded.sequence, digest = excluded.digest, data = excluded.data
            WHERE excluded.sequence > revocations.sequence RETURNING id
            """)
        var stored = false
        for try await _ in rows.decode(Int.self) { stored = true }
        return stored
    }

    public func useNonce(_ nonce: String, keyID: String, timestamp: Int, forgetBefore olderThan: Int) async throws -> Bool {
        try await client.query("DELETE FROM nonces WHERE ts < \(olderThan)")
        let rows = try await client.query("INSERT INTO nonces (nonce, key_id, ts) VALUES (\(nonce), \(keyID), \(timestamp)) ON CONFLICT (nonce) DO NOTHING RETURNING nonce")
        var fresh = false
        for try await _ in rows.decode(String.self) { fresh = true }
        return fresh
    }

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
