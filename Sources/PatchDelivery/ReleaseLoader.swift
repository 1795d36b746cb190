import Foundation
import Logging

/// Brings an app the releases of the one channel it follows (staged rollouts): like `PatchLoader`,
/// but which patch runs is decided by a signed `ReleaseChannel` document, so a release can go to
/// 1 %, then 10 %, then every device, be targeted, lowered (devices outside fall back to the
/// previous release) or disabled and enabled again.
///
///     var config = ReleaseLoader.Configuration(
///         baseURL: URL(string: "https://patches.example.com/shop/")!,
///         appID: "com.example.shop", appVersion: "1.4.0", channel: "production",
///         device: DeviceProfile(deviceID: storedRandomID, osVersion: try SemanticVersion(parsing: "17.4"), model: "iPhone15,2"),
///         trustStore: trustStore, stateDirectory: appSupport.appendingPathComponent("releases"))
///     let loader = try ReleaseLoader(configuration: config, telemetry: reporter) { print("release:", $0) }
///     loader.applyCachedReleases()   // at launch, before or without the network
///     loader.update()                // channel document, revocations, patches
///     loader.markLaunchSucceeded()
///
/// Checks, in this order; the first failure refuses the document or the patch:
/// - channel document: it parses strictly; its key is known and not retired; the signature
///   matches its canonical bytes; it is for this app and this channel; its sequence is not lower
///   than the one taken in (per trusted key) and an equal sequence carries the same content;
///   it is fresh (`channelMaxAge`, signed `expires`), else nothing changes.
/// - a release's patch file: every `PatchVerifier` check; it carries the release's patch id; its
///   version and digest are the release's; it is not revoked; the crash-loop guard hasn't disabled it.
/// Unlike `PatchLoader` there is no per-patch version floor: a lower version is applied when the
/// signed channel says so (that is what lowering a rollout means). The channel's sequence is
/// what keeps an attacker from replaying old states, and the exact digest what keeps any other
/// signed patch out.
///
/// Not thread-safe: call it from the thread that owns the engine. `update()` blocks at most `updateDeadline`.
public final class ReleaseLoader {
    public struct Configuration {
        public var baseURL: URL
        /// Further copies of `baseURL` (a CDN, a static mirror), asked when a file can't be had or is refused.
        public var mirrorURLs: [URL] = []
        public var appID: String
        public var appVersion: String
        /// The one channel this app follows (`production`; QA builds follow `staging`).
        public var channel: String
        /// The channel document under the base URL; `channels/<channel>.json` by default.
        public var channelFile: String
        /// The device facts targeting and the rollout bucket use.
        public var device: DeviceProfile
        public var trustStore: TrustStore
        public var stateDirectory: URL
        /// The revocation list under the base URL; nil for none.
        public var revocationListFile: String? = "revocations.json"
        public var revocationListMaxAge: TimeInterval? = 7 * 24 * 3600
        /// How long a channel document stays fresh after it was issued; nil for no limit (a signed
        /// `expires` still applies). A stale document changes nothing on the device.
        public var channelMaxAge: TimeInterval?
        public var timeout: TimeInterval = 10
        public var updateDeadline: TimeInterval = 30
        public var retryPolicy: RetryPolicy = .standard
        public var allowsInsecureHTTP = false
        public var crashLoopThreshold = 2
        public var maxDownloadBytes = 4 << 20

        public init(baseURL: URL, appID: String, appVersion: String, channel: String, device: DeviceProfile,
                    trustStore: TrustStore, stateDirectory: URL, channelFile: String? = nil) {
            self.baseURL = baseURL
            self.appID = appID
            self.appVersion = appVersion
            self.channel = channel
            self.channelFile = channelFile ?? "channels/\(channel).json"
            self.device = device
            self.trustStore = trustStore
            self.stateDirectory = stateDirectory
        }
    }

    /// A release whose scripts are live in this process.
    public struct LiveRelease: Equatable {
        public let release: ReleaseChannel.Release
        public let scriptNames: [String]
        let patch: SignedPatch
    }

    public let configuration: Configuration
    public let crashLoopGuard: CrashLoopGuard
    /// The device's bucket for `releaseID` (what telemetry reports instead of the device id).
    public func bucket(for releaseID: String) -> Int {
        RolloutBucket.bucket(deviceID: configuration.device.deviceID, releaseID: releaseID)
    }

    private let appVersion: SemanticVersion
    private let verifier: PatchVerifier
    private let applier: PatchApplying
    private let fetcher: PatchFetcher
    private let cache: PatchCache
    private let store: ReleaseStateStore
    private var state: ReleaseState
    private let revocationStore: DeliveryStateStore
    private var revocations: DeliveryState
    private var channel: SignedReleaseChannel?
    private var live: [String: LiveRelease] = [:]
    /// Patch versions the crash-loop guard disabled when it opened, with the launches that did it:
    /// reported once, when the release that names them comes up.
    private var newlyDisabled: [PatchVersionID: Int] = [:]
    private let now: () -> Date
    private let telemetry: TelemetryReporter?
    private let onEvent: ((ReleaseEvent) -> Void)?
    private let logger = Logger(label: "PatchDelivery.Release")

    /// - Parameters:
    ///   - telemetry: where applied / failed / reverted / disabled events go (opt-in; nil sends nothing).
    ///   - onEvent: called with every event as it happens, on the caller's thread.
    public init(configuration: Configuration, applier: PatchApplying = EnginePatchApplier(),
                now: @escaping () -> Date = { Date() },
                sleep: @escaping (TimeInterval) -> Void = { Thread.sleep(forTimeInterval: $0) },
                telemetry: TelemetryReporter? = nil,
                onEvent: ((ReleaseEvent) -> Void)? = nil) throws {
        for source in [configuration.baseURL] + configuration.mirrorURLs {
            let scheme = source.scheme?.lowercased()
            guard scheme == "https" || (scheme == "http" && configuration.allowsInsecureHTTP) else {
                throw PatchLoader.ConfigurationError.insecureURL(source.absoluteString)
            }
        }
        do { appVersion = try SemanticVersion(parsing: configuration.appVersion) } catch {
            throw PatchLoader.ConfigurationError.invalidAppVersion("\(error)")
        }
        do { try PatchManifest.validateIdentifier(configuration.channel, field: "channel") } catch {
            throw PatchLoader.ConfigurationError.invalidPatchFiles("\(error)")
        }
        self.configuration = configuration
        self.applier = applier
        self.now = now
        self.telemetry = telemetry
        self.onEvent = onEvent
        verifier = PatchVerifier(trustStore: configuration.trustStore,
                                 target: .init(appID: configuration.appID, appVersion: appVersion), now: now)
        fetcher = PatchFetcher(timeout: configuration.timeout, retryPolicy: configuration.retryPolicy,
                               maxBytes: configuration.maxDownloadBytes, allowsInsecureHTTP: configuration.allowsInsecureHTTP,
                               sleep: sleep, logger: logger)
        let directory = configuration.stateDirectory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        cache = PatchCache(directory: directory.appendingPathComponent("cache"), sizeLimit: configuration.maxDownloadBytes)
        crashLoopGuard = CrashLoopGuard(directory: directory, threshold: configuration.crashLoopThreshold)
        for case let .disabled(id, launches) in crashLoopGuard.verdicts { newlyDisabled[id] = launches }
        store = ReleaseStateStore(directory: directory, channel: configuration.channel, sizeLimit: configuration.maxDownloadBytes)
        state = store.loadState()
        revocationStore = DeliveryStateStore(directory: directory)
        switch revocationStore.load() {
        case .intact(let loaded), .restored(let loaded, _, _): revocations = loaded
        case .none, .lost: revocations = DeliveryState()
        }
    }

    /// The releases live in this process, by patch id.
    public var liveReleases: [LiveRelease] { live.values.sorted { $0.release.patchID < $1.release.patchID } }

    /// The channel document in force (verified), if any.
    public var currentChannel: ReleaseChannel? { channel?.channel }

    // MARK: - Launch

    /// Applies, from the cache only, what the channel document taken in last selects. The stored
    /// document is verified again and must be the one the state recorded (a planted older
    /// document, or one left after the state was lost, is not used).
    @discardableResult
    public func applyCachedReleases() -> [ReleaseEvent] {
        var events: [ReleaseEvent] = []
        if channel == nil, let data = store.loadChannel(), let digest = state.channelDigest,
           let signed = try? verifier.verify(releaseChannelFile: data), signed.digest == digest {
            channel = signed
        }
        reconcile(network: nil, &events)
        return events
    }

    public func markLaunchSucceeded() {
        do { try crashLoopGuard.markLaunchSucceeded() } catch {
            var events: [ReleaseEvent] = []
            emit(.storageFailed(message: "\(error)"), &events)
        }
    }

    // MARK: - Network

    /// Takes in the revocation list and the channel document, then brings the live releases in
    /// line with it: applies what is selected (downloading patches as needed), reverts what no
    /// longer is.
    @discardableResult
    public func update() -> [ReleaseEvent] {
        var events: [ReleaseEvent] = []
        let deadline = Deadline(seconds: configuration.updateDeadline)
        if let listFile = configuration.revocationListFile {
            for source in sources where takeRevocationList(listFile, from: source, deadline, &events) { break }
            if !revocationListIsFresh {
                emit(.revocationListStale(sequence: revocations.revocationSequence), &events)
                return events
            }
        }
        for source in sources where takeChannel(from: source, deadline, &events) { break }
        guard let current = channel, isFresh(current.channel) else {
            emit(.channelStale(channel: configuration.channel, sequence: channel?.channel.sequence), &events)
            return events
        }
        reconcile(network: deadline, &events)
        return events
    }

    private var sources: [URL] { [configuration.baseURL] + configuration.mirrorURLs }

    private func isFresh(_ c: ReleaseChannel) -> Bool {
        let t = now()
        if let maxAge = configuration.channelMaxAge, t.timeIntervalSince(c.issued) > maxAge { return false }
        if let expires = c.expires, t >= expires { return false }
        return true
    }

    private var revocationListIsFresh: Bool {
        revocations.revocationListIsFresh(at: now(), maxAge: configuration.revocationListMaxAge)
    }

    /// True once this source gave a usable answer (a fresh document, or unchanged).
    private func takeChannel(from source: URL, _ deadline: Deadline, _ events: inout [ReleaseEvent]) -> Bool {
        let file = configuration.channelFile
        switch fetcher.fetch(source.appendingPathComponent(file), ifNoneMatch: channel == nil ? nil : state.channelETag, deadline: deadline) {
        case .notModified:
            emit(.channelUnchanged(channel: configuration.channel, sequence: channel?.channel.sequence), &events)
            return channel.map { isFresh($0.channel) } ?? false
        case .failed(let message):
            emit(.fetchFailed(file: file, message: source == configuration.baseURL ? message : "mirror \(source.absoluteString): \(message)"), &events)
            return false
        case let .fetched(data, etag):
            do {
                let signed = try admitChannel(data)
                if signed.digest != state.channelDigest {
                    try store.saveChannel(data)
                    state.channelDigest = signed.digest
                    state.sequenceByKey[signed.channel.keyID] = max(state.sequenceByKey[signed.channel.keyID] ?? 0, signed.channel.sequence)
                    channel = signed
                    state.channelETag = etag
                    try store.saveState(state)
                    emit(.channelUpdated(channel: signed.channel.channel, sequence: signed.channel.sequence), &events)
                } else {
                    channel = signed
                    state.channelETag = etag
                    try store.saveState(state)
                    emit(.channelUnchanged(channel: configuration.channel, sequence: signed.channel.sequence), &events)
                }
                return isFresh(signed.channel)
            } catch let refusal as ReleaseRefusal {
                emit(.channelRefused(reason: refusal), &events)
            } catch let refusal as PatchRefusal {
                emit(.channelRefused(reason: .patch(refusal)), &events)
            } catch {
                emit(.storageFailed(message: "\(error)"), &events)
            }
            return false
        }
    }

    /// The channel-document checks after the signature, in the documented order.
    private func admitChannel(_ data: Data) throws -> SignedReleaseChannel {
        let signed = try verifier.verify(releaseChannelFile: data)
        let c = signed.channel
        guard c.appID == configuration.appID || c.appID == "*" else { throw ReleaseRefusal.wrongApp(expected: configuration.appID, found: c.appID) }
        guard c.channel == configuration.channel else { throw ReleaseRefusal.wrongChannel(expected: configuration.channel, found: c.channel) }
        let trusted = state.sequenceByKey.filter { configuration.trustStore.isTrusted($0.key) }
        if let floor = trusted.values.max() {
            if c.sequence < floor { throw ReleaseRefusal.channelRollback(sequence: c.sequence, current: floor) }
            if c.sequence == floor, let held = channel, held.channel.sequence == floor, held.digest != signed.digest {
                throw ReleaseRefusal.channelReplay(sequence: c.sequence)
            }
        }
        return signed
    }

    private func takeRevocationList(_ file: String, from source: URL, _ deadline: Deadline, _ events: inout [ReleaseEvent]) -> Bool {
        switch RevocationListIntake.take(source.appendingPathComponent(file), into: &revocations, fetcher: fetcher, verifier: verifier,
                                         trustStore: configuration.trustStore, deadline: deadline) {
        case .unchanged:
            return revocationListIsFresh
        case .fetchFailed(let message):
            emit(.fetchFailed(file: file, message: message), &events)
            return false
        case .refused(let reason):
            emit(.revocationListRefused(reason: reason), &events)
            return false
        case .taken(let list):
            do { try revocationStore.save(&revocations) } catch { emit(.storageFailed(message: "\(error)"), &events) }
            emit(.revocationListUpdated(sequence: list.sequence), &events)
            return revocationListIsFresh
        }
    }

    // MARK: - Reconciling

    /// Makes the live releases what the channel selects for this device. `network` nil: cache only.
    private func reconcile(network deadline: Deadline?, _ events: inout [ReleaseEvent]) {
        guard let current = channel?.channel else { return }
        for release in current.releases {
            if let launches = newlyDisabled.removeValue(forKey: PatchVersionID(patchID: release.patchID, version: release.version)) {
                emit(.disabledByCrashLoop(releaseID: release.releaseID, patchID: release.patchID, version: release.version,
                                          launches: launches), &events)
            }
        }
        // Releases this device must not run fall back to the previous one, like a lowered rollout.
        var blocked = Set(current.releases.filter {
            revocations.isRevoked($0.patchID, version: $0.version) || crashLoopGuard.isDisabled(patchID: $0.patchID, version: $0.version)
        }.map(\.releaseID))
        var selection = ReleaseSelection(channel: current, appVersion: appVersion, profile: configuration.device, blocked: blocked)
        // Revoked releases go first and stay out, whatever the channel says.
        for running in liveReleases where revocations.isRevoked(running.release.patchID, version: running.release.version) {
            revert(running, reason: .revoked, &events)
        }
        for running in liveReleases {
            let wanted = selection.chosen[running.release.patchID]
            if wanted == nil, let exclusion = selection.exclusion(of: running.release.releaseID) {
                revert(running, reason: .excluded(exclusion), &events)
            }
        }
        for patchID in selection.chosen.keys.sorted() {
            // A release the crash-loop guard disables now is blocked, and the next one for the id tried.
            while let release = selection.chosen[patchID] {
                if let running = live[release.patchID], running.patch.digest == release.digest { break }
                guard let obtained = obtain(release, deadline, &events) else { break }
                if let refusal = admissionRefusal(release, &events) {
                    emit(.refused(releaseID: release.releaseID, reason: refusal), &events)
                    blocked.insert(release.releaseID)
                    selection = ReleaseSelection(channel: current, appVersion: appVersion, profile: configuration.device, blocked: blocked)
                    if let running = live[patchID], selection.chosen[patchID]?.releaseID != running.release.releaseID {
                        revert(running, reason: .excluded(selection.exclusion(of: running.release.releaseID) ?? .blocked), &events)
                    }
                    continue
                }
                apply(obtained.patch, release: release, source: obtained.source, selection: selection, &events)
                break
            }
        }
    }

    /// The verified patch a release names: the cached copy if it is exactly that patch, else
    /// (with a deadline) downloaded from the sources in turn.
    private func obtain(_ release: ReleaseChannel.Release, _ deadline: Deadline?, _ events: inout [ReleaseEvent]) -> SignedPatchSource? {
        if case .valid(let patch) = cache.patch(forFile: release.file, patchID: release.patchID, verifier: verifier),
           matches(patch, release) == nil {
            return SignedPatchSource(patch: patch, source: .cache)
        }
        guard let deadline else { return nil }
        for source in sources {
            switch fetcher.fetch(source.appendingPathComponent(release.file), ifNoneMatch: nil, deadline: deadline) {
            case .notModified, .failed:
                emit(.fetchFailed(file: release.file, message: "from \(source.absoluteString)"), &events)
            case .fetched(let data, _):
                do {
                    let patch = try verifier.verify(patchFile: data, patchID: release.patchID)
                    if let mismatch = matches(patch, release) { throw mismatch }
                    do { try cache.store(patch: data, forFile: release.file) } catch { emit(.storageFailed(message: "\(error)"), &events) }
                    return SignedPatchSource(patch: patch, source: .network)
                } catch let refusal as ReleaseRefusal {
                    emit(.refused(releaseID: release.releaseID, reason: refusal), &events)
                } catch {
                    emit(.refused(releaseID: release.releaseID, reason: .patch(error as? PatchRefusal ?? .malformed("\(error)"))), &events)
                }
            }
        }
        return nil
    }

    private func matches(_ patch: SignedPatch, _ release: ReleaseChannel.Release) -> ReleaseRefusal? {
        if patch.manifest.version != release.version {
            return .versionMismatch(releaseID: release.releaseID, expected: release.version, found: patch.manifest.version)
        }
        if patch.digest != release.digest {
            return .digestMismatch(releaseID: release.releaseID, expected: release.digest, found: patch.digest)
        }
        return nil
    }

    private func admissionRefusal(_ release: ReleaseChannel.Release, _ events: inout [ReleaseEvent]) -> ReleaseRefusal? {
        let id = release.patchID, version = release.version
        if revocations.isRevoked(id, version: version) { return .patch(.revoked(patchID: id, version: version)) }
        if crashLoopGuard.isDisabled(patchID: id, version: version) { return .patch(.disabledByCrashLoop(patchID: id, version: version)) }
        return nil
    }

    private func apply(_ patch: SignedPatch, release: ReleaseChannel.Release, source: PatchEvent.Source,
                       selection: ReleaseSelection, _ events: inout [ReleaseEvent]) {
        // A culprit search of the crash-loop guard is trying other patches this launch: keep this one for later.
        if crashLoopGuard.holdsBack(patchID: release.patchID, version: release.version) { return }
        let previous = live[release.patchID]
        // Marked before evaluation, and first of all: unmarked (a full or read-only disk), nothing
        // is evaluated and the previous release stays live.
        do { try crashLoopGuard.willApply(patchID: release.patchID, version: release.version) } catch {
            emit(.storageFailed(message: "crash-loop guard: \(error); release \(release.releaseID) not applied"), &events)
            return
        }
        if let previous {
            revert(previous, reason: .excluded(selection.exclusion(of: previous.release.releaseID) ?? .superseded), &events)
        }
        let names: [String]
        do { names = try applier.applyAll(patch) } catch {
            try? crashLoopGuard.forget(patchID: release.patchID, version: release.version)
            emit(.failed(releaseID: release.releaseID, patchID: release.patchID, version: release.version, message: "\(error)"), &events)
            if let previous { restore(previous, &events) }
            return
        }
        live[release.patchID] = LiveRelease(release: release, scriptNames: names, patch: patch)
        emit(.applied(releaseID: release.releaseID, patchID: release.patchID, version: release.version, source: source), &events)
    }

    /// Brings back the release a failed one was replacing (it ran a moment ago, so it is trusted as it was).
    private func restore(_ previous: LiveRelease, _ events: inout [ReleaseEvent]) {
        guard let names = try? applier.applyAll(previous.patch) else { return }
        live[previous.release.patchID] = LiveRelease(release: previous.release, scriptNames: names, patch: previous.patch)
        emit(.applied(releaseID: previous.release.releaseID, patchID: previous.release.patchID, version: previous.release.version, source: .cache), &events)
    }

    private func revert(_ running: LiveRelease, reason: ReleaseEvent.RevertReason, _ events: inout [ReleaseEvent]) {
        let failures = applier.revertAll(running.scriptNames)
        live[running.release.patchID] = nil
        try? crashLoopGuard.forget(patchID: running.release.patchID, version: running.release.version, leavesDevice: true)
        let r = running.release
        if failures.isEmpty {
            emit(.reverted(releaseID: r.releaseID, patchID: r.patchID, version: r.version, reason: reason), &events)
        } else {
            emit(.failed(releaseID: r.releaseID, patchID: r.patchID, version: r.version, message: "revert failed: " + failures.joined(separator: "; ")), &events)
        }
    }

    private func emit(_ event: ReleaseEvent, _ events: inout [ReleaseEvent]) {
        switch event {
        case .channelRefused, .failed, .refused, .disabledByCrashLoop, .revocationListRefused, .storageFailed:
            logger.warning("\(event.description)")
        default:
            logger.info("\(event.description)")
        }
        events.append(event)
        onEvent?(event)
        if let telemetry, let record = TelemetryEvent(event, bucket: bucket(for:), time: now()) {
            telemetry.record(record)
        }
    }
}

/// A verified patch and where it came from.
private struct SignedPatchSource {
    var patch: SignedPatch
    var source: PatchEvent.Source
}
