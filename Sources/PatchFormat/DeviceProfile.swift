import Crypto
import Foundation

/// What a device tells the release logic about itself. Supplied by the app; only the rollout
/// bucket derived from `deviceID` ever leaves the device (telemetry carries the bucket, never the id).
public struct DeviceProfile: Equatable, Sendable {
    /// A stable, app-chosen id (e.g. a random UUID kept in the app's storage). Not sent anywhere.
    public var deviceID: String
    /// The OS version, as a semantic version (`17.4`); nil when unknown (then an OS range never matches).
    public var osVersion: SemanticVersion?
    /// The hardware model (`iPhone15,2`); nil when unknown (then a model list never matches).
    public var model: String?
    /// App-supplied attributes matched by a release's targeting (`tier: beta`).
    public var attributes: [String: String]

    public init(deviceID: String, osVersion: SemanticVersion? = nil, model: String? = nil, attributes: [String: String] = [:]) {
        self.deviceID = deviceID
        self.osVersion = osVersion
        self.model = model
        self.attributes = attributes
    }
}

/// A device's stable position for one release, 0..<10000: the first 8 bytes of
/// SHA-256(releaseID + "\n" + deviceID), big-endian, modulo 10000. A device is in a rollout of
/// `r` hundredths of a percent when its bucket is below `r`, so raising a rollout only adds
/// devices and lowering it only removes them; mixing in the release id gives each release an
/// independent sample (the same 1 % of devices doesn't get every first wave).
public enum RolloutBucket {
    public static let count = PatchRelease.maxRollout

    public static func bucket(deviceID: String, releaseID: String) -> Int {
        let digest = SHA256.hash(data: Data((releaseID + "\n" + deviceID).utf8))
        let value = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Int(value % UInt64(count))
    }
}
