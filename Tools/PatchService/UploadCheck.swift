import Foundation
import PatchFormat

/// An upload the service accepted: the state it leads to and what to store.
public struct AcceptedUpload: Sendable {
    /// The repository with the upload applied (snapshot and timestamp not yet re-signed).
    public var state: HostedRepository
    /// New root, targets and delegated role versions.
    public var metadata: [StoredMetadata]
    /// Target files not held yet, by SHA-256.
    public var files: [String: Data]
    /// False when the upload held nothing new (every file already held, byte for byte).
    public var changed: Bool
}

extension HostedRepository {
    /// Longest role name the service hosts (names become file names and URL segments).
    static let maxRoleNameLength = 64
    /// Most root versions and roles one upload may carry: each costs a lookup or a signature
    /// check, and a publisher never needs more.
    static let maxRootsPerUpload = 1024
    static let maxRolesPerUpload = 256

    /// Checks `upload` against this (trusted) state, in this order, and returns the state it
    /// leads to; the first check that fails refuses the whole upload (`UploadRefusal`):
    ///
    /// 1. at most 1,024 roots and 256 roles (`unsupported`); every root and role file parses as
    ///    its role (`malformed`);
    /// 2. uploaded roots up to the held version are byte for byte the held ones (`fork`); each
    ///    newer one is the next version (`root-gap`), signed by a threshold of the previous root's
    ///    root keys and of its own (`unsigned`), not expired (`expired`), keeps consistent
    ///    snapshots (`unsupported`) and still lets the service's online keys sign snapshot and
    ///    timestamp (`online-keys-removed`);
    /// 3. targets (uploaded, or held): not below the held version (`rollback`), the same version
    ///    only with the same bytes (`fork`), not expired when uploaded (`expired`), signed by a
    ///    threshold of the newest root's targets keys (`unsigned`);
    /// 4. every uploaded role is delegated by that targets role and lists only paths delegated to
    ///    it (`not-delegated`); no succinct or
    ///    nested delegations (`unsupported`); every delegated role (uploaded, or held) is there
    ///    (`missing`), passes the same version and expiry checks, and is signed by a threshold of
    ///    the keys targets delegates to it (`unsigned`);
    /// 5. every target listed has a SHA-256 hash (`unsupported`) and content, uploaded or held,
    ///    matching its length and hashes; no uploaded file is left unlisted (`target-mismatch`).
    ///
    /// Held roles are re-checked against the new root and delegations: a key rotated out takes
    /// what it signed with it, until the publisher uploads a re-signed version.
    public func accepting(_ upload: RepositoryUpload, store: ReleaseStore, online: OnlineKeys, now: Date) async throws -> AcceptedUpload {
        // 1. Parse everything first (after counting: each file costs work).
        guard upload.roots.count <= Self.maxRootsPerUpload, upload.roles.count <= Self.maxRolesPerUpload else {
            throw UploadRefusal(.unsupported, "an upload carries at most \(Self.maxRootsPerUpload) roots and \(Self.maxRolesPerUpload) roles")
        }
        func parse<R: RoleMetadata>(_ data: Data, _ name: String, as type: R.Type) throws -> HeldMetadata<R> {
            do { return try HeldMetadata<R>(data: data, name: name) } catch { throw UploadRefusal(.malformed, "\(name): \(error)") }
        }
        let roots = try upload.roots.map { try parse($0, "root", as: Root.self) }.sorted { $0.version < $1.version }
        var roles: [String: HeldMetadata<Targets>] = [:]
        for (name, data) in upload.roles {
            guard Self.isHostableRoleName(name) else {
                throw UploadRefusal(.unsupported, "role name \"\(name.prefix(80))\": the service hosts roles named with 1–\(Self.maxRoleNameLength) letters, digits, -, _ or .")
            }
            roles[name] = try parse(data, name, as: Targets.self)
        }
        var changed = false
        var metadata: [StoredMetadata] = []

        // 2. The root chain.
        var root = self.root
        for candidate in roots {
            let v = candidate.version
            if v <= root.version {
                guard try await store.metadata(role: "root", version: v) == candidate.data else {
                    throw UploadRefusal(.fork, "root \(v) differs from the root \(v) the service holds")
                }
                continue
            }
            guard v == root.version + 1 else {
                throw UploadRefusal(.rootGap, "root \(v) follows root \(root.version): upload every root version in between")
            }
            for signer in [root, candidate] {
                guard let keys = signer.signed.roles["root"],
                      ThresholdCheck.isMet(keys: signer.signed.keys, keyids: keys.keyids, threshold: keys.threshold,
                                           signatures: candidate.metadata.signatures, bytes: candidate.metadata.signedBytes) else {
                    throw UploadRefusal(.unsigned, "root \(v) is not signed by a threshold of root \(signer.version)'s root keys")
                }
            }
            root = candidate
            metadata.append(StoredMetadata(role: "root", version: v, data: candidate.data))
            changed = true
        }
        if root.version != self.root.version {
            guard !root.signed.common.isExpired(at: now) else { throw UploadRefusal(.expired, "root \(root.version) has expired") }
            guard root.signed.usesConsistentSnapshots else {
                throw UploadRefusal(.unsupported, "root \(root.version) turns consistent snapshots off; the service serves versioned metadata only")
            }
            guard online.canSign(for: root.signed) else {
                throw UploadRefusal(.onlineKeysRemoved, "root \(root.version) does not let this service's online keys sign snapshot and timestamp")
            }
        }

        // 3. Targets.
        func pick(_ name: String, held: HeldMetadata<Targets>?) throws -> HeldMetadata<Targets> {
            guard let uploaded = roles[name] else {
                guard let held else { throw UploadRefusal(.missing, "no \(name) metadata was uploaded, and the service holds none") }
                return held
            }
            if let held {
                guard uploaded.version >= held.version else {
                    throw UploadRefusal(.rollback, "\(name) version \(uploaded.version) is older than the held version \(held.version)")
                }
                if uploaded.version == held.version {
                    guard uploaded.data == held.data else {
                        throw UploadRefusal(.fork, "\(name) version \(uploaded.version) differs from the held \(name) version \(held.version)")
                    }
                    return held
                }
            }
            guard !uploaded.signed.common.isExpired(at: now) else { throw UploadRefusal(.expired, "\(name) version \(uploaded.version) has expired") }
            metadata.append(StoredMetadata(role: name, version: uploaded.version, data: uploaded.data))
            changed = true
            return uploaded
        }
        func checkSigned(_ role: HeldMetadata<Targets>, _ name: String, keys: [String: PublicKey], keyids: [String], threshold: Int64, by delegator: String) throws {
            guard ThresholdCheck.isMet(keys: keys, keyids: keyids, threshold: threshold,
                                       signatures: role.metadata.signatures, bytes: role.metadata.signedBytes) else {
                throw UploadRefusal(.unsigned, "\(name) version \(role.version) is not signed by a threshold of the keys \(delegator) delegates to it")
            }
        }
        let targets = try pick("targets", held: self.targets)
        guard let targetsKeys = root.signed.roles["targets"] else { throw UploadRefusal(.unsigned, "root \(root.version) has no targets role") }
        try checkSigned(targets, "targets", keys: root.signed.keys, keyids: targetsKeys.keyids, threshold: targetsKeys.threshold,
                        by: "root \(root.version)")

        // 4. Delegated roles.
        let delegations = targets.signed.delegations
        guard delegations?.succinctRoles == nil else { throw UploadRefusal(.unsupported, "targets uses succinct hash bins, which the service does not host") }
        let delegatedRoles = delegations?.roles ?? []
        for name in roles.keys where name != "targets" && !delegatedRoles.contains(where: { $0.name == name }) {
            throw UploadRefusal(.notDelegated, "targets version \(targets.version) delegates no role \(name)")
        }
        var delegated: [String: HeldMetadata<Targets>] = [:]
        for role in delegatedRoles {
            guard Self.isHostableRoleName(role.name), !Root.topLevelRoles.contains(role.name) else {
                throw UploadRefusal(.unsupported, "targets delegates a role named \"\(role.name.prefix(80))\", which the service cannot host")
            }
            let held = self.delegated[role.name]
            guard roles[role.name] != nil || held != nil else {
                throw UploadRefusal(.missing, "targets version \(targets.version) delegates \(role.name): upload its metadata")
            }
            let chosen = try pick(role.name, held: held)
            try checkSigned(chosen, role.name, keys: delegations?.keys ?? [:], keyids: role.keyids, threshold: role.threshold, by: "targets")
            if let outside = chosen.signed.targets.keys.sorted().first(where: { !role.delegates($0) }) {
                throw UploadRefusal(.notDelegated, "\(role.name) lists \(outside.prefix(200)), outside the paths targets delegates to it")
            }
            guard (chosen.signed.delegations?.roles ?? []).isEmpty, chosen.signed.delegations?.succinctRoles == nil else {
                throw UploadRefusal(.unsupported, "\(role.name) delegates further, which the service does not host")
            }
            delegated[role.name] = chosen
        }
        if Set(delegated.keys) != Set(self.delegated.keys) { changed = true }

        // 5. Target files.
        var uploaded: [String: Data] = [:]
        for file in upload.files { uploaded[HashCheck.digest("sha256", of: file)!] = file }
        var used: Set<String> = []
        var files: [String: Data] = [:]
        for role in [("targets", targets)] + delegated.sorted(by: { $0.key < $1.key }) {
            for (path, file) in role.1.signed.targets.sorted(by: { $0.key < $1.key }) {
                guard let sha256 = file.hashes["sha256"]?.lowercased() else {
                    throw UploadRefusal(.unsupported, "\(role.0) lists \(path) without a sha256 hash")
                }
                used.insert(sha256)
                let content: Data
                if let data = uploaded[sha256] {
                    content = data
                    if try await store.targetFile(sha256: sha256) == nil { files[sha256] = data }
                } else if let data = try await store.targetFile(sha256: sha256) {
                    content = data
                } else {
                    throw UploadRefusal(.targetMismatch, "\(role.0) lists \(path), whose content was not uploaded")
                }
                do { try file.verify(content, what: path) } catch {
                    throw UploadRefusal(.targetMismatch, "\(role.0) lists \(path): \(error)")
                }
            }
        }
        if let unlisted = uploaded.keys.sorted().first(where: { !used.contains($0) }) {
            throw UploadRefusal(.targetMismatch, "an uploaded file (sha256 \(unlisted)) is listed by no target")
        }
        if !files.isEmpty { changed = true }

        var state = self
        state.root = root
        state.targets = targets
        state.delegated = delegated
        return AcceptedUpload(state: state, metadata: metadata, files: files, changed: changed)
    }

    static func isHostableRoleName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= maxRoleNameLength && !name.hasPrefix(".")
            && name.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_.".unicodeScalars.contains($0)) }
    }
}
