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
    /// Channel role versions the upload carried but the service did not take (expired, or valid
    /// for less than the minimum): the held version stays, the rest of the upload was taken.
    public var notTaken: [UploadRefusal] = []
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
    ///    root keys and of its own (`unsigned`), valid for at least `minimumValidity` (`expired`,
    ///    `expires-too-soon`), keeps consistent snapshots (`unsupported`) and still lets the
    ///    service's online keys sign snapshot and timestamp (`online-keys-removed`);
    /// 3. targets (uploaded, or held): not below the held version (`rollback`), the same version
    ///    only with the same bytes (`fork`), valid for at least `minimumValidity` when a new
    ///    version is uploaded (`expired`, `expires-too-soon`), signed by a threshold of the newest
    ///    root's targets keys (`unsigned`);
    /// 4. every uploaded role is delegated by that targets role and lists only paths delegated to
    ///    it (`not-delegated`); no succinct or
    ///    nested delegations (`unsupported`); every delegated role (uploaded, or held) is there
    ///    (`missing`), passes the same version checks, and is signed by a threshold of the keys
    ///    targets delegates to it (`unsigned`). A new channel role version valid for less than
    ///    `minimumValidity` is not taken (`notTaken`): the held version stays (none held: the
    ///    channel is not hosted until a valid version comes), so one channel's stale role never
    ///    refuses another channel's release; an upload with nothing else new is refused with it;
    ///    every uploaded role (targets included) lists only releases whose `PatchRelease` metadata
    ///    parses (`invalid-release`: a typo'd `app_versions` range, a bad version, a rollout out
    ///    of range), checked once its signatures are;
    /// 5. every target listed has a SHA-256 hash (`unsupported`) and content, uploaded or held,
    ///    matching its length and hashes; no uploaded file is left unlisted (`target-mismatch`).
    ///
    /// Held roles are re-checked against the new root and delegations: a key rotated out takes
    /// what it signed with it, until the publisher uploads a re-signed version. Held roles are not
    /// re-checked for expiry: one that expired stays held (and listed by every snapshot, which
    /// never drops a role) until the publisher uploads a newer version.
    public func accepting(_ upload: RepositoryUpload, store: ReleaseStore, online: OnlineKeys, now: Date,
                          minimumValidity: TimeInterval = ReleaseService.Configuration.defaultMinimumRoleValidity) async throws -> AcceptedUpload {
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
        var notTaken: [UploadRefusal] = []
        var notTakenRoles: [HeldMetadata<Targets>] = []
        /// nil when `common` stays valid for at least `minimumValidity`, else why not.
        func validityRefusal(_ name: String, _ common: CommonFields) -> UploadRefusal? {
            let expiry = RoleExpiry(role: name, version: common.version, expires: common.expires, now: now, warningWindow: 0)
            if expiry.state == .expired { return UploadRefusal(.expired, "\(name) version \(common.version) has expired") }
            guard expiry.lasts(minimumValidity) else {
                return UploadRefusal(.expiresTooSoon, "\(name) version \(common.version) expires in \(RoleExpiry.duration(expiry.remaining)) "
                                     + "(\(MetadataDate.format(common.expires))), sooner than this service's minimum of \(RoleExpiry.duration(minimumValidity))")
            }
            return nil
        }

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
            if let refusal = validityRefusal("root", root.signed.common) { throw refusal }
            guard root.signed.usesConsistentSnapshots else {
                throw UploadRefusal(.unsupported, "root \(root.version) turns consistent snapshots off; the service serves versioned metadata only")
            }
            guard online.canSign(for: root.signed) else {
                throw UploadRefusal(.onlineKeysRemoved, "root \(root.version) does not let this service's online keys sign snapshot and timestamp")
            }
        }

        // 3. Targets.
        /// The version of `name` to host, checked by `verify` (its signatures): the uploaded one
        /// when new and valid long enough; the held one when the upload has the same (or none);
        /// for a channel role too short-lived, the held one (nil: none held), noted in `notTaken`.
        /// An uploaded version is verified before its expiry is looked at: only what its keys
        /// signed is ever reported as not taken.
        func pick(_ name: String, held: HeldMetadata<Targets>?, verify: (HeldMetadata<Targets>) throws -> Void) throws -> HeldMetadata<Targets>? {
            guard let uploaded = roles[name] else {
                guard let held else { throw UploadRefusal(.missing, "no \(name) metadata was uploaded, and the service holds none") }
                try verify(held)
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
                    try verify(held)
                    return held
                }
            }
            try verify(uploaded)
            // What devices would refuse is refused here, once, with the publisher listening.
            do { try PatchRelease.checkReleases(listedIn: uploaded.signed) } catch {
                throw UploadRefusal(.invalidRelease, "\(name) version \(uploaded.version) lists \(error)")
            }
            if let refusal = validityRefusal(name, uploaded.signed.common) {
                // Targets concerns every channel: refused whole. A channel role concerns its own.
                guard name != "targets" else { throw refusal }
                if let held {
                    do { try verify(held) } catch let failed as UploadRefusal {
                        throw UploadRefusal(failed.reason, "\(failed.message), and \(refusal.message)")
                    }
                }
                notTaken.append(refusal)
                notTakenRoles.append(uploaded)
                return held
            }
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
        guard let targetsKeys = root.signed.roles["targets"] else { throw UploadRefusal(.unsigned, "root \(root.version) has no targets role") }
        let pickedTargets = try pick("targets", held: self.targets) {
            try checkSigned($0, "targets", keys: root.signed.keys, keyids: targetsKeys.keyids, threshold: targetsKeys.threshold, by: "root \(root.version)")
        }
        guard let targets = pickedTargets else { throw UploadRefusal(.missing, "no targets metadata") }

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
            let picked = try pick(role.name, held: held) {
                try checkSigned($0, role.name, keys: delegations?.keys ?? [:], keyids: role.keyids, threshold: role.threshold, by: "targets")
            }
            guard let chosen = picked else { continue }
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
        // Files of a role not taken were uploaded with it: neither stored nor refused.
        for role in notTakenRoles { for file in role.signed.targets.values { if let h = file.hashes["sha256"] { used.insert(h.lowercased()) } } }
        if let unlisted = uploaded.keys.sorted().first(where: { !used.contains($0) }) {
            throw UploadRefusal(.targetMismatch, "an uploaded file (sha256 \(unlisted)) is listed by no target")
        }
        if !files.isEmpty { changed = true }
        // Only a stale channel role was new: the publisher meant to change that channel.
        if !changed, let first = notTaken.first { throw first }

        var state = self
        state.root = root
        state.targets = targets
        state.delegated = delegated
        return AcceptedUpload(state: state, metadata: metadata, files: files, changed: changed, notTaken: notTaken)
    }

    static func isHostableRoleName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= maxRoleNameLength && !name.hasPrefix(".")
            && name.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_.".unicodeScalars.contains($0)) }
    }
}
