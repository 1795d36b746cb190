import Foundation
import PatchDelivery
import PatchPublishing

/// A file the service serves, with its ETag (the SHA-256 of its signed content).
public struct StoredFile: Equatable, Sendable {
    public var data: Data
    public var digest: String
    public init(data: Data, digest: String) { self.data = data; self.digest = digest }
}

/// The current signed document of one channel.
public struct StoredChannel: Equatable, Sendable {
    public var name: String
    public var sequence: Int
    /// `SignedReleaseChannel.digest`: the ETag.
    public var digest: String
    /// The signed file's bytes.
    public var data: Data
    public init(name: String, sequence: Int, digest: String, data: Data) {
        self.name = name; self.sequence = sequence; self.digest = digest; self.data = data
    }
}

/// A patch path already holds other content: published files never change under a name
/// (devices and CDNs may have cached them).
public struct StoreConflict: Error, CustomStringConvertible, Equatable {
    public var description: String
}

/// Where the service keeps everything. Two implementations (`SQLiteReleaseStore` embedded, one
/// instance; `PostgresReleaseStore`, several instances sharing one database) behave the same —
/// `PatchServiceTests/ReleaseStoreContract` runs one suite against both. Every change that two
/// instances could race on is one conditional statement, decided by the database.
public protocol ReleaseStore: Sendable {
    /// Creates the tables if missing.
    func migrate() async throws
    /// Stores a signed patch file under `path`; storing the same content again is a no-op,
    /// other content under a taken path throws `StoreConflict`.
    func putPatch(path: String, data: Data, digest: String) async throws
    func patch(path: String) async throws -> StoredFile?
    /// Every stored patch file by path (for `publish`).
    func patches() async throws -> [String: Data]
    func channel(_ name: String) async throws -> StoredChannel?
    func channels() async throws -> [StoredChannel]
    /// Makes `channel` the current document if its sequence is higher than the stored one's;
    /// returns false (and changes nothing) otherwise. Atomic: of two racing writers one wins.
    func putChannel(_ channel: StoredChannel) async throws -> Bool
    /// The signed revocation list devices take in with the channel (`/revocations.json`).
    func revocationList() async throws -> StoredFile?
    /// Makes `data` the revocation list if `sequence` is higher than the stored list's; false otherwise (atomic).
    func putRevocationList(sequence: Int, data: Data, digest: String) async throws -> Bool
    /// Records a publisher request nonce; false if it was already used (a replay). Nonces older
    /// than `olderThan` may be forgotten (their timestamps are refused anyway).
    func useNonce(_ nonce: String, keyID: String, timestamp: Int, forgetBefore olderThan: Int) async throws -> Bool
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
