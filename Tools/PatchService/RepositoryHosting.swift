import Foundation
import Hummingbird
import Logging
import NIOCore
import PatchFormat

/// The TUF repository the release service hosts for its app (docs/patch-delivery.md).
///
/// Devices (`Updater`) read, under `/apps/<app>/`: `metadata/<n>.root.json`,
/// `metadata/timestamp.json`, `metadata/<v>.snapshot.json`, `metadata/<v>.<role>.json`
/// (consistent snapshots) and `targets/<dir>/<sha256>.<name>`.
///
/// The publisher uploads what it signed offline (`POST /apps/<app>/upload`, a
/// `RepositoryUpload`): no password or request signature, the signatures on the metadata are
/// the authentication (`HostedRepository.accepting` says what is checked, in order). On each
/// accepted upload the service signs a new snapshot and timestamp with its online keys, and a
/// background task re-signs the timestamp before it expires (`keepTimestampFresh`). The answer
/// names the new versions and, as `not-taken`, any channel role version left out for expiring
/// too soon.
extension ReleaseService {
    func addRepositoryRoutes(to router: Router<BasicRequestContext>) {
        router.get("apps/:app/metadata/:file") { request, context in try await self.metadataFile(request, context) }
        router.get("apps/:app/targets/**") { request, context in try await self.targetFile(request, context) }
        router.post("apps/:app/upload") { request, context in try await self.upload(request, context) }
    }

    /// Stores the configured trusted root as the start of the chain, once; refuses a store whose
    /// chain starts from another root (a service pointed at another app's database).
    public func prepareRepository() async throws {
        let data = configuration.trustedRoot
        let root: Metadata<Root>
        do { root = try Metadata<Root>(data: data, name: "trusted root") } catch {
            throw UploadRefusal(.malformed, "the configured trusted root does not parse: \(error)")
        }
        let version = root.signed.common.version
        if let held = try await store.metadata(role: "root", version: version) {
            guard held == data else { throw UploadRefusal(.fork, "the store holds another root \(version) than the configured trusted root") }
            return
        }
        guard try await store.latestMetadata(role: "root") == nil else {
            throw UploadRefusal(.fork, "the store holds a root chain that does not contain the configured trusted root \(version)")
        }
        guard root.signed.usesConsistentSnapshots else {
            throw UploadRefusal(.unsupported, "the trusted root turns consistent snapshots off; the service serves versioned metadata only")
        }
        if !configuration.onlineKeys.canSign(for: root.signed) {
            throw UploadRefusal(.onlineKeysRemoved, "the trusted root does not name the online keys given as its snapshot and timestamp keys")
        }
        _ = try await store.commit(RepositoryCommit(metadata: [StoredMetadata(role: "root", version: version, data: data)], basedOnTimestamp: nil))
    }

    private func hostedApp(_ context: BasicRequestContext) throws {
        guard try context.parameters.require("app") == configuration.appID else { throw HTTPError(.notFound) }
    }

    // MARK: - Devices

    /// `timestamp.json` (never cached: it is what tells devices what is new), `<n>.root.json`,
    /// `<v>.<role>.json` (immutable: a version never changes content).
    private func metadataFile(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        try hostedApp(context)
        let file = try context.parameters.require("file")
        guard file.hasSuffix(".json"), file.utf8.count <= 200 else { throw HTTPError(.notFound) }
        if file == "timestamp.json" {
            guard let stored = try await store.latestMetadata(role: "timestamp") else { throw HTTPError(.notFound) }
            return Self.file(stored.data, digest: stored.data.sha256HexDigest, request: request, cacheControl: "no-cache")
        }
        let stem = file.dropLast(5)
        guard let dot = stem.firstIndex(of: "."), let version = Int64(stem[..<dot]), version > 0,
              let role = String(stem[stem.index(after: dot)...]).removingPercentEncoding,
              HostedRepository.isHostableRoleName(role), role != "timestamp",
              let data = try await store.metadata(role: role, version: version) else { throw HTTPError(.notFound) }
        return Self.file(data, digest: data.sha256HexDigest, request: request, cacheControl: "public, max-age=31536000, immutable")
    }

    /// `targets/<dir>/<sha256>.<name>`: a file by the hash in its name (consistent snapshots).
    private func targetFile(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        try hostedApp(context)
        guard let last = context.parameters.getCatchAll().last, let dot = last.firstIndex(of: ".") else { throw HTTPError(.notFound) }
        let hash = last[..<dot].lowercased()
        guard hash.utf8.count == 64, hash.allSatisfy(\.isHexDigit),
              let data = try await store.targetFile(sha256: hash) else { throw HTTPError(.notFound) }
        return Self.file(data, digest: hash, request: request, cacheControl: "public, max-age=31536000, immutable")
    }

    // MARK: - Publisher

    private func upload(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        try hostedApp(context)
        let body = Data((try await request.body.collect(upTo: configuration.maxUploadBytes)).readableBytesView)
        let upload: RepositoryUpload
        do { upload = try RepositoryUpload(data: body) } catch { throw UploadRefusal(.malformed, "\(error)") }
        let result = try await accept(upload)
        var answer = ["changed": String(result.changed)]
        if let timestamp = result.state.timestamp, let snapshot = result.state.snapshot {
            answer["timestamp"] = String(timestamp.version)
            answer["snapshot"] = String(snapshot.version)
        }
        answer["root"] = String(result.state.root.version)
        if !result.notTaken.isEmpty {
            answer["not-taken"] = result.notTaken.map(\.message).joined(separator: "; ")
        }
        return try Self.json(answer, status: .ok)
    }

    /// Checks and stores `upload`, then signs a new snapshot and timestamp. Throws `UploadRefusal`.
    public func accept(_ upload: RepositoryUpload) async throws -> AcceptedUpload {
        let online = configuration.onlineKeys
        guard let held = try await HostedRepository.load(from: store) else {
            throw UploadRefusal(.missing, "the service holds no trusted root (start it with one)")
        }
        let now = configuration.now()
        var accepted = try await held.accepting(upload, store: store, online: online, now: now,
                                                minimumValidity: configuration.minimumRoleValidity)
        guard accepted.changed else {
            accepted.state = held
            return accepted
        }
        let signed = try online.sign(&accepted.state, newSnapshot: true, now: now)
        let commit = RepositoryCommit(metadata: accepted.metadata + signed, targetFiles: accepted.files, basedOnTimestamp: held.timestamp?.version)
        guard try await store.commit(commit) else {
            throw UploadRefusal(.conflict, "another upload was accepted while this one was checked; upload again")
        }
        return accepted
    }

    // MARK: - Online signing

    /// Re-signs the timestamp (and the snapshot) once half its validity has passed; returns
    /// whether it did. Of several instances sharing one database, one commit wins each round.
    @discardableResult
    public func renewOnlineMetadata() async throws -> Bool {
        let online = configuration.onlineKeys
        guard var state = try await HostedRepository.load(from: store) else { return false }
        let now = configuration.now()
        let due = online.needsRenewal(state, now: now)
        guard due.timestamp else { return false }
        let before = state.timestamp?.version
        let signed = try online.sign(&state, newSnapshot: due.snapshot, now: now)
        return try await store.commit(RepositoryCommit(metadata: signed, basedOnTimestamp: before))
    }

    /// Runs until cancelled: checks the timestamp every `renewalCheckInterval` and re-signs it
    /// before it expires. A failure is logged and retried at the next check.
    public func keepTimestampFresh(logger: Logger = Logger(label: "patchserver")) async {
        let interval = configuration.renewalCheckInterval ?? min(max(configuration.onlineKeys.timestampExpiry / 10, 0.05), 60)
        while !Task.isCancelled {
            do { try await renewOnlineMetadata() } catch {
                logger.error("re-signing the timestamp failed: \(error)")
            }
            try? await Task.sleep(nanoseconds: UInt64(interval * 1e9))
        }
    }
}
