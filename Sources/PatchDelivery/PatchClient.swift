import Foundation
import Logging
import PatchFormat
import PatchUpdater
import PatchSupport

/// The device side of patch delivery: the releases of the one channel this app follows, taken
/// only through The Update Framework's client workflow (`Updater`), checked against this app
/// and device, and applied all-or-nothing through `PatchApplying` under the crash-loop guard.
///
///     var config = PatchClientConfiguration(
///         metadataURL: URL(string: "https://patches.example.com/shop/metadata/")!,
///         targetsURL: URL(string: "https://patches.example.com/shop/targets/")!,
///         bundledRoot: rootFromTheAppBundle, appID: "com.example.shop", appVersion: "1.4.0",
///         channel: "production", device: DeviceProfile(deviceID: storedRandomID, model: "iPhone15,2"),
///         stateDirectory: appSupport.appendingPathComponent("patches"))
///     let client = try PatchClient(configuration: config) { print($0) }
///     client.applyCached()          // at launch: what was verified last, no network
///     client.update()               // fresh metadata, downloads, apply and revert
///     client.markLaunchSucceeded()
///
/// `update()`, in this order:
/// 1. `Updater.refresh()` (root chain, timestamp, snapshot, targets: every TUF check; nothing
///    else reads the network). No answer (`refreshFailed(.network)`) or a refusal
///    (`refreshFailed(.metadata)`) changes nothing that runs, until the last verified metadata is
///    `maxStaleness` past its expiry; a stale answer (`refreshFailed(.stale)`: a freeze) stops
///    the channel's releases at once when the last verified metadata has expired too. If nothing
///    ran yet in this process, the last verified metadata and cached targets are applied
///    instead (within the bound).
/// 2. No key a role trusts for root, targets, snapshot, timestamp or the channel is a development key.
/// 3. The channel's releases (`Updater.targets(ofRole:)`), each judged by `ChannelSelection`
///    (app id, enabled, app/OS version, model, attributes, rollout bucket, crash-loop guard).
/// 4. The chosen targets from the cache or downloaded by the updater (length and hashes
///    checked, cut at the listed length, at most `maxTargetBytes`).
/// 5. Running releases the channel no longer selects are reverted; each chosen release replaces
///    the one running for its patch id (marked with the crash-loop guard first; a script that
///    throws leaves nothing applied and the previous release runs again).
///
/// Not thread-safe: call it from the thread that owns the engine. `update()` blocks at most
/// `updateDeadline`; don't call it from Swift concurrency's threads (it waits on them).
public final class PatchClient {
    /// A release whose script is live in this process.
    public struct LiveRelease: Equatable {
        public let reference: ReleaseReference
        /// The name the script was applied under (`PatchEngine.revert(_:)` takes it).
        public var scriptName: String { scripts.names[0] }
        let scripts: LiveScripts

        public static func == (a: LiveRelease, b: LiveRelease) -> Bool {
            a.reference == b.reference && a.scripts.names == b.scripts.names
        }
    }

    public let configuration: PatchClientConfiguration
    public let crashLoopGuard: CrashLoopGuard

    private let applier: PatchApplying
    private let transport: Transport
    private let appVersion: SemanticVersion
    private let metadataDirectory: URL
    private let targetsDirectory: URL
    private let verifiedCopy: VerifiedMetadataCopy
    private var live: [String: LiveRelease] = [:]
    /// Whether a selection was applied in this process (else a failed refresh falls back to the cache).
    private var reconciled = false
    /// Patch versions the guard disabled when this launch started: reported when their release shows up.
    private var newlyDisabled: [PatchVersionID: Int] = [:]
    private var pendingEvents: [PatchClientEvent] = []
    private let onEvent: ((PatchClientEvent) -> Void)?
    private let telemetry: TelemetryReporter?
    private let logger = Logger(label: "PatchDelivery.PatchClient")

    /// Anchors the trusted root to `configuration.bundledRoot` (`RootAnchor`: a stored root that
    /// does not chain from it is discarded, reported at the next call as `storedRootDiscarded`),
    /// and opens the crash-loop guard (judging earlier launches).
    /// Throws `PatchClientError.configuration` or `.developmentKey` (a bundled root trusting a
    /// development key is refused: such a build must never reach users).
    /// - Parameter telemetry: where applied (from the network), failed, reverted and disabled
    ///   events go, with the device's rollout bucket instead of its id (opt-in; nil sends nothing).
    public init(configuration: PatchClientConfiguration, applier: PatchApplying = EnginePatchApplier(),
                transport: Transport = HTTPTransport.shared, telemetry: TelemetryReporter? = nil,
                onEvent: ((PatchClientEvent) -> Void)? = nil) throws {
        for url in [configuration.metadataURL, configuration.targetsURL] {
            let scheme = url.scheme?.lowercased()
            guard scheme == "https" || (scheme == "http" && configuration.allowsInsecureHTTP) else {
                throw PatchClientError.configuration("\(url.absoluteString) is not https:// (http:// only with allowsInsecureHTTP)")
            }
        }
        do { appVersion = try SemanticVersion(parsing: configuration.appVersion) } catch {
            throw PatchClientError.configuration("app version: \(error)")
        }
        let bundled: Metadata<Root>
        do { bundled = try Metadata<Root>(data: configuration.bundledRoot, name: "root") } catch {
            throw PatchClientError.configuration("bundled root: \(error)")
        }
        if let role = bundled.signed.firstRoleTrustingDevelopmentKey { throw PatchClientError.developmentKey(role: role) }
        self.configuration = configuration
        self.applier = applier
        self.transport = transport
        self.onEvent = onEvent
        self.telemetry = telemetry
        let state = configuration.stateDirectory
        metadataDirectory = state.appendingPathComponent("metadata")
        targetsDirectory = state.appendingPathComponent("targets")
        verifiedCopy = VerifiedMetadataCopy(directory: state.appendingPathComponent("verified"))
        do {
            for folder in [metadataDirectory, targetsDirectory, verifiedCopy.directory] {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            }
            let anchor = try RootAnchor.anchor(shippedRoot: configuration.bundledRoot, metadataDirectory: metadataDirectory)
            if case .discarded(let reason) = anchor {
                // What was verified under that root proves nothing now.
                try verifiedCopy.discard()
                pendingEvents.append(.storedRootDiscarded(reason: reason))
            }
        } catch let error as UpdaterError {
            throw PatchClientError.configuration("bundled root: \(error)")
        } catch {
            throw PatchClientError.storage("\(error)")
        }
        // Before anything here writes: what a crash in the middle of a write left behind.
        for folder in [state, metadataDirectory, targetsDirectory] {
            let removed = AtomicFile.removeStaleTemporaryFiles(in: folder)
            if !removed.isEmpty { pendingEvents.append(.temporaryFilesRemoved(directory: folder.lastPathComponent, files: removed)) }
        }
        crashLoopGuard = CrashLoopGuard(directory: state, threshold: configuration.crashLoopThreshold)
        if let problem = crashLoopGuard.loadProblem {
            pendingEvents.append(.storageFailed(message: "crash-loop guard state unreadable, started empty: \(problem)"))
        }
        for verdict in crashLoopGuard.verdicts {
            switch verdict {
            case let .disabled(id, launches): newlyDisabled[id] = launches
            case .searchStarted(let suspects): pendingEvents.append(.crashLoopSearchStarted(suspects: suspects))
            }
        }
    }

    /// The releases live in this process, by patch id.
    public var liveReleases: [LiveRelease] { live.values.sorted { $0.reference.patchID < $1.reference.patchID } }

    // MARK: - Launch

    /// Applies what the metadata verified last selects, from cached targets only (no network),
    /// checked against the root anchored at launch. Expiry is checked only against
    /// `maxStaleness`: a device offline for a while keeps running what it verified until then.
    @discardableResult
    public func applyCached() -> [PatchClientEvent] {
        var events = takePendingEvents()
        applyStored(&events)
        return events
    }

    /// The app launched fine: nothing applied so far is suspect any more.
    public func markLaunchSucceeded() {
        do { try crashLoopGuard.markLaunchSucceeded() } catch {
            var events: [PatchClientEvent] = []
            emit(.storageFailed(message: "crash-loop guard: \(error)"), &events)
        }
    }

    // MARK: - Update

    /// Refreshes the metadata, then makes the running releases what the channel selects for
    /// this device (see the type's documentation for the order of checks).
    @discardableResult
    public func update() -> [PatchClientEvent] {
        var events = takePendingEvents()
        let deadline = Date().addingTimeInterval(configuration.updateDeadline)
        let updater = Updater(configuration: updaterConfiguration(metadataDirectory), transport: transport)
        let channel = configuration.channel
        crashLoopGuard.networkWaitBegins()
        let listed: Result<[ResolvedTarget], PatchClientError> = BlockingWait.run(until: deadline) {
            do {
                try await updater.refresh()
                try await Self.checkDevelopmentKeys(updater, channel: channel)
                guard let targets = try await updater.targets(ofRole: channel) else { return .failure(.noChannel(channel)) }
                return .success(targets)
            } catch {
                return .failure(PatchClientError(refreshing: error))
            }
        } ?? .failure(.deadline)
        let targets: [ResolvedTarget]
        switch listed {
        case .failure(let error):
            crashLoopGuard.networkWaitEnded()
            emit(.refreshFailed(error), &events)
            if case .stale = error, !storedIsFresh() {
                // A stale answer is not an absence of one. While what the device verified last
                // is itself unexpired (an older copy replayed), it still shows what runs is
                // current; once it has expired too, nothing of the channel runs (nor at the next
                // launches) until a refresh succeeds.
                do { try verifiedCopy.discard() } catch {
                    emit(.storageFailed(message: "last verified metadata not discarded: \(error)"), &events)
                }
                stopChannel(reason: "refresh answered with stale metadata: \(error)", &events)
            } else if !reconciled {
                applyStored(&events)
            } else if case .stale = error {
                // Stale answer, fresh stored metadata: what runs stays.
            } else if case .failure(let unusable) = loadStored(), case .staleBeyondBound = unusable {
                stopChannel(reason: unusable.description, &events)
            }
            return events
        case .success(let found):
            targets = found
        }
        emit(.refreshed(channel: channel, releases: targets.count), &events)
        do { try verifiedCopy.save(from: metadataDirectory) } catch {
            emit(.storageFailed(message: "last verified metadata not saved: \(error)"), &events)
        }
        let first = select(targets, &events)
        var files: [String: URL] = [:]
        for (path, release) in first.chosen.map({ ($0.value.target.path, $0.value) }).sorted(by: { $0.0 < $1.0 }) {
            if let cached = updater.cachedTarget(release.target, in: targetsDirectory) {
                files[path] = cached
                continue
            }
            if release.target.file.length > configuration.maxTargetBytes {
                emit(.refused(path: path, reason: .targetTooLarge(path: path, length: release.target.file.length)), &events)
                continue
            }
            let directory = targetsDirectory
            let target = release.target
            let downloaded: Result<URL, PatchClientError> = BlockingWait.run(until: deadline) {
                do { return .success(try await updater.download(target, to: directory)) } catch let error as UpdaterError {
                    return .failure(.target(path: path, error))
                } catch {
                    return .failure(.storage("\(error)"))
                }
            } ?? .failure(.deadline)
            switch downloaded {
            case .success(let url): files[path] = url
            case .failure(let error): emit(.refused(path: path, reason: error), &events)
            }
        }
        crashLoopGuard.networkWaitEnded()
        // Releases whose target couldn't be had are left out, so a lower version that is still
        // cached (and still listed) runs instead.
        let chosenPaths = Set(first.chosen.values.map(\.target.path))
        let obtainable = targets.filter { !chosenPaths.contains($0.path) || files[$0.path] != nil }
        let selection = obtainable.count == targets.count ? first : select(obtainable, &events, quiet: true)
        reconcile(selection, files: files, source: .network, &events)
        for release in selection.releases {
            if let reason = selection.exclusions[release.target.path] { emit(.notSelected(release.reference, reason: reason), &events) }
        }
        removeUnlistedTargets(keeping: Set(targets.map { Updater.localName(for: $0.path) }))
        return events
    }

    // MARK: - Selection and applying

    private func updaterConfiguration(_ directory: URL) -> UpdaterConfiguration {
        var config = UpdaterConfiguration(metadataDirectory: directory, metadataBaseURL: configuration.metadataURL,
                                          targetBaseURL: configuration.targetsURL)
        config.downloadTimeout = configuration.downloadTimeout
        config.targetMaxLength = configuration.maxTargetBytes
        config.clock = configuration.clock
        return config
    }

    /// Applies the last verified metadata's selection from the cache; stops the channel when
    /// that metadata is older than `maxStaleness` allows.
    private func applyStored(_ events: inout [PatchClientEvent]) {
        guard verifiedCopy.folder() != nil else { return }
        let stored = loadStored()
        let loaded: (updater: Updater, targets: [ResolvedTarget])
        switch stored {
        case .success(let found): loaded = (found.updater, found.targets)
        case .failure(.staleBeyondBound(let freshUntil)):
            stopChannel(reason: PatchClientError.staleBeyondBound(freshUntil: freshUntil).description, &events)
            return
        case .failure(let error):
            emit(.storedMetadataUnusable(error), &events)
            return
        }
        var files: [String: URL] = [:]
        for target in loaded.targets {
            if let url = loaded.updater.cachedTarget(target, in: targetsDirectory) { files[target.path] = url }
        }
        let selection = select(loaded.targets.filter { files[$0.path] != nil }, &events)
        reconcile(selection, files: files, source: .cache, &events)
    }

    /// The channel's targets as the last verified metadata lists them, verified against the
    /// anchored root; `.staleBeyondBound` when it expired more than `maxStaleness` ago.
    private func loadStored() -> Result<(updater: Updater, targets: [ResolvedTarget], freshUntil: Date), PatchClientError> {
        guard let folder = verifiedCopy.folder() else { return .failure(.storedMetadata("none saved")) }
        let updaterConfiguration = updaterConfiguration(folder)
        let updater = Updater(configuration: updaterConfiguration, transport: transport)
        let channel = configuration.channel
        let root = MetadataStore(directory: metadataDirectory).read("root", maxLength: updaterConfiguration.rootMaxLength)
        let bound = configuration.maxStaleness
        let now = configuration.clock()
        let listed: Result<([ResolvedTarget], Date), PatchClientError> = BlockingWait.run(until: Date().addingTimeInterval(configuration.updateDeadline)) {
            do {
                guard let root else { return .failure(.storedMetadata("no anchored root")) }
                try await updater.loadStored(root: root)
                try await Self.checkDevelopmentKeys(updater, channel: channel)
                guard let targets = try await updater.targets(ofRole: channel) else { return .failure(.noChannel(channel)) }
                // After the search: the channel role's own expiry counts too.
                guard let freshUntil = await updater.trustedMetadata?.freshUntil else { return .failure(.storedMetadata("not loaded")) }
                if now.timeIntervalSince(freshUntil) > bound { return .failure(.staleBeyondBound(freshUntil: freshUntil)) }
                return .success((targets, freshUntil))
            } catch let error as PatchClientError {
                return .failure(error)
            } catch {
                return .failure(.storedMetadata("\(error)"))
            }
        } ?? .failure(.deadline)
        return listed.map { (updater, $0.0, $0.1) }
    }

    /// Whether the last verified metadata is usable and not yet expired.
    private func storedIsFresh() -> Bool {
        guard verifiedCopy.folder() != nil, case .success(let stored) = loadStored() else { return false }
        return stored.freshUntil > configuration.clock()
    }

    /// Stops every release of the channel: its metadata can no longer be shown fresh.
    private func stopChannel(reason: String, _ events: inout [PatchClientEvent]) {
        reconciled = true
        emit(.metadataStale(reason: reason), &events)
        for running in liveReleases { revert(running, reason: .stale, &events) }
    }

    private func select(_ targets: [ResolvedTarget], _ events: inout [PatchClientEvent], quiet: Bool = false) -> ChannelSelection {
        let guardRef = crashLoopGuard
        let selection = ChannelSelection(targets: targets, appID: configuration.appID, appVersion: appVersion,
                                         device: configuration.device) {
            guardRef.isDisabled(patchID: $0.patchID, version: $0.version)
        }
        if !quiet {
            for (path, reason) in selection.refusals { emit(.refused(path: path, reason: reason), &events) }
        }
        for release in selection.releases {
            let id = PatchVersionID(patchID: release.release.patchID, version: release.release.version)
            if let launches = newlyDisabled.removeValue(forKey: id) {
                emit(.disabledByCrashLoop(release.reference, launches: launches), &events)
            }
        }
        return selection
    }

    /// Makes the live releases what `selection` chooses.
    private func reconcile(_ selection: ChannelSelection, files: [String: URL], source: PatchClientEvent.Source,
                           _ events: inout [PatchClientEvent]) {
        reconciled = true
        for running in liveReleases where selection.chosen[running.reference.patchID] == nil {
            revert(running, reason: selection.exclusions[running.reference.path] ?? .withdrawn, &events)
        }
        for patchID in selection.chosen.keys.sorted() {
            let chosen = selection.chosen[patchID]!
            let reference = chosen.reference
            if let running = live[patchID], running.reference == reference { continue }
            guard let file = files[reference.path] else { continue }
            // A culprit search of the crash-loop guard is trying other releases this launch.
            if crashLoopGuard.holdsBack(patchID: patchID, version: reference.version) { continue }
            guard let data = try? BoundedFile.contents(of: file, limit: chosen.target.file.length),
                  (try? chosen.target.file.verify(data, what: reference.path)) != nil,
                  let script = String(data: data, encoding: .utf8) else {
                emit(.refused(path: reference.path, reason: .target(path: reference.path, .targetMismatch(path: reference.path, reason: "cached copy changed or is not UTF-8"))), &events)
                continue
            }
            apply(script, reference, source: source, previous: live[patchID],
                  previousReason: selection.exclusions[live[patchID]?.reference.path ?? ""] ?? .superseded, &events)
        }
    }

    private func apply(_ script: String, _ reference: ReleaseReference, source: PatchClientEvent.Source,
                       previous: LiveRelease?, previousReason: DeviceExclusion, _ events: inout [PatchClientEvent]) {
        // Marked before evaluation: a release the guard can't count is not applied.
        do { try crashLoopGuard.willApply(patchID: reference.patchID, version: reference.version) } catch {
            emit(.storageFailed(message: "crash-loop guard: \(error); release \(reference.path) not applied"), &events)
            return
        }
        if let previous { emit(.reverted(previous.reference, reason: previousReason), &events) }
        let name = "\(reference.path)#\(reference.sha256.prefix(12))"
        let file = String(reference.path.split(separator: "/").last ?? Substring(reference.path))
        let set = ScriptSet(scripts: [.init(name: name, file: file, source: script)], bundle: [file: script])
        switch ScriptSwap.replace(previous?.scripts, with: set, applier: applier) {
        case .applied(let scripts):
            if let previous, previous.reference.version != reference.version {
                try? crashLoopGuard.forget(patchID: previous.reference.patchID, version: previous.reference.version, leavesDevice: true)
            }
            live[reference.patchID] = LiveRelease(reference: reference, scripts: scripts)
            emit(.applied(reference, source: source), &events)
        case let .failed(error, _, restored):
            try? crashLoopGuard.forget(patchID: reference.patchID, version: reference.version)
            emit(.failed(reference, message: "\(error)"), &events)
            live[reference.patchID] = nil
            if let previous, let restored {
                live[reference.patchID] = LiveRelease(reference: previous.reference, scripts: restored)
                emit(.applied(previous.reference, source: .cache), &events)
            }
        }
    }

    private func revert(_ running: LiveRelease, reason: DeviceExclusion, _ events: inout [PatchClientEvent]) {
        live[running.reference.patchID] = nil
        try? crashLoopGuard.forget(patchID: running.reference.patchID, version: running.reference.version, leavesDevice: true)
        let failures = ScriptSwap.revert(running.scripts, applier: applier)
        if failures.isEmpty {
            emit(.reverted(running.reference, reason: reason), &events)
        } else {
            emit(.failed(running.reference, message: "revert failed: " + failures.joined(separator: "; ")), &events)
        }
    }

    /// Deletes cached targets the channel no longer lists (a revoked release's script leaves the device).
    private func removeUnlistedTargets(keeping names: Set<String>) {
        guard let files = try? FileManager.default.contentsOfDirectory(atPath: targetsDirectory.path) else { return }
        for name in files where !names.contains(name) {
            try? FileManager.default.removeItem(at: targetsDirectory.appendingPathComponent(name))
        }
    }

    // MARK: - Checks

    /// Throws `developmentKey` when trusted root or the top-level targets' delegation to
    /// `channel` trusts a development key.
    static func checkDevelopmentKeys(_ updater: Updater, channel: String) async throws {
        guard let trusted = await updater.trustedMetadata else { return }
        if let role = trusted.roleTrustingKeys(ofOtherKindThan: false, channel: channel) {
            throw PatchClientError.developmentKey(role: role)
        }
    }

    // MARK: - Plumbing

    private func takePendingEvents() -> [PatchClientEvent] {
        var events: [PatchClientEvent] = []
        let pending = pendingEvents
        pendingEvents = []
        for event in pending { emit(event, &events) }
        return events
    }

    private func emit(_ event: PatchClientEvent, _ events: inout [PatchClientEvent]) {
        switch event {
        case .refused, .failed, .disabledByCrashLoop, .storageFailed, .storedMetadataUnusable, .refreshFailed, .metadataStale, .storedRootDiscarded:
            logger.warning("\(event.description)")
        default:
            logger.info("\(event.description)")
        }
        events.append(event)
        onEvent?(event)
        let deviceID = configuration.device.deviceID
        if let telemetry, let record = TelemetryEvent(event, bucket: { RolloutBucket.bucket(deviceID: deviceID, releaseID: $0) },
                                                      time: configuration.clock()) {
            telemetry.record(record)
        }
    }
}
