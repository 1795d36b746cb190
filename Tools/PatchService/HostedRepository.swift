import Foundation
import PatchFormat

/// One role's metadata as the service holds it: parsed, and the exact bytes devices get.
public struct HeldMetadata<Role: RoleMetadata>: Sendable {
    public let metadata: Metadata<Role>
    public let data: Data
    public var version: Int64 { metadata.signed.common.version }
    public var signed: Role { metadata.signed }

    init(data: Data, name: String) throws {
        metadata = try Metadata<Role>(data: data, name: name)
        self.data = data
    }

    init(_ metadata: Metadata<Role>) throws {
        self.metadata = metadata
        data = try metadata.serialized()
    }
}

/// The TUF repository the service hosts for its app, as of its newest timestamp: the newest
/// root, the targets role and the roles it delegates (the channels) as the snapshot names them,
/// and the snapshot and timestamp the service signed with its online keys.
public struct HostedRepository: Sendable {
    public var root: HeldMetadata<Root>
    public var targets: HeldMetadata<Targets>?
    /// Roles the top-level targets role delegates, by name.
    public var delegated: [String: HeldMetadata<Targets>]
    public var snapshot: HeldMetadata<Snapshot>?
    public var timestamp: HeldMetadata<Timestamp>?

    /// Reads the newest state from `store`; nil when it holds no root yet. Stored metadata that
    /// does not parse is an error (the service fails closed rather than serve around it).
    public static func load(from store: ReleaseStore) async throws -> HostedRepository? {
        guard let root = try await store.latestMetadata(role: "root") else { return nil }
        var state = HostedRepository(root: try HeldMetadata(data: root.data, name: "root"), targets: nil, delegated: [:])
        guard let timestamp = try await store.latestMetadata(role: "timestamp") else { return state }
        let heldTimestamp = try HeldMetadata<Timestamp>(data: timestamp.data, name: "timestamp")
        let snapshotVersion = heldTimestamp.signed.snapshotMeta.version
        guard let snapshotData = try await store.metadata(role: "snapshot", version: snapshotVersion) else {
            throw UploadRefusal(.missing, "the store lacks snapshot \(snapshotVersion), which timestamp \(heldTimestamp.version) names")
        }
        let snapshot = try HeldMetadata<Snapshot>(data: snapshotData, name: "snapshot")
        state.timestamp = heldTimestamp
        state.snapshot = snapshot
        for (file, info) in snapshot.signed.meta {
            let role = String(file.dropLast(5))
            guard let data = try await store.metadata(role: role, version: info.version) else {
                throw UploadRefusal(.missing, "the store lacks \(role) \(info.version), which snapshot \(snapshot.version) names")
            }
            let held = try HeldMetadata<Targets>(data: data, name: role)
            if role == "targets" { state.targets = held } else { state.delegated[role] = held }
        }
        // Roles the snapshot still lists (it never drops one) but targets no longer delegates.
        if let targets = state.targets {
            let current = Set((targets.signed.delegations?.roles ?? []).map(\.name))
            state.delegated = state.delegated.filter { current.contains($0.key) }
        }
        return state
    }

    /// How close root, targets and each hosted channel role are to expiry (the roles the
    /// publisher signs offline; the service re-signs snapshot and timestamp itself), in that order.
    public func expiries(now: Date, warningWindow: TimeInterval) -> [RoleExpiry] {
        func judge<R>(_ name: String, _ held: HeldMetadata<R>) -> RoleExpiry {
            RoleExpiry(role: name, version: held.version, expires: held.signed.common.expires, now: now, warningWindow: warningWindow)
        }
        let order = (targets?.signed.delegations?.roles ?? []).map(\.name).filter { delegated[$0] != nil }
        return [judge("root", root)] + (targets.map { [judge("targets", $0)] } ?? []) + order.map { judge($0, delegated[$0]!) }
    }

    /// The releases of one channel (a delegated role's targets with their `PatchRelease`).
    public func releases(in channel: String) -> [(name: String, file: TargetFile, release: PatchRelease?)] {
        guard let role = delegated[channel] else { return [] }
        return role.signed.targets.sorted { $0.key < $1.key }.map { path, file in
            let name = path.hasPrefix(channel + "/") ? String(path.dropFirst(channel.count + 1)) : path
            return (name, file, try? PatchRelease(custom: file.custom))
        }
    }
}
