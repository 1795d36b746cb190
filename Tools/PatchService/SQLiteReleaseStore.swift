import Foundation
import NIOCore
import SQLiteNIO

/// The embedded storage: one SQLite file, nothing else to install (`patchserver DIR`). One
/// service instance per file; the actor serializes statements on the one connection.
public actor SQLiteReleaseStore: ReleaseStore {
    private let connection: SQLiteConnection

    /// Opens (creating if needed) the database at `path` and its tables.
    public static func open(path: String) async throws -> SQLiteReleaseStore {
        let store = SQLiteReleaseStore(connection: try await SQLiteConnection.open(storage: .file(path: path)))
        try await store.migrate()
        return store
    }

    private init(connection: SQLiteConnection) { self.connection = connection }

    public func migrate() async throws {
        for statement in [
            "PRAGMA journal_mode=WAL",
            "CREATE TABLE IF NOT EXISTS tuf_metadata (role TEXT NOT NULL, version INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (role, version))",
            "CREATE TABLE IF NOT EXISTS tuf_targets (sha256 TEXT PRIMARY KEY, data BLOB NOT NULL)",
            "CREATE TABLE IF NOT EXISTS telemetry (channel TEXT NOT NULL, release_id TEXT NOT NULL, kind TEXT NOT NULL, hour INTEGER NOT NULL, count INTEGER NOT NULL, PRIMARY KEY (channel, release_id, kind, hour))",
        ] {
            _ = try await connection.query(statement, [])
        }
    }

    public func metadata(role: String, version: Int64) async throws -> Data? {
        let rows = try await connection.query("SELECT data FROM tuf_metadata WHERE role = ? AND version = ?", [.text(role), .integer(Int(version))])
        return rows.first?.column("data")?.blob.map { Data($0.readableBytesView) }
    }

    public func latestMetadata(role: String) async throws -> StoredMetadata? {
        let rows = try await connection.query("SELECT version, data FROM tuf_metadata WHERE role = ? ORDER BY version DESC LIMIT 1", [.text(role)])
        return rows.first.flatMap { row in
            guard let version = row.column("version")?.integer, let data = row.column("data")?.blob else { return nil }
            return StoredMetadata(role: role, version: Int64(version), data: Data(data.readableBytesView))
        }
    }

    public func targetFile(sha256: String) async throws -> Data? {
        let rows = try await connection.query("SELECT data FROM tuf_targets WHERE sha256 = ?", [.text(sha256)])
        return rows.first?.column("data")?.blob.map { Data($0.readableBytesView) }
    }

    public func commit(_ commit: RepositoryCommit) async throws -> Bool {
        try await transaction {
            let newest = try await self.latestMetadata(role: "timestamp")?.version
            guard newest == commit.basedOnTimestamp else { return false }
            for m in commit.metadata {
                _ = try await self.connection.query("INSERT INTO tuf_metadata (role, version, data) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                                                    [.text(m.role), .integer(Int(m.version)), .blob(ByteBuffer(bytes: m.data))])
            }
            for (hash, data) in commit.targetFiles {
                _ = try await self.connection.query("INSERT INTO tuf_targets (sha256, data) VALUES (?, ?) ON CONFLICT DO NOTHING",
                                                    [.text(hash), .blob(ByteBuffer(bytes: data))])
            }
            return true
        }
    }

    // The actor gives up its turn at every await: transactions take turns through this queue so
    // no other statement runs inside one (and no two BEGINs meet on the one connection).
    private var inTransaction = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    private func transaction<T>(_ body: () async throws -> T) async throws -> T {
        if inTransaction { await withCheckedContinuation { waiting.append($0) } } else { inTransaction = true }
        defer { if waiting.isEmpty { inTransaction = false } else { waiting.removeFirst().resume() } }
        _ = try await connection.query("BEGIN IMMEDIATE", [])
        do {
            let result = try await body()
            _ = try await connection.query("COMMIT", [])
            return result
        } catch {
            _ = try? await connection.query("ROLLBACK", [])
            throw error
        }
    }

    public func addTelemetry(_ counts: [TelemetryCount]) async throws {
        try await transaction {
            for c in counts {
                _ = try await connection.query("""
                    INSERT INTO telemetry (channel, release_id, kind, hour, count) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (channel, release_id, kind, hour) DO UPDATE SET count = telemetry.count + excluded.count
                    """, [.text(c.channel), .text(c.releaseID), .text(c.kind), .integer(c.hour), .integer(c.count)])
            }
        }
    }

    public func telemetry(since hour: Int) async throws -> [TelemetryCount] {
        try await counts("SELECT channel, release_id, kind, hour, count FROM telemetry WHERE hour >= ? ORDER BY channel, release_id, kind, hour", [.integer(hour)])
    }

    public func telemetryTotals() async throws -> [TelemetryCount] {
        try await counts("SELECT channel, release_id, kind, 0 AS hour, SUM(count) AS count FROM telemetry GROUP BY channel, release_id, kind ORDER BY channel, release_id, kind", [])
    }

    private func counts(_ sql: String, _ bindings: [SQLiteData]) async throws -> [TelemetryCount] {
        try await connection.query(sql, bindings).compactMap { row in
            guard let channel = row.column("channel")?.string, let id = row.column("release_id")?.string, let kind = row.column("kind")?.string,
                  let hour = row.column("hour")?.integer, let count = row.column("count")?.integer else { return nil }
            return TelemetryCount(channel: channel, releaseID: id, kind: kind, hour: hour, count: count)
        }
    }

    public func close() async throws { try await connection.close() }
}
