import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PatchEngine

/// The device side of the live QA loop (`patchctl dev`): holds a server-sent-events connection to
/// the development server, and applies each development version it receives, live, in the
/// running process — verified like any patch (`PatchVerifier`, development keys only), the
/// previous development version reverted first, and the previous one brought back when the new
/// one fails, so a failed save never leaves a half-applied version. Every outcome, later runtime
/// errors in patched methods and `console.log` lines go back to the server as `DevReport`s.
///
///     var config = DevelopmentSession.Configuration(
///         serverURL: URL(string: "http://127.0.0.1:8765/")!, deviceName: "pixel-qa",
///         trustStore: TrustStore(keys: [try DevelopmentKey.trustedKey(fileData: devPublicKeyFile)]),
///         appID: "com.example.shop", appVersion: "1.4.0")
///     let session = try DevelopmentSession(configuration: config)   // .main applies by default
///     session.start()
///
/// Only a build that holds a development public key can open a session: a trust store without one
/// (a production configuration) is refused with `StartError.noDevelopmentKey`. Nothing is cached
/// or persisted: a development version lives until the process ends or the session stops.
/// The connection is re-opened after the server or the network goes away, with a back-off that
/// doubles up to `reconnectDelay.upperBound`; the server sends the current version on every connect.
public final class DevelopmentSession: @unchecked Sendable {
    public struct Configuration {
        /// The development server (`patchctl dev` prints it).
        public var serverURL: URL
        /// Shown next to every report in `patchctl dev` (letters, digits, `.`, `_`, `-`; up to 64).
        public var deviceName: String
        /// Must hold a development key (`DevelopmentKey.trustedKey(fileData:)`).
        public var trustStore: TrustStore
        public var appID: String
        public var appVersion: String
        /// Where versions are applied and reverted: the thread that owns the engine (main by default).
        public var queue: DispatchQueue = .main
        /// Larger versions are refused (the stream is cut and re-opened).
        public var maxPatchBytes = 1 << 20
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

        public init(serverURL: URL, deviceName: String, trustStore: TrustStore, appID: String, appVersion: String) {
            self.serverURL = serverURL
            self.deviceName = deviceName
            self.trustStore = trustStore
            self.appID = appID
            self.appVersion = appVersion
        }
    }

    /// Why a session can't be opened.
    public enum StartError: Error, Equatable, CustomStringConvertible {
        /// The trust store holds no development key: this is a production configuration.
        case noDevelopmentKey
        case invalidDeviceName(String)
        case invalidAppVersion(String)
        case unsupportedURL(String)

        public var description: String {
            switch self {
            case .noDevelopmentKey:
                return "no development key in the trust store: a production configuration can't open a development session"
            case .invalidDeviceName(let name):
                return "device name '\(LogSafe.escape(name))' must be 1-64 letters, digits, '.', '_' or '-'"
            case .invalidAppVersion(let why):
                return "invalid app version: \(why)"
            case .unsupportedURL(let url):
                return "development server URL \(LogSafe.escape(url)) is not http:// or https://"
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
        case refused(PatchRefusal)

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

    /// Paths on the development server (kept in step with `PatchServer.DevChannel`).
    public static let eventsPath = "_dev/events"
    public static let reportPath = "_dev/report"
    public static let pongPath = "_dev/pong"

    public let configuration: Configuration
    private let applier: PatchApplying
    private let verifier: PatchVerifier
    private let onEvent: ((Event) -> Void)?
    private let lock = NSLock()
    private var running = false
    private var generation = 0
    private var stream: EventStream?
    private var delay: TimeInterval
    private var reconnectTimer: DispatchSourceTimer?
    private let control = DispatchQueue(label: "PatchDelivery.DevelopmentSession")
    private let reporter: DevReportSender
    private var previousErrorHandler: ((PatchError) -> Void)?
    private var previousLogHandler: ((String) -> Void)?

    /// Touched on `configuration.queue` only.
    private var live: (version: Int, digest: String, scripts: LiveScripts)?
    private var currentVersion: Int? { lock.withLock { liveVersion } }
    private var liveVersion: Int?
    /// The version being evaluated, else the live one: what a `console.log` line belongs to.
    private var logVersion: Int? { lock.withLock { evaluatingVersion ?? liveVersion } }
    private var evaluatingVersion: Int?
    /// Each applied script's preprocessed form by engine name, to map a `console.log` position
    /// (reported in the preprocessed text) back to the source the developer is editing.
    private var sourceMaps: [String: Preprocessed] = [:]
    private static let maxSourceMaps = 64

    /// - Parameters:
    ///   - applier: where scripts go (`PatchEngine` by default).
    ///   - now: the clock for expiry checks.
    ///   - onEvent: called on `configuration.queue`, or the session's own queue for connection events.
    public init(configuration: Configuration, applier: PatchApplying = EnginePatchApplier(),
                now: @escaping () -> Date = { Date() }, onEvent: ((Event) -> Void)? = nil) throws {
        guard !configuration.trustStore.developmentKeyIDs.isEmpty else { throw StartError.noDevelopmentKey }
        let name = configuration.deviceName
        guard (1...64).contains(name.count), name.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0)) }) else {
            throw StartError.invalidDeviceName(name)
        }
        let version: SemanticVersion
        do { version = try SemanticVersion(parsing: configuration.appVersion) } catch {
            throw StartError.invalidAppVersion("\(error)")
        }
        guard let scheme = configuration.serverURL.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw StartError.unsupportedURL(configuration.serverURL.absoluteString)
        }
        self.configuration = configuration
        self.applier = applier
        self.onEvent = onEvent
        self.verifier = PatchVerifier(trustStore: configuration.trustStore,
                                      target: .init(appID: configuration.appID, appVersion: version),
                                      keyKind: .development, now: now)
        self.delay = configuration.reconnectDelay.lowerBound
        self.reporter = DevReportSender(baseURL: Self.directoryURL(configuration.serverURL), device: name,
                                        maxQueued: configuration.maxQueuedReports)
    }

    deinit { stop() }

    /// The development version live now (nil for none).
    public var liveDevelopmentVersion: Int? { currentVersion }

    /// Connects (and keeps re-connecting until `stop()`); returns at once.
    public func start() {
        let begin: Bool = lock.withLock {
            guard !running else { return false }
            running = true
            generation += 1
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
        let (wasRunning, stream): (Bool, EventStream?) = lock.withLock {
            guard running else { return (false, nil) }
            running = false
            generation += 1
            reconnectTimer?.cancel()
            reconnectTimer = nil
            defer { self.stream = nil }
            return (true, self.stream)
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
        lock.withLock { liveVersion = nil }
    }

    // MARK: - Connection

    private static func directoryURL(_ url: URL) -> URL {
        url.absoluteString.hasSuffix("/") ? url : URL(string: url.absoluteString + "/")!
    }

    private func connect() {
        let current: Int? = lock.withLock { running ? generation : nil }
        guard let current else { return }
        var components = URLComponents(url: Self.directoryURL(configuration.serverURL).appendingPathComponent(Self.eventsPath),
                                       resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "device", value: configuration.deviceName)]
        let stream = EventStream(url: components.url!, maxEventBytes: configuration.maxPatchBytes * 2,
                                 silenceTimeout: configuration.silenceTimeout,
                                 onOpen: { [weak self] in self?.opened(current) },
                                 onEvent: { [weak self] name, data in self?.received(name, data) },
                                 onClose: { [weak self] why in self?.closed(current, why) })
        let keep = lock.withLock { () -> Bool in
            guard running, generation == current else { return false }
            self.stream = stream
            return true
        }
        if keep { stream.start() }
    }

    private func opened(_ current: Int) {
        lock.withLock { if generation == current { delay = configuration.reconnectDelay.lowerBound } }
        // Reports wait for the stream's session event (`received`).
        control.async { self.onEvent?(.connected) }
    }

    private func closed(_ current: Int, _ why: String) {
        let wait: TimeInterval? = lock.withLock {
            guard running, generation == current else { return nil }
            stream = nil
            let wait = delay
            delay = min(delay * 2, configuration.reconnectDelay.upperBound)
            return wait
        }
        guard let wait else { return }
        reporter.pause()
        control.async { self.onEvent?(.disconnected(why)) }
        let timer = DispatchSource.makeTimerSource(queue: control)
        timer.schedule(deadline: .now() + wait)
        timer.setEventHandler { [weak self] in self?.connect() }
        lock.withLock { reconnectTimer?.cancel(); reconnectTimer = timer }
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
        case "patch":
            break
        default:
            return
        }
        guard let file = Data(base64Encoded: data), file.count <= configuration.maxPatchBytes else {
            reporter.send(DevReport(kind: .refused, version: nil, message: "a development version larger than \(configuration.maxPatchBytes) bytes or not base64"))
            return
        }
        configuration.queue.async { self.receive(file) }
    }

    // MARK: - Applying (on configuration.queue)

    private func receive(_ file: Data) {
        let patch: SignedPatch
        do { patch = try verifier.verify(patchFile: file) } catch {
            let refusal = error as? PatchRefusal ?? .malformed("\(error)")
            reporter.send(DevReport(kind: .refused, version: nil, message: refusal.description))
            onEvent?(.refused(refusal))
            return
        }
        let m = patch.manifest
        if let live, live.digest == patch.digest {
            // The server re-sends its current version on every connect: already live.
            reporter.send(DevReport(kind: .applied, version: m.version, message: "already live"))
            return
        }
        if let live, m.version <= live.version {
            let refusal = PatchRefusal.versionNotNewer(patchID: m.patchID, version: m.version, applied: live.version)
            reporter.send(DevReport(kind: .refused, version: m.version, message: refusal.description))
            onEvent?(.refused(refusal))
            return
        }
        let version = m.version
        lock.withLock { evaluatingVersion = version }
        let outcome = ScriptSwap.replace(live?.scripts, with: patch.scriptSet, applier: applier) { [self] script in
            let map = Preprocessor.rewrite(script.source)
            lock.withLock {
                if sourceMaps.count >= Self.maxSourceMaps { sourceMaps.removeAll() }
                sourceMaps[script.name] = map
            }
        }
        lock.withLock { evaluatingVersion = nil }
        switch outcome {
        case .applied(let scripts):
            live = (version, patch.digest, scripts)
            lock.withLock { liveVersion = version }
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
            lock.withLock { liveVersion = live?.version }
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
                let original = self?.lock.withLock { self?.sourceMaps[script] }?.originalPosition(line: line, column: column)
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
