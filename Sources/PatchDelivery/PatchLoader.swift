import Foundation
import PatchUpdater
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging

/// Brings signed patches into a running app: applies the verified cached copies at launch,
/// downloads newer ones, takes in the revocation list, and keeps the crash-loop guard.
///
/// Typical use at app launch:
///
///     var config = PatchLoader.Configuration(
///         baseURL: URL(string: "https://patches.example.com/shop/")!,
///         appID: "com.example.shop", appVersion: "1.4.0",
///         trustStore: TrustStore(keys: [try TrustedKey(id: "release-2026", base64: "…")]),
///         stateDirectory: appSupport.appendingPathComponent("patches"),
///         patchFiles: [.init("shop-fixes.json", patchID: "shop-fixes")])
///     let loader = try PatchLoader(configuration: config, onEvent: { event in print("patch:", event) })
///     loader.applyCachedPatches()     // before or without the network
///     loader.update()                 // download, verify, apply; revoke what the list says
///     // … once the app is up:
///     loader.markLaunchSucceeded()
///
/// The loader is not thread-safe: call it from the thread that owns the engine. `update()`
/// blocks that thread while downloading, at most `updateDeadline` seconds.
/// Expiry is checked whenever a patch is loaded (downloaded or read from the cache); a running
/// patch is not reverted at its expiry time, it is dropped at the next launch.
public final class PatchLoader {
    public struct Configuration {
        /// Where patch files and the revocation list are downloaded from.
        public var baseURL: URL
        /// Further copies of `baseURL`, tried in order when a file can't be had from the ones
        /// before: unreachable, refused (bad signature, another patch, an older version) or, for
        /// the revocation list, not fresh. One bad or frozen mirror can't keep a device from the
        /// good ones; every copy is verified the same way.
        public var mirrorURLs: [URL] = []
        /// Patch files under `baseURL`, each with the patch id it must carry, applied in this order.
        public var patchFiles: [PatchFile]
        /// The revocation list under `baseURL`; nil for none.
        public var revocationListFile: String?
        /// This app's id, matched against each manifest's `appID`.
        public var appID: String
        /// This app's version (semantic version), matched against each manifest's range.
        public var appVersion: String
        /// The keys patches and revocation lists must be signed with.
        public var trustStore: TrustStore
        /// Where the cache and the device state live (created if missing).
        public var stateDirectory: URL
        /// The longest one request may take, start to end, seconds (a slow drip doesn't extend it).
        public var timeout: TimeInterval = 10
        /// The longest `update()` may take in all, seconds: requests, retries and waits. Launch
        /// never waits on a slow or silent server longer than this.
        public var updateDeadline: TimeInterval = 30
        public var retryPolicy: RetryPolicy = .standard
        /// Allow plain `http://` (local QA only). Otherwise only `https://` is used.
        public var allowsInsecureHTTP = false
        /// Launches in a row that may apply a patch without reaching `markLaunchSucceeded()`.
        public var crashLoopThreshold = 2
        /// Larger downloads (and larger cached copies) are refused.
        public var maxDownloadBytes = 4 << 20
        /// How long a revocation list stays fresh after it was issued, seconds; nil for no limit
        /// (a signed `expires` in the list still applies). Without a fresh list, patches from the
        /// network are held back: a server (or attacker) can't freeze a device on an old list.
        public var revocationListMaxAge: TimeInterval? = 7 * 24 * 3600

        public init(baseURL: URL, appID: String, appVersion: String, trustStore: TrustStore, stateDirectory: URL,
                    patchFiles: [PatchFile], revocationListFile: String? = "revocations.json") {
            self.baseURL = baseURL
            self.appID = appID
            self.appVersion = appVersion
            self.trustStore = trustStore
            self.stateDirectory = stateDirectory
            self.patchFiles = patchFiles
            self.revocationListFile = revocationListFile
        }
    }

    /// A configuration the loader can't work with.
    public enum ConfigurationError: Error, Equatable, CustomStringConvertible {
        /// `http://` without `allowsInsecureHTTP`, or a scheme that is neither HTTP nor HTTPS.
        case insecureURL(String)
        case invalidAppVersion(String)
        case noPatchFiles
        /// Two entries of `patchFiles` share a path or a patch id, or a patch id is not valid.
        case invalidPatchFiles(String)
        /// The trust store holds a development key: the loader is the production path, and a
        /// development key in its trust store is a build mistake (see `DevelopmentKey`).
        case developmentKeyInTrustStore(keyID: String)

        public var description: String {
            switch self {
            case .insecureURL(let url):
                return "refusing to load patches from \(url): HTTPS is required (set allowsInsecureHTTP for local QA over plain HTTP)"
            case .invalidAppVersion(let why):
                return "invalid app version: \(why)"
            case .noPatchFiles:
                return "no patch files configured"
            case .invalidPatchFiles(let why):
                return "invalid patch files: \(why)"
            case .developmentKeyInTrustStore(let id):
                return "the trust store holds development key '\(id)': a production loader never trusts development keys (use a DevelopmentSession)"
            }
        }
    }

    /// A patch whose scripts are live in this process.
    public struct LivePatch: Equatable {
        public let patchID: String
        public let version: Int
        /// The names the scripts were applied under (`<patchID>@<version>/<script>`), in order.
        public let scriptNames: [String]
        let file: String
        let patch: SignedPatch
    }

    public let configuration: Configuration
    public let cache: PatchCache
    public let crashLoopGuard: CrashLoopGuard

    private let verifier: PatchVerifier
    private let applier: PatchApplying
    private let fetcher: PatchFetcher
    private let stateStore: DeliveryStateStore
    private var state: DeliveryState
    private let now: () -> Date
    private var live: [String: LivePatch] = [:]
    private var startupEvents: [PatchEvent] = []
    private let onEvent: ((PatchEvent) -> Void)?
    private let logger = Logger(label: "PatchDelivery")

    /// - Parameters:
    ///   - applier: where verified scripts are evaluated; `PatchEngine` by default.
    ///   - now: the clock for expiry checks.
    ///   - sleep: waits between retries.
    ///   - onEvent: called with every event as it happens (on the caller's thread). Last, so a
    ///     trailing closure always lands here: before `sleep`, Swift 5's backward matching handed
    ///     a closure like `{ event in print(event) }` to `sleep` instead.
    public init(configuration: Configuration,
                applier: PatchApplying = EnginePatchApplier(),
                now: @escaping () -> Date = { Date() },
                sleep: @escaping (TimeInterval) -> Void = { Thread.sleep(forTimeInterval: $0) },
                onEvent: ((PatchEvent) -> Void)? = nil) throws {
        for source in [configuration.baseURL] + configuration.mirrorURLs {
            let scheme = source.scheme?.lowercased()
            guard scheme == "https" || (scheme == "http" && configuration.allowsInsecureHTTP) else {
                throw ConfigurationError.insecureURL(source.absoluteString)
            }
        }
        if let devKey = configuration.trustStore.developmentKeyIDs.first {
            throw ConfigurationError.developmentKeyInTrustStore(keyID: devKey)
        }
        guard !configuration.patchFiles.isEmpty else { throw ConfigurationError.noPatchFiles }
        try Self.validate(configuration.patchFiles)
        let appVersion: SemanticVersion
        do { appVersion = try SemanticVersion(parsing: configuration.appVersion) } catch {
            throw ConfigurationError.invalidAppVersion("\(error)")
        }
        self.configuration = configuration
        self.applier = applier
        self.onEvent = onEvent
        self.now = now
        self.verifier = PatchVerifier(trustStore: configuration.trustStore,
                                      target: .init(appID: configuration.appID, appVersion: appVersion), now: now)
        self.fetcher = PatchFetcher(timeout: configuration.timeout, retryPolicy: configuration.retryPolicy,
                                    maxBytes: configuration.maxDownloadBytes,
                                    allowsInsecureHTTP: configuration.allowsInsecureHTTP, sleep: sleep, logger: logger)
        let directory = configuration.stateDirectory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.cache = PatchCache(directory: directory.appendingPathComponent("cache"), sizeLimit: configuration.maxDownloadBytes)
        self.crashLoopGuard = CrashLoopGuard(directory: directory, threshold: configuration.crashLoopThreshold)
        self.stateStore = DeliveryStateStore(directory: directory)
        switch stateStore.load() {
        case .none:
            state = DeliveryState()
        case .intact(let loaded):
            state = loaded
        case let .restored(loaded, badFile, problem):
            state = loaded
            startupEvents.append(.stateRestored(file: badFile, message: problem))
            do { try stateStore.save(&state) } catch { startupEvents.append(.storageFailed(message: "\(error)")) }
        case .lost(let problem):
            // Nothing is applied until a fresh revocation list is taken in (see `revocationGate`).
            state = DeliveryState()
            startupEvents.append(.stateReset(file: DeliveryStateStore.primaryName, message: problem))
        }
        if let problem = crashLoopGuard.loadProblem {
            startupEvents.append(.stateReset(file: "launch-guard.json", message: problem))
        }
        for verdict in crashLoopGuard.verdicts {
            switch verdict {
            case let .disabled(id, launches):
                startupEvents.append(.disabledByCrashLoop(patchID: id.patchID, version: id.version, launches: launches))
            case .searchStarted(let suspects):
                startupEvents.append(.crashLoopSearchStarted(suspects: suspects))
            }
        }
        // A crash in the middle of a write leaves its temporary file behind; nothing else would delete it.
        for folder in [directory, cache.directory] {
            let removed = AtomicFile.removeStaleTemporaryFiles(in: folder)
            if !removed.isEmpty { startupEvents.append(.temporaryFilesRemoved(directory: folder.lastPathComponent, files: removed)) }
        }
    }

    private static func validate(_ files: [PatchFile]) throws {
        var paths = Set<String>(), ids = Set<String>()
        for file in files {
            do { try PatchManifest.validateIdentifier(file.patchID, field: "patchID") } catch PatchRefusal.malformed(let why) {
                throw ConfigurationError.invalidPatchFiles(why)
            }
            guard paths.insert(file.path).inserted else { throw ConfigurationError.invalidPatchFiles("'\(file.path)' is listed twice") }
            guard ids.insert(file.patchID).inserted else {
                throw ConfigurationError.invalidPatchFiles("patch id '\(file.patchID)' is bound to two files")
            }
        }
    }

    /// The patches live in this process, sorted by id.
    public var livePatches: [LivePatch] { live.values.sorted { $0.patchID < $1.patchID } }

    // MARK: - Launch

    /// Applies the verified cached patches: call it at launch, before or without the network.
    /// Each cached file is verified again in full; a copy that fails is deleted and reported.
    @discardableResult
    public func applyCachedPatches() -> [PatchEvent] {
        var events = takeStartupEvents()
        if configuration.revocationListFile != nil, state.revocationSequence == nil, hasCachedCopies {
            // State lost (or never had a list): a planted or rolled-back copy can't be told apart yet.
            emit(.revocationListStale(sequence: nil, issued: nil), &events)
            return events
        }
        for requested in configuration.patchFiles {
            let file = requested.path
            switch cache.patch(forFile: file, patchID: requested.patchID, verifier: verifier) {
            case .missing:
                continue
            case .discarded(let reason):
                state.files[file]?.etag = nil
                saveState(&events)
                emit(.cacheDiscarded(file: file, reason: reason), &events)
            case .skipped(let reason):
                emit(.cacheSkipped(file: file, reason: reason), &events)
            case .valid(let patch):
                if live[patch.manifest.patchID]?.patch.digest == patch.digest { continue }
                if let refusal = admissionRefusal(for: patch) {
                    cache.removePatch(forFile: file)
                    emit(.refused(file: file, reason: refusal), &events)
                    continue
                }
                if heldBack(patch, &events) { continue }
                apply(patch, file: file, source: .cache, &events)
            }
        }
        return events
    }

    private var hasCachedCopies: Bool {
        configuration.patchFiles.contains { FileManager.default.fileExists(atPath: cache.url(forPatchFile: $0.path).path) }
    }

    /// Tells the crash-loop guard the app is up: nothing applied so far is suspect any more (during
    /// a culprit search, the patches this launch applied are cleared and reported).
    @discardableResult
    public func markLaunchSucceeded() -> [PatchEvent] {
        var events: [PatchEvent] = []
        do {
            for id in try crashLoopGuard.markLaunchSucceeded() {
                emit(.clearedByCrashLoopGuard(patchID: id.patchID, version: id.version), &events)
            }
        } catch {
            emit(.storageFailed(message: "\(error)"), &events)
        }
        return events
    }

    // MARK: - Network

    /// Downloads the revocation list and every patch file, reverts what is revoked, and applies
    /// newer verified patches (caching them for the next launch). A file the server reports
    /// unchanged costs one request answered 304.
    @discardableResult
    public func update() -> [PatchEvent] {
        var events = takeStartupEvents()
        let deadline = Deadline(seconds: configuration.updateDeadline)
        // A launch killed while this waits must not count against the cached patches applied before it.
        crashLoopGuard.networkWaitBegins()
        defer { crashLoopGuard.networkWaitEnded() }
        if let listFile = configuration.revocationListFile {
            updateRevocationList(listFile, deadline, &events)
            if !revocationListIsFresh {
                emit(.revocationListStale(sequence: state.revocationSequence,
                                          issued: state.revocationIssued.map { Date(timeIntervalSince1970: TimeInterval($0)) }), &events)
                return events
            }
        }
        for file in configuration.patchFiles {
            updatePatch(file, deadline, &events)
        }
        return events
    }

    /// Whether the newest revocation list taken in is fresh by this device's clock.
    private var revocationListIsFresh: Bool {
        state.revocationListIsFresh(at: now(), maxAge: configuration.revocationListMaxAge)
    }

    /// The base URL, then the mirrors.
    private var sources: [URL] { [configuration.baseURL] + configuration.mirrorURLs }

    /// A fetch failure from a mirror names it; one from the base URL reads as it always did.
    private func fetchFailure(_ message: String, from source: URL) -> String {
        source == configuration.baseURL ? message : "mirror \(source.absoluteString): \(message)"
    }

    private func updateRevocationList(_ file: String, _ deadline: Deadline, _ events: inout [PatchEvent]) {
        for source in sources where takeRevocationList(file, from: source, deadline, &events) { return }
    }

    /// Fetches the revocation list from one source; true once the device holds a fresh list.
    private func takeRevocationList(_ file: String, from source: URL, _ deadline: Deadline, _ events: inout [PatchEvent]) -> Bool {
        switch RevocationListIntake.take(source.appendingPathComponent(file), into: &state, fetcher: fetcher, verifier: verifier,
                                         trustStore: configuration.trustStore, deadline: deadline) {
        case .unchanged:
            return revocationListIsFresh
        case .fetchFailed(let message):
            emit(.fetchFailed(file: file, message: fetchFailure(message, from: source)), &events)
            return false
        case .refused(let reason):
            emit(.revocationListRefused(reason: reason), &events)
            return false
        case .taken(let list):
            saveState(&events)
            emit(.revocationListUpdated(sequence: list.sequence, revokedCount: list.entries.count), &events)
            for patch in livePatches where state.isRevoked(patch.patchID, version: patch.version) {
                revert(patch, reason: .revoked, &events)
                cache.removePatch(forFile: patch.file)
                state.files[patch.file] = nil
                saveState(&events)
            }
            return revocationListIsFresh
        }
    }

    private func updatePatch(_ requested: PatchFile, _ deadline: Deadline, _ events: inout [PatchEvent]) {
        for source in sources where takePatch(requested, from: source, deadline, &events) { return }
    }

    /// Fetches one patch file from one source; true once it is settled there (unchanged, applied,
    /// or a verified patch whose scripts failed), false when another source should be asked.
    private func takePatch(_ requested: PatchFile, from source: URL, _ deadline: Deadline, _ events: inout [PatchEvent]) -> Bool {
        let file = requested.path
        // Only a copy we still hold, and that verifies now, may be revalidated with its ETag: a 304
        // for a copy that can't be used would leave the device without the patch.
        let haveCopy: Bool
        if case .valid = cache.patch(forFile: file, patchID: requested.patchID, verifier: verifier) { haveCopy = true } else { haveCopy = false }
        let etag = haveCopy ? state.files[file]?.etag : nil
        switch fetcher.fetch(source.appendingPathComponent(file), ifNoneMatch: etag, deadline: deadline) {
        case .notModified:
            let id = state.files[file]?.patchID
            emit(.upToDate(file: file, patchID: id, version: id.flatMap { live[$0]?.version ?? state.applied[$0]?.version }), &events)
            return true
        case .failed(let message):
            emit(.fetchFailed(file: file, message: fetchFailure(message, from: source)), &events)
            return false
        case let .fetched(data, etag):
            let patch: SignedPatch
            do { patch = try verifier.verify(patchFile: data, patchID: requested.patchID) } catch {
                emit(.refused(file: file, reason: error as? PatchRefusal ?? .malformed("\(error)")), &events)
                return false
            }
            let id = patch.manifest.patchID
            if live[id]?.patch.digest == patch.digest {
                // The same signed patch again (a server without ETags, or a lost cache): nothing to do but remember it.
                store(data, patch: patch, file: file, etag: etag, &events)
                emit(.upToDate(file: file, patchID: id, version: patch.manifest.version), &events)
                return true
            }
            if let refusal = admissionRefusal(for: patch) {
                emit(.refused(file: file, reason: refusal), &events)
                return false
            }
            if heldBack(patch, &events) { return true }
            if apply(patch, file: file, source: .network, &events) {
                store(data, patch: patch, file: file, etag: etag, &events)
            }
            return true
        }
    }

    private func store(_ data: Data, patch: SignedPatch, file: String, etag: String?, _ events: inout [PatchEvent]) {
        let hadCopy = state.files[file]?.etag == etag && FileManager.default.fileExists(atPath: cache.url(forPatchFile: file).path)
        do {
            try cache.store(patch: data, forFile: file)
            state.files[file] = DeliveryState.File(patchID: patch.manifest.patchID, etag: etag)
            saveState(&events)
            if !hadCopy { emit(.cached(file: file, patchID: patch.manifest.patchID, version: patch.manifest.version), &events) }
        } catch {
            emit(.storageFailed(message: "\(error)"), &events)
        }
    }

    // MARK: - Applying

    /// The device-state checks a verified patch must also pass: not revoked, not disabled by the
    /// crash-loop guard, and not older than (or a different patch with the same version as) the applied one.
    private func admissionRefusal(for patch: SignedPatch) -> PatchRefusal? {
        let id = patch.manifest.patchID, version = patch.manifest.version
        if state.isRevoked(id, version: version) {
            return .revoked(patchID: id, version: version)
        }
        if crashLoopGuard.isDisabled(patchID: id, version: version) {
            return .disabledByCrashLoop(patchID: id, version: version)
        }
        if let floor = state.applied[id]?.floor(trusting: configuration.trustStore.isTrusted) {
            if version < floor.version || (version == floor.version && patch.digest != floor.digest) {
                return .versionNotNewer(patchID: id, version: version, applied: floor.version)
            }
        }
        return nil
    }

    /// Whether the crash-loop guard holds the patch back for this launch (a culprit search is
    /// trying other patches); reported, and the patch is kept.
    private func heldBack(_ patch: SignedPatch, _ events: inout [PatchEvent]) -> Bool {
        let m = patch.manifest
        guard crashLoopGuard.holdsBack(patchID: m.patchID, version: m.version) else { return false }
        emit(.heldByCrashLoopGuard(patchID: m.patchID, version: m.version), &events)
        return true
    }

    /// Evaluates the patch's scripts in order; on a throwing script, undoes the ones before it and
    /// brings back the version it was replacing. Returns whether the patch is live.
    @discardableResult
    private func apply(_ patch: SignedPatch, file: String, source: PatchEvent.Source, _ events: inout [PatchEvent]) -> Bool {
        let m = patch.manifest
        let previous = live[m.patchID]
        do {
            // Marked before evaluation: a script that crashes the process must still count. And
            // first of all: unmarked, nothing is evaluated, and the previous version stays live.
            try crashLoopGuard.willApply(patchID: m.patchID, version: m.version)
        } catch {
            emit(.guardUnavailable(patchID: m.patchID, version: m.version, message: "\(error)"), &events)
            return false
        }
        if let previous {
            revert(previous, reason: .superseded(byVersion: m.version), &events)
        }
        let names: [String]
        do { names = try applier.applyAll(patch) } catch {
            emit(.failed(patchID: m.patchID, version: m.version, message: "\(error)"), &events)
            if let previous {
                apply(previous.patch, file: previous.file, source: .cache, &events)
            } else {
                try? crashLoopGuard.forget(patchID: m.patchID, version: m.version)
            }
            return false
        }
        live[m.patchID] = LivePatch(patchID: m.patchID, version: m.version, scriptNames: names, file: file, patch: patch)
        let release = DeliveryState.Release(version: m.version, digest: patch.digest)
        state.applied[m.patchID, default: DeliveryState.Applied(version: m.version, digest: patch.digest)].record(release, keyID: m.keyID)
        state.files[file, default: DeliveryState.File()].patchID = m.patchID
        saveState(&events)
        emit(.applied(patchID: m.patchID, version: m.version, source: source), &events)
        return true
    }

    private func revert(_ patch: LivePatch, reason: PatchEvent.RevertReason, _ events: inout [PatchEvent]) {
        let failures = applier.revertAll(patch.scriptNames)
        live[patch.patchID] = nil
        try? crashLoopGuard.forget(patchID: patch.patchID, version: patch.version, leavesDevice: true)
        if failures.isEmpty {
            emit(.reverted(patchID: patch.patchID, version: patch.version, reason: reason), &events)
        } else {
            emit(.failed(patchID: patch.patchID, version: patch.version, message: "revert failed: " + failures.joined(separator: "; ")), &events)
        }
    }

    // MARK: - Plumbing

    private func saveState(_ events: inout [PatchEvent]) {
        do { try stateStore.save(&state) } catch {
            emit(.storageFailed(message: "\(error)"), &events)
        }
    }

    private func takeStartupEvents() -> [PatchEvent] {
        var events: [PatchEvent] = []
        for event in startupEvents { emit(event, &events) }
        startupEvents = []
        return events
    }

    private func emit(_ event: PatchEvent, _ events: inout [PatchEvent]) {
        switch event {
        case .refused, .failed, .cacheDiscarded, .disabledByCrashLoop, .revocationListRefused, .stateReset, .storageFailed,
             .crashLoopSearchStarted, .heldByCrashLoopGuard, .guardUnavailable:
            logger.warning("\(event.description)")
        case .fetchFailed:
            logger.notice("\(event.description)")
        default:
            logger.info("\(event.description)")
        }
        events.append(event)
        onEvent?(event)
    }
}
