import Crypto
import Foundation
import Hummingbird
import Logging
import NIOCore
import PatchDelivery
import PatchPublishing
import ServerDefences

/// The release service: hosts channels and releases for one app, serves the signed files with
/// ETags, takes publisher operations, receives telemetry and shows per-release counts.
///
/// It holds no release key. A publisher signs patches and channel documents on its own machine
/// (`patchctl`) and uploads them in requests signed with its *publisher* key; the service checks
/// both signatures and serves the bytes unchanged. A compromised service can therefore withhold
/// or replay what was signed, not widen a rollout or ship code (devices refuse it).
///
/// Routes (public): `GET /channels/<channel>.json`, `GET /patches/<file>` (ETag = SHA-256 of the
/// signed content, `If-None-Match` answered 304), `POST /telemetry`, `GET /api/status`,
/// `GET /status` (HTML). Publisher (signed, `PublisherSignature`): `POST /api/patches` (a signed
/// patch file), `PUT /api/channels/<channel>` (a signed channel document), `GET /api/channels/<channel>`.
///
/// Every request body is read with a limit; everything from a request is untrusted until its
/// signature (publisher, then release key) is verified.
public struct ReleaseService: Sendable {
    public struct Configuration: @unchecked Sendable {
        public var appID: String
        /// Verifies patches and channel documents (the keys the apps trust).
        public var releaseKeys: TrustStore
        /// Authenticates publisher requests.
        public var publisherKeys: TrustStore
        public var maxPatchBytes = 4 << 20
        public var maxChannelBytes = 1 << 20
        public var maxTelemetryBytes = 256 << 10
        /// The TUF repository the service hosts (`RepositoryHosting.swift`): the root devices
        /// ship with (version 1, or any version the publisher's chain starts from), and the online
        /// snapshot and timestamp keys that root names. Without them the repository routes answer 404.
        public var trustedRoot: Data?
        public var onlineKeys: OnlineKeys?
        /// Largest upload (metadata and target files, base64 in JSON).
        public var maxUploadBytes = 32 << 20
        /// How often the background task looks at the timestamp's expiry (nil: a tenth of the
        /// timestamp's validity, at most a minute).
        public var renewalCheckInterval: TimeInterval?
        public var maxEventsPerBatch = 1000
        /// Connections, request heads, timeouts; the body limits per route come from the sizes
        /// above (`serverLimits`). The connection cap is lowered to fit the open-file limit.
        /// Telemetry: 30 batches at once per client address, then one every half second.
        public var limits = ServerLimits(maxConnections: 4096, rateLimits: [
            .init("POST", "/telemetry", perSecond: 2, burst: 30),
            // Uploads: verifying one costs signature checks over every file in it.
            .init("POST", "/apps/", perSecond: 0.5, burst: 10),
        ])
        /// The service's clock (publisher timestamps, telemetry hours).
        public var now: @Sendable () -> Date = { Date() }

        public init(appID: String, releaseKeys: TrustStore, publisherKeys: TrustStore) {
            self.appID = appID
            self.releaseKeys = releaseKeys
            self.publisherKeys = publisherKeys
        }

        /// `limits` with each route's body limit (any other route: `limits.defaultBodyLimit`),
        /// the connection cap fitted to the descriptors this process may open.
        public var serverLimits: ServerLimits {
            var limits = self.limits.fittingOpenFileLimit()
            limits.bodyLimits = [
                .init("POST", "/api/patches", maxBytes: maxPatchBytes),
                .init("PUT", "/api/", maxBytes: maxChannelBytes),
                .init("POST", "/telemetry", maxBytes: maxTelemetryBytes),
                .init("POST", "/apps/", maxBytes: maxUploadBytes),
            ] + limits.bodyLimits
            return limits
        }
    }

    public let store: ReleaseStore
    public let configuration: Configuration

    public init(store: ReleaseStore, configuration: Configuration) {
        self.store = store
        self.configuration = configuration
    }

    /// An application listening on `host:port` (0 picks a free port; `onRunning` gets the real one),
    /// defended as `configuration.serverLimits` says (`DefendedHTTP1Channel`).
    public func application(host: String = "127.0.0.1", port: Int = 8080, logger: Logger = Logger(label: "patchserver"),
                            onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        let limits = configuration.serverLimits
        let connections = ConnectionCap(limit: limits.maxConnections)
        return Application(router: router(), server: .defended(limits: limits, connections: connections, logger: logger),
                           configuration: .init(address: .hostname(host, port: port), serverName: "patchserver", backlog: 1024),
                           onServerRunning: { channel in
                               await Self.pauseAcceptingWhenOutOfDescriptors(channel, limits: limits, logger: logger)
                               await onRunning(channel.localAddress?.port ?? port)
                           }, logger: logger)
    }

    /// Puts `AcceptPause` in front of the listening channel's pipeline: without it, accept()
    /// failing with EMFILE would spin (and Hummingbird would stop accepting for good).
    private static func pauseAcceptingWhenOutOfDescriptors(_ channel: any Channel, limits: ServerLimits, logger: Logger) async {
        let delay = limits.acceptRetryDelay
        try? await channel.eventLoop.submit {
            let pause = AcceptPause(delay: .interval(delay)) { error in
                logger.warning("accept failed (\(error.description)): retrying in \(delay) s")
            }
            try channel.pipeline.syncOperations.addHandler(pause, position: .first)
        }.get()
    }

    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("channels/:file") { request, context in try await self.channelFile(request, context) }
        router.get("patches/**") { request, context in try await self.patchFile(request, context) }
        router.post("telemetry") { request, _ in try await self.telemetry(request) }
        router.get("api/status") { _, _ in try await self.statusJSON() }
        router.get("status") { _, _ in try await self.statusPage() }
        router.get("api/channels/:name") { _, context in try await self.currentChannel(try context.parameters.require("name")) }
        router.post("api/patches") { request, _ in try await self.uploadPatch(request) }
        router.put("api/channels/:name") { request, context in try await self.uploadChannel(request, name: try context.parameters.require("name")) }
        addRepositoryRoutes(to: router)
        router.get("revocations.json") { request, _ in
            guard let stored = try await self.store.revocationList() else { throw HTTPError(.notFound) }
            return Self.file(stored.data, digest: stored.digest, request: request, cacheControl: "no-cache")
        }
        router.put("api/revocations") { request, _ in try await self.uploadRevocations(request) }
        return router
    }

    // MARK: - Public files

    private func channelFile(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let file = try context.parameters.require("file")
        guard file.hasSuffix(".json"), let stored = try await store.channel(String(file.dropLast(5))) else { throw HTTPError(.notFound) }
        return Self.file(stored.data, digest: stored.digest, request: request, cacheControl: "no-cache")
    }

    private func patchFile(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let path = "patches/" + context.parameters.getCatchAll().joined(separator: "/")
        guard let stored = try await store.patch(path: path) else { throw HTTPError(.notFound) }
        // A patch path never changes content (the store refuses it), so it may be cached for good.
        return Self.file(stored.data, digest: stored.digest, request: request, cacheControl: "public, max-age=31536000, immutable")
    }

    static func file(_ data: Data, digest: String, request: Request, cacheControl: String) -> Response {
        let etag = "\"\(digest)\""
        var headers: HTTPFields = [.eTag: etag, .cacheControl: cacheControl]
        if let sent = request.headers[.ifNoneMatch], sent.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag }) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    // MARK: - Publisher

    /// Reads the body (bounded), then checks the publisher signature and the nonce, in that order.
    private func authenticated(_ request: Request, limit: Int) async throws -> Data {
        let body = Data((try await request.body.collect(upTo: limit)).readableBytesView)
        let verified: PublisherSignature.Verified
        do {
            verified = try PublisherSignature.verify(method: request.method.rawValue, path: request.uri.path, body: body,
                                                     header: { name in request.headers.first { $0.name.canonicalName == name.lowercased() }?.value },
                                                     publishers: configuration.publisherKeys, now: configuration.now())
        } catch let refusal as PublisherRefusal {
            throw HTTPError(.unauthorized, message: refusal.description)
        }
        let horizon = Int(configuration.now().timeIntervalSince1970 - 2 * PublisherSignature.maxSkew)
        guard try await store.useNonce(verified.nonce, keyID: verified.keyID, timestamp: verified.timestamp, forgetBefore: horizon) else {
            throw HTTPError(.conflict, message: PublisherRefusal.replayed.description)
        }
        return body
    }

    private func uploadPatch(_ request: Request) async throws -> Response {
        let body = try await authenticated(request, limit: configuration.maxPatchBytes)
        let patch: SignedPatch
        do { patch = try PatchVerifier(trustStore: configuration.releaseKeys).verify(patchFile: body) } catch {
            throw HTTPError(.unprocessableContent, message: "patch refused: \(error)")
        }
        let m = patch.manifest
        guard m.appID == configuration.appID || m.appID == "*" else {
            throw HTTPError(.unprocessableContent, message: "patch is for app '\(m.appID)', this service hosts '\(configuration.appID)'")
        }
        let path = "patches/\(m.patchID)-\(m.version).json"
        do { try await store.putPatch(path: path, data: body, digest: patch.digest) } catch let conflict as StoreConflict {
            throw HTTPError(.conflict, message: conflict.description)
        }
        return try Self.json(["path": path, "digest": patch.digest, "patchID": m.patchID, "version": String(m.version)], status: .created)
    }

    private func currentChannel(_ name: String) async throws -> Response {
        guard let stored = try await store.channel(name) else { throw HTTPError(.notFound, message: "no channel '\(name)'") }
        return Response(status: .ok, headers: [.contentType: "application/json", .eTag: "\"\(stored.digest)\""],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: stored.data)))
    }

    /// Checks, in this order: the publisher request; the document's key and signature; it is for
    /// this app and the channel in the path; every release names a stored patch with its digest;
    /// its sequence is higher than the stored one (decided by the store, atomically).
    private func uploadChannel(_ request: Request, name: String) async throws -> Response {
        let body = try await authenticated(request, limit: configuration.maxChannelBytes)
        let signed: SignedReleaseChannel
        do { signed = try PatchVerifier(trustStore: configuration.releaseKeys).verify(releaseChannelFile: body) } catch {
            throw HTTPError(.unprocessableContent, message: "channel refused: \(error)")
        }
        let c = signed.channel
        guard c.appID == configuration.appID else { throw HTTPError(.unprocessableContent, message: "channel is for app '\(c.appID)'") }
        guard c.channel == name else { throw HTTPError(.unprocessableContent, message: "document is for channel '\(c.channel)', not '\(name)'") }
        for release in c.releases {
            guard let stored = try await store.patch(path: release.file), stored.digest == release.digest else {
                throw HTTPError(.unprocessableContent, message: "release '\(release.releaseID)' names '\(release.file)' with digest \(release.digest), which this service doesn't hold")
            }
        }
        guard try await store.putChannel(StoredChannel(name: name, sequence: c.sequence, digest: signed.digest, data: body)) else {
            let current = try await store.channel(name)?.sequence ?? 0
            throw HTTPError(.conflict, message: "channel '\(name)' is at sequence \(current); #\(c.sequence) is not newer")
        }
        return try Self.json(["channel": name, "sequence": String(c.sequence), "digest": signed.digest], status: .ok)
    }

    /// A signed revocation list: verified with a release key, and newer than the stored one.
    private func uploadRevocations(_ request: Request) async throws -> Response {
        let body = try await authenticated(request, limit: configuration.maxChannelBytes)
        let signed: SignedRevocationList
        do { signed = try PatchVerifier(trustStore: configuration.releaseKeys).verify(revocationListFile: body) } catch {
            throw HTTPError(.unprocessableContent, message: "revocation list refused: \(error)")
        }
        let digest = signed.list.canonicalBytes.sha256HexDigest
        guard try await store.putRevocationList(sequence: signed.list.sequence, data: body, digest: digest) else {
            throw HTTPError(.conflict, message: "revocation list #\(signed.list.sequence) is not newer than the one held")
        }
        return try Self.json(["sequence": String(signed.list.sequence), "digest": digest], status: .ok)
    }

    // MARK: - Telemetry

    /// Accepts one batch into bounded counters: one per channel, release, kind and hour, for
    /// releases that exist in the channel, so what devices (or anyone) can make the service store
    /// is bounded by what publishers released. Checks, in this order: the body's size (413, before
    /// it's read, `RouteLimiter`, after the client's rate, 429); it parses (`malformed`); its event
    /// count (`too-many-events`); its app (`wrong-app`); its channel exists (`unknown-channel`);
    /// every event names a release in that channel (`unknown-release`). Any refusal refuses the
    /// whole batch and stores nothing. Event times are clamped to the last week (a device's clock
    /// decides nothing beyond its own counts).
    private func telemetry(_ request: Request) async throws -> Response {
        let body = try await request.body.collect(upTo: configuration.maxTelemetryBytes)
        let batch: TelemetryBatch
        do { batch = try JSONDecoder().decode(TelemetryBatch.self, from: Data(body.readableBytesView)) } catch {
            throw TelemetryRefusal(reason: .malformed, message: "telemetry batch does not parse")
        }
        guard batch.events.count <= configuration.maxEventsPerBatch, batch.dropped >= 0 else {
            throw TelemetryRefusal(reason: .tooManyEvents, message: "at most \(configuration.maxEventsPerBatch) events in a batch")
        }
        guard batch.appID == configuration.appID else {
            throw TelemetryRefusal(reason: .wrongApp, message: "this service hosts another app")
        }
        guard batch.channel.utf8.count <= 128, !batch.channel.contains("/"), let stored = try await store.channel(batch.channel),
              let document = try? SignedReleaseChannel(fileData: stored.data) else {
            throw TelemetryRefusal(reason: .unknownChannel, message: "no such channel")
        }
        let releases = Set(document.channel.releases.map(\.releaseID))
        guard batch.events.allSatisfy({ releases.contains($0.releaseID) }) else {
            throw TelemetryRefusal(reason: .unknownRelease, message: "an event names a release that is not in the channel")
        }
        let now = Int(configuration.now().timeIntervalSince1970)
        var counts: [String: TelemetryCount] = [:]
        func add(_ releaseID: String, _ kind: String, _ time: Int, _ n: Int) {
            let hour = min(max(time, now - 7 * 24 * 3600), now) / 3600 * 3600
            counts["\(releaseID)\n\(kind)\n\(hour)", default: TelemetryCount(channel: batch.channel, releaseID: releaseID, kind: kind, hour: hour, count: 0)].count += n
        }
        for event in batch.events { add(event.releaseID, event.kind.rawValue, event.time, 1) }
        if batch.dropped > 0 { add("-", "dropped", now, min(batch.dropped, 1_000_000)) }
        if !counts.isEmpty { try await store.addTelemetry(Array(counts.values)) }
        return Response(status: .accepted)
    }

    // MARK: - Status

    /// How far back the status's hourly timeline reaches (totals count everything).
    public static let timelineHours = 7 * 24

    /// Channels, their releases and the counts devices reported: totals and the last week's
    /// hourly counts, read as aggregates from the store.
    public func status() async throws -> [ChannelStatus] {
        let since = (Int(configuration.now().timeIntervalSince1970) / 3600 - Self.timelineHours) * 3600
        let totals = try await store.telemetryTotals()
        let timeline = try await store.telemetry(since: since)
        var byRelease: [String: [String: Int]] = [:]
        for c in totals { byRelease["\(c.channel)\n\(c.releaseID)", default: [:]][c.kind, default: 0] += c.count }
        let hours = Dictionary(grouping: timeline) { "\($0.channel)\n\($0.releaseID)" }
        return try await store.channels().compactMap { stored in
            guard let signed = try? SignedReleaseChannel(fileData: stored.data) else { return nil }
            return ChannelStatus(channel: stored.name, sequence: stored.sequence, releases: signed.channel.releases.map { r in
                let key = "\(stored.name)\n\(r.releaseID)"
                let t = byRelease[key] ?? [:]
                return ReleaseStatus(releaseID: r.releaseID, patchID: r.patchID, version: r.version, rollout: r.rollout,
                                     state: r.state.rawValue, applied: t["applied"] ?? 0, failed: t["failed"] ?? 0,
                                     reverted: t["reverted"] ?? 0, disabledByGuard: t["disabled-by-guard"] ?? 0,
                                     timeline: hours[key] ?? [])
            })
        }
    }

    private func statusJSON() async throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return Response(status: .ok, headers: [.contentType: "application/json"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: try encoder.encode(try await status()))))
    }

    private func statusPage() async throws -> Response {
        let html = StatusPage(appID: configuration.appID, channels: try await status(), generated: configuration.now()).html
        return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    static func json(_ object: [String: String], status: HTTPResponse.Status) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: try encoder.encode(object))))
    }
}


extension Data {
    /// SHA-256 as lowercase hex (the ETag of a stored file).
    var sha256HexDigest: String { SHA256.hash(data: self).map { String(format: "%02x", $0) }.joined() }
}
