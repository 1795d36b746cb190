import Foundation
import PatchDelivery
import XCTest

/// A publisher's side of staged releases on top of `DeliveryFixture`: signed patches under
/// `patches/`, one signed channel document per channel under `channels/`, and devices following one.
final class ReleaseFixture {
    let delivery: DeliveryFixture
    private(set) var channels: [String: ReleaseChannel] = [:]
    private let test: XCTestCase

    init(_ test: XCTestCase) throws {
        self.test = test
        delivery = try DeliveryFixture(test)
    }

    /// Signs and serves patch `id` version `version`; returns a release for it (not yet published).
    func release(_ releaseID: String, patchID: String = "shop-fixes", version: Int, rollout: Int = ReleaseChannel.fullRollout,
                 targeting: ReleaseChannel.Targeting = .init(), script: String? = nil) throws -> ReleaseChannel.Release {
        let patch = try delivery.patch(id: patchID, version: version,
                                       scripts: [("fix.js", script ?? "// \(patchID) v\(version)\nvar fixed = \(version);\n")])
        let file = "patches/\(patchID)-\(version).json"
        try delivery.serve(patch, as: file)
        return ReleaseChannel.Release(releaseID: releaseID, patchID: patchID, version: version, digest: patch.digest, file: file,
                                      rollout: rollout, targeting: targeting)
    }

    /// Signs `releases` as the next document of `channel` and serves it; returns it.
    @discardableResult
    func publish(_ channel: String, _ releases: [ReleaseChannel.Release], sequence: Int? = nil, key: SigningKey? = nil,
                 issued: Date = Date()) throws -> SignedReleaseChannel {
        let next = sequence ?? ((channels[channel]?.sequence ?? 0) + 1)
        let document = ReleaseChannel(appID: delivery.appID, channel: channel, sequence: next, issued: issued, releases: releases)
        let signed = try PatchSigner(key: key ?? delivery.key).sign(document)
        channels[channel] = signed.channel
        try delivery.serve(signed.fileData(), as: "channels/\(channel).json")
        return signed
    }

    /// Changes one release of the channel's current document and publishes the result.
    @discardableResult
    func change(_ channel: String, _ releaseID: String, _ edit: (inout ReleaseChannel.Release) -> Void) throws -> SignedReleaseChannel {
        var releases = channels[channel]?.releases ?? []
        let i = try XCTUnwrap(releases.firstIndex { $0.releaseID == releaseID })
        edit(&releases[i])
        return try publish(channel, releases)
    }

    func configuration(device: DeviceProfile, channel: String = "production", appVersion: String? = nil,
                       stateDirectory: URL? = nil) -> ReleaseLoader.Configuration {
        var c = ReleaseLoader.Configuration(
            baseURL: delivery.baseURL, appID: delivery.appID, appVersion: appVersion ?? delivery.appVersion, channel: channel,
            device: device, trustStore: delivery.trustStore,
            stateDirectory: stateDirectory ?? delivery.root.appendingPathComponent("devices/\(channel)-\(device.deviceID)"))
        c.revocationListFile = nil
        c.allowsInsecureHTTP = true
        c.retryPolicy = RetryPolicy(maxAttempts: 1)
        c.timeout = 5
        return c
    }

    func loader(_ applier: RecordingApplier, device: DeviceProfile, channel: String = "production",
                configuration: ReleaseLoader.Configuration? = nil, telemetry: TelemetryReporter? = nil) throws -> ReleaseLoader {
        try ReleaseLoader(configuration: configuration ?? self.configuration(device: device, channel: channel),
                          applier: applier, sleep: { _ in }, telemetry: telemetry)
    }

    /// A device id whose bucket for `releaseID` is inside (`true`) or outside a rollout of `rollout`.
    static func deviceID(for releaseID: String, inside: Bool, rollout: Int, salt: String = "") -> String {
        var n = 0
        while true {
            let id = "device-\(salt)\(n)"
            if (RolloutBucket.bucket(deviceID: id, releaseID: releaseID) < rollout) == inside { return id }
            n += 1
        }
    }
}

extension Array where Element == ReleaseEvent {
    var appliedReleases: [String] {
        compactMap { if case .applied(let id, _, _, _) = $0 { return id } else { return nil } }
    }
    var releaseRefusals: [ReleaseRefusal] {
        compactMap {
            switch $0 {
            case .refused(_, let reason), .channelRefused(let reason): return reason
            default: return nil
            }
        }
    }
}

extension ReleaseLoader {
    var liveReleaseIDs: [String] { liveReleases.map(\.release.releaseID) }
}
