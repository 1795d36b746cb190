import Foundation

/// One version of one TUF role's metadata, the exact bytes devices get.
public struct StoredMetadata: Equatable, Sendable {
    public var role: String
    public var version: Int64
    public var data: Data
    public init(role: String, version: Int64, data: Data) { self.role = role; self.version = version; self.data = data }
}

/// What one accepted upload, or one online re-signing, adds to the hosted TUF repository.
public struct RepositoryCommit: Equatable, Sendable {
    /// New metadata versions (a version already stored for a role is kept as it is).
    public var metadata: [StoredMetadata]
    /// Target files by the hex SHA-256 of their content.
    public var targetFiles: [String: Data]
    /// The newest timestamp version this commit was made from (nil: none yet). The commit is
    /// refused if another one was made from it first.
    public var basedOnTimestamp: Int64?
    public init(metadata: [StoredMetadata], targetFiles: [String: Data] = [:], basedOnTimestamp: Int64?) {
        self.metadata = metadata; self.targetFiles = targetFiles; self.basedOnTimestamp = basedOnTimestamp
    }
}

/// Where the service keeps everything. Two implementations (`SQLiteReleaseStore` embedded, one
/// instance; `PostgresReleaseStore`, several instances sharing one database) behave the same —
/// `PatchServiceTests/ReleaseStoreContract` runs one suite against both. Every change that two
/// instances could race on is one conditional statement, decided by the database.
public protocol ReleaseStore: Sendable {
    /// Creates the tables if missing.
    func migrate() async throws
    /// The stored version of a TUF role's metadata (`root`, `timestamp`, `snapshot`, `targets`, a channel).
    func metadata(role: String, version: Int64) async throws -> Data?
    /// A role's newest stored version.
    func latestMetadata(role: String) async throws -> StoredMetadata?
    /// A target file by the hex SHA-256 of its content.
    func targetFile(sha256: String) async throws -> Data?
    /// Stores everything in `commit` if the newest timestamp version is still
    /// `commit.basedOnTimestamp`; returns false (and stores nothing) otherwise. All or nothing,
    /// and of two commits made from the same timestamp exactly one succeeds, across instances.
    func commit(_ commit: RepositoryCommit) async throws -> Bool
    /// Adds telemetry counts (upserts: concurrent instances add up).
    func addTelemetry(_ counts: [TelemetryCount]) async throws
    /// The hourly counts of `hour` and later.
    func telemetry(since hour: Int) async throws -> [TelemetryCount]
    /// Each channel, release and kind's count over all hours (`hour` 0), summed by the database.
    func telemetryTotals() async throws -> [TelemetryCount]
    func close() async throws
}

extension ReleaseStore {
    /// Every hourly count.
    public func telemetry() async throws -> [TelemetryCount] { try await telemetry(since: Int.min) }
}
