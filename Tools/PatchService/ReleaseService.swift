import Foundation
import Hummingbird
import Logging
import NIOCore
import PatchFormat
import PatchTelemetry
import ServerDefences

/// The release service: hosts the app's TUF repository (`RepositoryHosting.swift`), receives
/// device telemetry and shows per-release counts (`/status`).
///
/// It holds only the online snapshot and timestamp keys. A publisher signs root, targets and
/// the channel roles offline (`patchctl repo`) and uploads them; the service checks every
/// signature against the root it already trusts and serves the bytes unchanged. A compromised
/// service can therefore withhold what was signed or delay it (until the timestamp expires on
/// devices), never widen a rollout or ship code: devices verify every role themselves.
///
/// Routes: `GET /apps/<app>/metadata/…`, `GET /apps/<app>/targets/…`, `POST /apps/<app>/upload`,
/// `POST /telemetry`, `GET /api/status`, `GET /status` (HTML). Every request body is read with a
/// limit per route (`Configuration.serverLimits`); everything from a request is untrusted until
/// its signatures are verified.
public struct ReleaseService: Sendable {
    public struct Configuration: Sendable {
        public var appID: String
        /// The root devices ship with (the publisher's `record/root/1.root.json`, or the version
        /// its chain starts from here): what the first upload is verified against.
        public var trustedRoot: Data
        /// The online snapshot and timestamp keys that root names, and their expiry periods.
        public var onlineKeys: OnlineKeys
        /// Largest upload (metadata and target files, base64 in JSON).
        public var maxUploadBytes = 32 << 20
        public var maxTelemetryBytes = 256 << 10
        public var maxEventsPerBatch = 1000
        /// How often the background task looks at the timestamp's expiry (nil: a tenth of the
        /// timestamp's validity, at most a minute).
        public var renewalCheckInterval: TimeInterval?
        /// Connections, request heads, timeouts; the body limits per route come from the sizes
        /// above (`serverLimits`). The connection cap is lowered to fit the open-file limit.
        /// Telemetry: 30 batches at once per client address, then one every half second.
        public var limits = ServerLimits(maxConnections: 4096, rateLimits: [
            .init("POST", "/telemetry", perSecond: 2, burst: 30),
            // Uploads: verifying one costs signature checks over every file in it.
            .init("POST", "/apps/", perSecond: 0.5, burst: 10),
        ])
        /// The service's clock (expiry, telemetry hours).
        public var now: @Sendable () -> Date = { Date() }
        /// How long a new root, targets or channel role version must stay valid to be taken: a
        /// role that expires stops the devices that need it (`UploadCheck.swift`).
        public var minimumRoleValidity: TimeInterval = Self.defaultMinimumRoleValidity
        public static let defaultMinimumRoleValidity: TimeInterval = 86_400
        /// Roles expiring within this are flagged on the status (`/api/status`, `/status`).
        public var expiryWarning: TimeInterval = 7 * 86_400

        public init(appID: String, trustedRoot: Data, onlineKeys: OnlineKeys) {
            self.appID = appID
            self.trustedRoot = trustedRoot
            self.onlineKeys = onlineKeys
        }

        /// `limits` with each route's body limit (any other route: `limits.defaultBodyLimit`),
        /// the connection cap fitted to the descriptors this process may open.
        public var serverLimits: ServerLimits {
            var limits = self.limits.fittingOpenFileLimit()
            limits.bodyLimits = [
                .init("POST", "/apps/", maxBytes: maxUploadBytes),
                .init("POST", "/telemetry", maxBytes: maxTelemetryBytes),
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
        addRepositoryRoutes(to: router)
        router.post("telemetry") { request, _ in try await self.telemetry(request) }
        router.get("api/status") { _, _ in try await self.statusJSON() }
        router.get("status") { _, _ in try await self.statusPage() }
        return router
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

    // MARK: - Telemetry

    /// Accepts one batch into bounded counters: one per channel, release, kind and hour, for
    /// releases that exist in the channel (the release names its channel role lists), so what
    /// devices (or anyone) can make the service store is bounded by what publishers released. Checks, in this order: the body's size (413, before
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
        guard batch.channel.utf8.count <= 128, !batch.channel.contains("/"), let hosted = try await HostedRepository.load(from: store),
              hosted.delegated[batch.channel] != nil else {
            throw TelemetryRefusal(reason: .unknownChannel, message: "no such channel")
        }
        let releases = Set(hosted.releases(in: batch.channel).map(\.name))
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
        guard let hosted = try await HostedRepository.load(from: store) else { return [] }
        let order = (hosted.targets?.signed.delegations?.roles ?? []).map(\.name).filter { hosted.delegated[$0] != nil }
        let expiries = hosted.expiries(now: configuration.now(), warningWindow: configuration.expiryWarning)
        return order.map { channel in
            let role = hosted.delegated[channel]!
            return ChannelStatus(channel: channel, version: Int(role.version), expires: MetadataDate.format(role.signed.common.expires),
                                 expiryWarning: expiries.first { $0.role == channel }?.warning,
                                 releases: hosted.releases(in: channel).map { name, _, release in
                let key = "\(channel)\n\(name)"
                let t = byRelease[key] ?? [:]
                return ReleaseStatus(releaseID: name, patchID: release?.patchID ?? "", version: release?.version ?? 0, rollout: release?.rollout ?? 0,
                                     state: release.map { $0.enabled ? "enabled" : "disabled" } ?? "no release metadata",
                                     applied: t["applied"] ?? 0, failed: t["failed"] ?? 0,
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
        let warnings = try await HostedRepository.load(from: store)?
            .expiries(now: configuration.now(), warningWindow: configuration.expiryWarning).filter { $0.state != .valid } ?? []
        let html = StatusPage(appID: configuration.appID, channels: try await status(), expiryWarnings: warnings, generated: configuration.now()).html
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
    var sha256HexDigest: String { HashCheck.digest("sha256", of: self)! }
}
