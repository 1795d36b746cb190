import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PatchEngine
import PatchFormat
import PatchUpdater
import PatchSupport

/// The device side of the live QA loop (`patchctl dev`): holds a server-sent-events connection to
/// the development server and, each time it announces a version, refreshes the development
/// repository the server hosts through the same TUF client as releases (`Updater`: every
/// signature, version, expiry, length and hash checked, every download bounded) and applies the
/// version live, in the running process — the previous development version reverted first, and
/// brought back when the new one fails (`ScriptSwap`, as `PatchClient` applies releases), so a
/// failed save never leaves a half-applied version. The event stream carries nothing trusted:
/// only the number of the version to look for. Every outcome, later runtime errors in patched
/// methods and `console.log` lines go back to the server as `DevReport`s. A version is checked
/// with the release rule devices on a release channel apply (`PatchRelease.exclusion`: app,
/// enabled, app and OS versions, models, attributes, rollout).
///
///     var config = DevelopmentSession.Configuration(
///         serverURL: URL(string: "http://127.0.0.1:8765/")!, deviceName: "pixel-qa",
///         developmentRoot: devRootFile,      // `patchctl dev` writes it (dev-root.json)
///         appID: "com.example.shop", appVersion: "1.4.0")
///     config.device = DeviceProfile(deviceID: "pixel-qa", osVersion: os, model: model)  // optional
///     let session = try DevelopmentSession(configuration: config)   // .main applies by default
///     session.start()
///
/// Only a development root opens a session: one whose roles trust development keys only
/// (`Root.firstRoleTrustingReleaseKey`), checked at start and after every refresh (a root
/// rotation can't swap it for a release root); a release root is refused with
/// `StartError.notDevelopmentRoot`, as `PatchClient` refuses a development root. Trusted
/// metadata lives in `stateDirectory` (by default a temporary folder removed with the session),
/// so an older version replayed during the session is refused. The connection is re-opened
/// after the server or the network goes away, with a back-off that doubles up to
/// `reconnectDelay.upperBound`; the server announces the current version on every connect.
public final class DevelopmentSession: @unchecked Sendable {
    public struct Configuration {
        /// The development server (`patchctl dev` prints it).
        public var serverURL: URL
        /// Shown next to every report in `patchctl dev` (letters, digits, `.`, `_`, `-`; up to 64).
        public var deviceName: String
        /// The development repository's root metadata (`dev-root.json` in `patchctl dev`'s key folder).
        public var developmentRoot: Data
        public var appID: String
        public var appVersion: String
        /// What the release rule (`PatchRelease.exclusion`, the one a `PatchClient` applies) checks
        /// about this device besides the app: OS version, model, attributes, the rollout bucket's
        /// id. Nil: only the device name as id, so a version naming OS versions or models is refused.
        public var device: DeviceProfile?
        /// Where versions are applied and reverted: the thread that owns the engine (main by default).
        public var queue: DispatchQueue = .main
        /// A version whose scripts are larger in all is refused before anything is downloaded.
        public var maxPatchBytes = 1 << 20
        /// One refresh and download of a version, start to end.
        public var refreshDeadline: TimeInterval = 15
        /// After a refresh that changed nothing (refused, or the live version again), the next
        /// one waits this long: a server announcing a number every millisecond gets a few
        /// refreshes a second, not a storm. A refresh that applies a version (or fails one) is
        /// followed by none, so saves in a row are not slowed.
        public var refreshIntervalAfterNoChange: TimeInterval = 0.5
        /// Trusted metadata and downloaded scripts; nil: a temporary folder of the session's own.
        public var stateDirectory: URL?
        /// The first and the longest wait before re-connecting.
        public var reconnectDelay: ClosedRange<TimeInterval> = 0.1...5
        /// With no byte for this long (the server sends a heartbeat every few seconds), the
        /// connection is taken as dead and re-opened.
        public var silenceTimeout: TimeInterval = 15
        /// Reports waiting to be sent, at most; older log lines are dropped first (and counted).
        public var maxQueuedReports = 256
        /// Reports runtime errors (`PatchEngine.errorHandler`) and `console.log` lines
        /// (`PatchEngine.logHandler`); the handlers set before are still called.
        public var reportsEngineOutput = true

        public init(serverURL: URL, deviceName: String, developmentRoot: Data, appID: String, appVersion: String) {
            self.serverURL = serverURL
            self.deviceName = deviceName
            self.developmentRoot = developmentRoot
            self.appID = appID
            self.appVersion = appVersion
        }
    }

    /// Why a session can't be opened.
    public enum StartError: Error, Equatable, CustomStringConvertible {
        /// The root trusts a key that is not a development key for `role`: a release root.
        case notDevelopmentRoot(role: String)
        case unreadableRoot(String)
        case invalidDeviceName(String)
        case invalidAppVersion(String)
        case unsupportedURL(String)
        case storage(String)

        public var description: String {
            switch self {
            case .notDevelopmentRoot(let role):
                return "the root trusts a release key for \(role): only a development root (patchctl dev's dev-root.json) opens a development session"
            case .unreadableRoot(let why):
                return "development root: \(why)"
            case .invalidDeviceName(let name):
                return "device name '\(LogSafe.escape(name))' must be 1-64 letters, digits, '.', '_' or '-'"
            case .invalidAppVersion(let why):
                return "invalid app version: \(why)"
            case .unsupportedURL(let url):
                return "development server URL \(LogSafe.escape(url)) is not http:// or https://"
            case .storage(let why):
                return "development session state: \(why)"
            }
        }
    }

    /// Why an announced version was not applied (the live one stays).
    public enum Refusal: Error, Equatable, CustomStringConvertible {
        /// The refresh of the development repository failed: a TUF check (signature, rollback,
        /// expiry, length, hash), the network or the deadline. Says which.
        case metadata(String)
        /// The verified metadata trusts a key that is not a development key for `role`.
        case releaseKey(role: String)
        /// The stream announced a version the verified metadata doesn't list (`listed`: what it lists).
        case notListed(announced: Int, listed: Int?)
        /// Not newer than the live version, and other content: a replay.
        case versionNotNewer(version: Int, live: Int)
        /// A script's download or content failed.
        case target(path: String, reason: String)
        /// The version's release metadata doesn't fit this app, or is inconsistent or too large.
        case release(String)
        /// The announcement is not a version number.
        case malformedAnnouncement

        public var description: String {
            switch self {
            case .metadata(let why): return "development metadata refused: \(LogSafe.escape(why))"
            case .releaseKey(let role): return "development metadata trusts a release key for \(role)"
            case let .notListed(announced, listed):
                return "version \(announced) was announced but the verified metadata lists " + (listed.map { "version \($0)" } ?? "no version")
            case let .versionNotNewer(version, live): return "version \(version) is not newer than the live version \(live)"
            case let .target(path, reason): return "\(LogSafe.escape(path)): \(LogSafe.escape(reason))"
            case .release(let why): return LogSafe.escape(why)
            case .malformedAnnouncement: return "the server announced something that is not a version number"
            }
        }
    }

    /// What happened, for the app's own log (the server hears about versions through reports).
    public enum Event: Equatable, CustomStringConvertible {
        case connected
        case disconnected(String)
        case applied(version: Int)
        /// The version failed and was rolled back; `restored` is the version live again, if any.
        case failed(version: Int, message: String, restored: Int?)
        case refused(Refusal)

        public var description: String {
            switch self {
            case .connected: return "development server connected"
            case .disconnected(let why): return "development server disconnected: \(why)"
            case .applied(let version): return "development version \(version) applied"
            case let .failed(version, message, restored):
                return "development version \(version) failed (\(message)); " + (restored.map { "version \($0) is live again" } ?? "no development version is live")
            case .refused(let refusal): return "development version refused: \(refusal)"
            }
        }
    }

    /// Paths on the development server (kept in step with `PatchDevServer.DevChannel` and `patchctl dev`).
    public static let eventsPath = "_dev/events"
    public static let reportPath = "_dev/report"
    public static let pongPath = "_dev/pong"
    /// The development repository (`metadata/`, `targets/`), served as static files.
    public static let repositoryPath = "dev-repository/"
    /// The channel role the versions are listed in (`DevelopmentRepository.channel`).
    public static let channel = "development"
    /// The stream's event announcing a version; its data is the version number.
    public static let versionEvent = "version"

    public let configuration: Configuration
    private let applier: PatchApplying
    private let transport: Transport
    private let appVersion: SemanticVersion
    private let onEvent: ((Event) -> Void)?
    private let now: @Sendable () -> Date
    /// The connection's life (a `generation` per start and stop, so a late callback of an old
    /// connection changes nothing), what was announced, and what runs: one lock for all of it.
    private struct State {
        var running = false
        var generation = 0
        var stream: EventStream?
        var delay: TimeInterval
        var reconnectTimer: DispatchSourceTimer?
        /// The highest version announced and not yet looked for.
        var announced: Int?
        /// The live version and its content digest.
        var liveVersion: Int?
        var liveDigest: String?
        /// The version being evaluated, else the live one: what a `console.log` line belongs to.
        var evaluatingVersion: Int?
        /// Each applied script's preprocessed form by engine name, to map a `console.log` position
        /// (reported in the preprocessed text) back to the source the developer is editing.
        var sourceMaps: [String: Preprocessed] = [:]
    }
    private let state: LockedValue<State>
    private let control = DispatchQueue(label: "PatchDelivery.DevelopmentSession")
    /// Refreshes and downloads, one at a time.
    private let work = DispatchQueue(label: "PatchDelivery.DevelopmentSession.work")
    /// The earliest the next refresh may start (`refreshIntervalAfterNoChange`; on `work`).
    private var nextRefresh = Date.distantPast
    private let reporter: DevReportSender
    private var previousErrorHandler: ((PatchError) -> Void)?
    private var previousLogHandler: ((String) -> Void)?
    private let stateDirectory: URL
    private let ownsStateDirectory: Bool

    /// Touched on `configuration.queue` only.
    private var live: (version: Int, digest: String, scripts: LiveScripts)?
    private var currentVersion: Int? { state.withLock { state in state.liveVersion } }
    /// The version being evaluated, else the live one: what a `console.log` line belongs to.
    private var logVersion: Int? { state.withLock { state in state.evaluatingVersion ?? state.liveVersion } }
    private static let maxSourceMaps = 64

    /// - Parameters:
    ///   - applier: where scripts go (`PatchEngine` by default).
    ///   - transport: how the development repository is read (bounded, with deadlines).
    ///   - now: the clock for expiry checks.
    ///   - onEvent: called on `configuration.queue`, or the session's own queues for connection
    ///     events and refusals.
    public init(configuration: Configuration, applier: PatchApplying = EnginePatchApplier(),
                transport: Transport = HTTPTransport.shared,
                now: @escaping @Sendable () -> Date = { Date() }, onEvent: ((Event) -> Void)? = nil) throws {
        let root: Metadata<Root>
        do { root = try Metadata<Root>(data: configuration.developmentRoot, name: "root") } catch {
            throw StartError.unreadableRoot("\(error)")
        }
        if let role = root.signed.firstRoleTrustingReleaseKey { throw StartError.notDevelopmentRoot(role: role) }
        let name = configuration.deviceName
        guard (1...64).contains(name.count), name.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0)) }) else {
            throw StartError.invalidDeviceName(name)
        }
        do { appVersion = try SemanticVersion(parsing: configuration.appVersion) } catch {
            throw StartError.invalidAppVersion("\(error)")
        }
        guard let scheme = configuration.serverURL.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw StartError.unsupportedURL(configuration.serverURL.absoluteString)
        }
        ownsStateDirectory = configuration.stateDirectory == nil
        stateDirectory = configuration.stateDirectory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("patchengine-dev-\(UUID().uuidString)")
        do {
            let metadata = stateDirectory.appendingPathComponent("metadata")
            for folder in [metadata, stateDirectory.appendingPathComponent("targets")] {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            }
            _ = try RootAnchor.anchor(shippedRoot: configuration.developmentRoot, metadataDirectory: metadata)
        } catch {
            throw StartError.storage("\(error)")
        }
        self.configuration = configuration
        self.applier = applier
        self.transport = transport
        self.now = now
        self.onEvent = onEvent
        state = LockedValue(State(delay: configuration.reconnectDelay.lowerBound))
        self.reporter = DevReportSender(baseURL: Self.directoryURL(configuration.serverURL), device: name,
                                        maxQueued: configuration.maxQueuedReports, transport: transport)
    }

    deinit {
        stop()
        if ownsStateDirectory { try? FileManager.default.removeItem(at: stateDirectory) }
    }

    /// The development version live now (nil for none).
    public var liveDevelopmentVersion: Int? { currentVersion }

    /// Connects (and keeps re-connecting until `stop()`); returns at once.
    public func start() {
        let begin: Bool = state.withLock { state in
            guard !state.running else { return false }
            state.running = true
            state.generation += 1
            return true
        }
        guard begin else { return }
        reporter.begin()
        if configuration.reportsEngineOutput { captureEngineOutput() }
        control.async { self.connect() }
    }

    /// Disconnects and stops re-connecting. The live development version stays applied; call
    /// `revert()` to remove it.
    public func stop() {
        let (wasRunning, stream): (Bool, EventStream?) = state.withLock { state in
            guard state.running else { return (false, nil) }
            state.running = false
            state.generation += 1
            state.reconnectTimer?.cancel()
            state.reconnectTimer = nil
            defer { state.stream = nil }
            return (true, state.stream)
        }
        guard wasRunning else { return }
        stream?.cancel()
        if configuration.reportsEngineOutput { releaseEngineOutput() }
        reporter.stop()
    }

    /// Reverts the live development version. Call it on `configuration.queue`.
    public func revert() {
        guard let live else { return }
        _ = ScriptSwap.revert(live.scripts, applier: applier)
        self.live = nil
        state.withLock { state in state.liveVersion = nil; state.liveDigest = nil }
    }

    // MARK: - Connection

    private static func directoryURL(_ url: URL) -> URL {
        url.absoluteString.hasSuffix("/") ? url : URL(string: url.absoluteString + "/")!
    }

    private func connect() {
        let current: Int? = state.withLock { state in state.running ? state.generation : nil }
        guard let current else { return }
        var components = URLComponents(url: Self.directoryURL(configuration.serverURL).appendingPathComponent(Self.eventsPath),
                                       resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "device", value: configuration.deviceName)]
        let stream = EventStream(url: components.url!, transport: transport, maxEventBytes: 4096,
                                 silenceTimeout: configuration.silenceTimeout,
                                 onOpen: { [weak self] in self?.opened(current) },
                                 onEvent: { [weak self] name, data in self?.received(name, data) },
                                 onClose: { [weak self] why in self?.closed(current, why) })
        let keep = state.withLock { state -> Bool in
            guard state.running, state.generation == current else { return false }
            state.stream = stream
            return true
        }
        if keep { stream.start() }
    }

    private func opened(_ current: Int) {
        state.withLock { state in if state.generation == current { state.delay = configuration.reconnectDelay.lowerBound } }
        // Reports wait for the stream's session event (`received`).
        control.async { self.onEvent?(.connected) }
    }

    private func closed(_ current: Int, _ why: String) {
        let wait: TimeInterval? = state.withLock { state in
            guard state.running, state.generation == current else { return nil }
            state.stream = nil
            let wait = state.delay
            state.delay = min(state.delay * 2, configuration.reconnectDelay.upperBound)
            return wait
        }
        guard let wait else { return }
        reporter.pause()
        control.async { self.onEvent?(.disconnected(why)) }
        let timer = DispatchSource.makeTimerSource(queue: control)
        timer.schedule(deadline: .now() + wait)
        timer.setEventHandler { [weak self] in self?.connect() }
        state.withLock { state in state.reconnectTimer?.cancel(); state.reconnectTimer = timer }
        timer.resume()
    }

    private func received(_ name: String, _ data: String) {
        switch name {
        case "session":
            // This connection's token: reports are accepted only with it (and credited to this device).
            reporter.resume(session: data)
            return
        case "ping":
            // Proof that this device reads its stream; a stream that doesn't answer is closed.
            reporter.pong(data)
            return
        case Self.versionEvent:
            break
        default:
            return
        }
        guard data.utf8.count <= 10, let version = Int(data), version >= 1 else {
            return refuse(.malformedAnnouncement, version: nil)
        }
        let idle: Bool = state.withLock { state in
            defer { state.announced = max(state.announced ?? 0, version) }
            return state.announced == nil
        }
        if idle { work.async { self.lookForAnnouncedVersions() } }
    }

    // MARK: - Refreshing (on `work`)

    /// A version as the verified metadata lists it, with its scripts downloaded and checked.
    private struct FetchedVersion {
        var version: Int
        var digest: String
        var scripts: ScriptSet
    }

    private func lookForAnnouncedVersions() {
        while let version = state.withLock({ state -> Int? in defer { state.announced = nil }; return state.announced }) {
            // Announcements that arrive meanwhile are merged into one (the highest).
            let wait = nextRefresh.timeIntervalSinceNow
            if wait > 0 { Thread.sleep(forTimeInterval: wait) }
            nextRefresh = Date().addingTimeInterval(configuration.refreshIntervalAfterNoChange)
            let known = state.withLock { state in (version: state.liveVersion, digest: state.liveDigest) }
            let outcome = BlockingWait.run(until: Date().addingTimeInterval(configuration.refreshDeadline)) { [self] in
                await fetch(announced: version, live: known)
            } ?? .failure(.metadata("no answer within \(configuration.refreshDeadline) s"))
            switch outcome {
            case .failure(let refusal): refuse(refusal, version: version)
            case .success(nil): reporter.send(DevReport(kind: .applied, version: known.version, message: "already live"))
            case .success(let fetched?):
                configuration.queue.sync { apply(fetched) }
                nextRefresh = .distantPast
            }
        }
    }

    /// Refreshes the development repository (`Updater`: every TUF check) and downloads the
    /// scripts of the version it lists. Nil: the live version is what it lists.
    private func fetch(announced: Int, live: (version: Int?, digest: String?)) async -> Result<FetchedVersion?, Refusal> {
        let base = Self.directoryURL(configuration.serverURL).appendingPathComponent(Self.repositoryPath)
        var config = UpdaterConfiguration(metadataDirectory: stateDirectory.appendingPathComponent("metadata"),
                                          metadataBaseURL: base.appendingPathComponent("metadata/"),
                                          targetBaseURL: base.appendingPathComponent("targets/"))
        config.downloadTimeout = configuration.refreshDeadline
        config.clock = now
        let updater = Updater(configuration: config, transport: transport)
        let targets: [ResolvedTarget]
        do {
            try await updater.refresh()
            guard let trusted = await updater.trustedMetadata else { return .failure(.metadata("nothing verified")) }
            // A development root stays one: a rotation to release keys is refused, as are release
            // keys delegated the channel.
            if let role = trusted.roleTrustingKeys(ofOtherKindThan: true, channel: Self.channel) {
                return .failure(.releaseKey(role: role))
            }
            targets = try await updater.targets(ofRole: Self.channel) ?? []
        } catch {
            return .failure(.metadata("\(error)"))
        }
        var releases: [(target: ResolvedTarget, release: PatchRelease)] = []
        for target in targets {
            do {
                guard let release = try PatchRelease(custom: target.file.custom) else {
                    return .failure(.release("\(target.path) carries no patchengine release"))
                }
                releases.append((target, release))
            } catch {
                return .failure(.release("\(target.path): \(error)"))
            }
        }
        let versions = Set(releases.map(\.release.version)), patchIDs = Set(releases.map(\.release.patchID))
        guard versions.count <= 1, patchIDs.count <= 1 else {
            return .failure(.release("the development channel mixes versions or patch ids"))
        }
        guard let version = versions.first else { return .failure(.notListed(announced: announced, listed: nil)) }
        // The announcement is only a hint (announcements merge into the highest, and a flood's can
        // arrive after a real save's): a version the verified metadata lists that is newer than
        // the live one is applied whatever was announced; a higher number with nothing newer
        // listed is the server's word against its metadata, refused.
        if version < announced, live.version.map({ version <= $0 }) ?? false {
            return .failure(.notListed(announced: announced, listed: version))
        }
        let digest = Self.digest(targets)
        if version == live.version, digest == live.digest { return .success(nil) }
        if let current = live.version, version <= current { return .failure(.versionNotNewer(version: version, live: current)) }
        // The release rule devices on a release channel apply, every script of the version
        // (the crash-loop guard and superseding are release-channel matters: one version is listed here).
        let device = configuration.device ?? DeviceProfile(deviceID: configuration.deviceName)
        for (target, release) in releases {
            if let exclusion = release.exclusion(appID: configuration.appID, appVersion: appVersion, device: device, releaseID: target.path) {
                return .failure(.release("version \(version) is not for this device: \(explain(exclusion, release, device)) (\(target.path))"))
            }
        }
        // Saturating: signed lengths can be anything up to Int64.max, and their sum must not trap.
        let total = targets.reduce(Int64(0)) { sum, target in
            let (added, overflow) = sum.addingReportingOverflow(target.file.length)
            return overflow ? .max : added
        }
        guard total <= Int64(configuration.maxPatchBytes) else {
            let size = total == .max ? "over \(Int64.max)" : "\(total)"
            return .failure(.release("version \(version) is \(size) bytes, more than \(configuration.maxPatchBytes)"))
        }
        var scripts: [ScriptSet.Script] = [], bundle: [String: String] = [:]
        let patchID = patchIDs.first ?? "dev"
        for target in targets.sorted(by: { $0.path < $1.path }) {
            let source: String
            do {
                let file = try await updater.download(target, to: stateDirectory.appendingPathComponent("targets"))
                guard let data = try BoundedFile.contents(of: file, limit: target.file.length),
                      (try? target.file.verify(data, what: target.path)) != nil,
                      let text = String(data: data, encoding: .utf8) else {
                    return .failure(.target(path: target.path, reason: "stored copy changed or is not UTF-8"))
                }
                source = text
            } catch {
                return .failure(.target(path: target.path, reason: "\(error)"))
            }
            let name = String(target.path.dropFirst(Self.channel.count + 1))
            scripts.append(.init(name: "\(patchID)@\(version)/\(name)", file: name, source: source))
            bundle[name] = source
        }
        return .success(FetchedVersion(version: version, digest: digest, scripts: ScriptSet(scripts: scripts, bundle: bundle)))
    }

    /// Which of the release's conditions the device fails, in words for the QA console.
    private func explain(_ exclusion: DeviceExclusion, _ release: PatchRelease, _ device: DeviceProfile) -> String {
        switch exclusion {
        case .otherApp: return "it is for app \(release.app), not \(configuration.appID)"
        case .disabled: return "it is disabled"
        case .outsideRollout: return "outside its rollout of \(Double(release.rollout) / 100) %"
        case .notTargeted:
            var wants: [String] = []
            if let range = release.appVersions { wants.append("app versions \(range) (this app: \(configuration.appVersion))") }
            if let range = release.osVersions { wants.append("OS versions \(range) (this device: \(device.osVersion.map { "\($0)" } ?? "unknown"))") }
            if let models = release.models { wants.append("models \(models.joined(separator: ", ")) (this device: \(device.model ?? "unknown"))") }
            if let attributes = release.attributes, !attributes.isEmpty { wants.append("attributes \(attributes.keys.sorted().joined(separator: ", "))") }
            return "it is for " + wants.joined(separator: "; ")
        default: return exclusion.rawValue
        }
    }

    /// Identifies a version's content: its scripts' paths and hashes.
    private static func digest(_ targets: [ResolvedTarget]) -> String {
        targets.sorted { $0.path < $1.path }
            .map { "\($0.path)=\($0.file.hashes["sha256"] ?? $0.file.hashes.sorted { $0.key < $1.key }.first?.value ?? "")" }
            .joined(separator: ";")
    }

    private func refuse(_ refusal: Refusal, version: Int?) {
        reporter.send(DevReport(kind: .refused, version: version, message: refusal.description))
        onEvent?(.refused(refusal))
    }

    // MARK: - Applying (on configuration.queue)

    private func apply(_ fetched: FetchedVersion) {
        // Checked again here: `live` is what this queue applied.
        if let live, live.digest == fetched.digest {
            reporter.send(DevReport(kind: .applied, version: live.version, message: "already live"))
            return
        }
        if let live, fetched.version <= live.version {
            return refuse(.versionNotNewer(version: fetched.version, live: live.version), version: fetched.version)
        }
        let version = fetched.version
        state.withLock { state in state.evaluatingVersion = version }
        let outcome = ScriptSwap.replace(live?.scripts, with: fetched.scripts, applier: applier) { [self] script in
            let map = Preprocessor.prepare(script.source)   // what the engine runs, check points included
            state.withLock { state in
                if state.sourceMaps.count >= Self.maxSourceMaps { state.sourceMaps.removeAll() }
                state.sourceMaps[script.name] = map
            }
        }
        state.withLock { state in state.evaluatingVersion = nil }
        switch outcome {
        case .applied(let scripts):
            live = (version, fetched.digest, scripts)
            state.withLock { state in state.liveVersion = version; state.liveDigest = fetched.digest }
            reporter.send(DevReport(kind: .applied, version: version,
                                    message: "\(scripts.names.count) script\(scripts.names.count == 1 ? "" : "s")"))
            onEvent?(.applied(version: version))
        case let .failed(error, file, restored):
            // The new version is rolled back and the one it replaced (if any) is live again, as it was.
            let report = (error as? PatchError).map { DevReport($0, version: version) }
                ?? DevReport(kind: .evaluationError, version: version, message: "\(error)", script: file)
            reporter.send(report)
            let previous = live
            live = nil
            if let previous, let restored { live = (previous.version, previous.digest, restored) }
            state.withLock { state in state.liveVersion = live?.version; state.liveDigest = live?.digest }
            onEvent?(.failed(version: version, message: "rolled back", restored: live?.version))
        }
    }

    private func captureEngineOutput() {
        previousErrorHandler = PatchEngine.errorHandler
        previousLogHandler = PatchEngine.logHandler
        let reporter = self.reporter
        let previousError = previousErrorHandler, previousLog = previousLogHandler
        PatchEngine.errorHandler = { error in
            reporter.send(DevReport(error, version: nil))
            if let previousError { previousError(error) } else { previousLog?(error.description) }
        }
        PatchEngine.logHandler = { [weak self] raw in
            let (script, line, column, text) = DevConsoleLocation.split(raw)
            if let script, let line, let column {
                let (file, version) = DevReport.split(engineName: script)
                let original = self?.state.withLock { $0.sourceMaps[script] }?.originalPosition(line: line, column: column)
                    ?? (line: line, column: column)
                reporter.send(DevReport(kind: .log, version: version ?? self?.logVersion, message: text,
                                        script: file, line: original.line, column: original.column), droppable: true)
            } else {
                reporter.send(DevReport(kind: .log, version: self?.logVersion, message: text), droppable: true)
            }
            if let previousLog { previousLog(text) } else {
                FileHandle.standardError.write(Data(("PatchEngine: " + text + "\n").utf8))
            }
        }
        configuration.queue.async { DevConsoleLocation.set(on: true) }
    }

    private func releaseEngineOutput() {
        configuration.queue.async { DevConsoleLocation.set(on: false) }
        PatchEngine.errorHandler = previousErrorHandler
        PatchEngine.logHandler = previousLogHandler
    }
}
