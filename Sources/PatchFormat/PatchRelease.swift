import Foundation

/// What PatchEngine keeps in a patch target's `custom` metadata (under `"patchengine"`), signed
/// by the channel role that lists it: which app and versions the patch is for, which devices
/// get it, and whether it is enabled.
///
/// This is the release vocabulary every side shares: `patchctl repo release` and `promote` write
/// it, the release service checks every uploaded channel role against it, and devices (the
/// release channel's `PatchClient` and the live QA loop's `DevelopmentSession`) decide with
/// `exclusion(appID:appVersion:device:releaseID:)`, the one rule. Ranges are held parsed: a value
/// can't carry a malformed one, so a typo is refused where it is signed, not on every device.
public struct PatchRelease: Equatable, Sendable {
    /// The app id the patch is for; `*`: any app (what `patchctl dev` publishes by default).
    public var app: String
    public var patchID: String
    /// The patch's version (1 when the metadata names none): of several releases of one patch id
    /// that a device qualifies for, it runs the highest; the crash-loop guard disables versions.
    public var version: Int
    /// The app versions the patch is for (`app_versions`, e.g. `>=1.2.0 <1.3.0`); nil: all.
    public var appVersions: AppVersionRange?
    /// Share of devices, in hundredths of a percent (0–10 000).
    public var rollout: Int
    public var enabled: Bool
    /// The OS versions the patch is for (`os_versions`); nil: all. A device whose OS version is
    /// unknown matches no range.
    public var osVersions: AppVersionRange?
    /// The hardware models the patch is for; nil: all. A device whose model is unknown matches no list.
    public var models: [String]?
    /// Device attributes the patch is for: every key must have one of its values on the device.
    public var attributes: [String: [String]]?

    public static let maxRollout = 10_000

    public init(app: String, patchID: String, version: Int = 1, appVersions: AppVersionRange? = nil, rollout: Int = maxRollout, enabled: Bool = true,
                osVersions: AppVersionRange? = nil, models: [String]? = nil, attributes: [String: [String]]? = nil) {
        self.app = app
        self.patchID = patchID
        self.version = version
        self.appVersions = appVersions
        self.rollout = rollout
        self.enabled = enabled
        self.osVersions = osVersions
        self.models = models
        self.attributes = attributes
    }

    /// Reads the release from a target's `custom` value; nil if it has none.
    public init?(custom: JSONValue?) throws {
        guard let value = custom?.objectValue?["patchengine"] else { return nil }
        var fields = try JSONFields(value, context: "custom patchengine")
        app = try fields.string("app")
        patchID = try fields.string("patch_id")
        let version = try fields.optionalInteger("version") ?? 1
        guard (1...Int64(Int32.max)).contains(version) else {
            throw FormatError.malformed("custom patchengine: version must be 1 to \(Int32.max)")
        }
        self.version = Int(version)
        appVersions = try fields.optionalString("app_versions").map { try Self.range($0, member: "app_versions") }
        let rollout = try fields.integer("rollout")
        guard (0...Int64(Self.maxRollout)).contains(rollout) else {
            throw FormatError.malformed("custom patchengine: rollout must be 0 to \(Self.maxRollout)")
        }
        self.rollout = Int(rollout)
        enabled = try fields.bool("enabled")
        osVersions = try fields.optionalString("os_versions").map { try Self.range($0, member: "os_versions") }
        models = try fields.optionalStringArray("models")
        if let attributes = try fields.optionalObject("attributes") {
            self.attributes = try attributes.mapValues {
                guard case .array(let list) = $0 else { throw FormatError.malformed("custom patchengine: attributes map to arrays") }
                return try list.map {
                    guard let s = $0.stringValue else { throw FormatError.malformed("custom patchengine: attribute values are strings") }
                    return s
                }
            }
        } else {
            attributes = nil
        }
    }

    /// The `custom` value carrying this release.
    public var custom: JSONValue {
        var members: [String: JSONValue] = [
            "app": .string(app), "patch_id": .string(patchID), "rollout": .integer(Int64(rollout)), "enabled": .bool(enabled),
        ]
        if version != 1 { members["version"] = .integer(Int64(version)) }
        if let appVersions { members["app_versions"] = .string(appVersions.description) }
        if let osVersions { members["os_versions"] = .string(osVersions.description) }
        if let models { members["models"] = .array(models.map { .string($0) }) }
        if let attributes { members["attributes"] = .object(attributes.mapValues { .array($0.map { .string($0) }) }) }
        return .object(["patchengine": .object(members)])
    }

    /// Refuses a role that lists a release whose metadata doesn't parse (a typo'd range, a bad
    /// version): what signing (`Repository.edit`) and the release service's upload check apply,
    /// so no device is ever served one. Throws naming the first such target's path.
    public static func checkReleases(listedIn role: Targets) throws {
        for (path, file) in role.targets.sorted(by: { $0.key < $1.key }) {
            do { _ = try PatchRelease(custom: file.custom) } catch {
                throw FormatError.malformed("\(path): \(error)")
            }
        }
    }

    /// Parses a range member; a malformed one refuses the whole release, naming the member.
    public static func range(_ text: String, member: String) throws -> AppVersionRange {
        do { return try AppVersionRange(parsing: text) } catch {
            throw FormatError.malformed("custom patchengine: \(member): \(error)")
        }
    }

    /// The rule that decides whether a device runs this release; nil: it does. Checked in this
    /// order, the first that fails answering: for this app (`app` is `appID`, or `*`) else
    /// `otherApp`; enabled, else `disabled`; the app version in `appVersions`, the OS version in
    /// `osVersions`, the model in `models`, every `attributes` key with one of its values on the
    /// device, else `notTargeted`; the device's bucket for the release (`RolloutBucket`, keyed by
    /// `releaseID`, the target path) below `rollout`, else `outsideRollout`.
    ///
    /// What lies beyond one release (a higher version superseding it, the crash-loop guard,
    /// staleness) is the caller's to decide.
    public func exclusion(appID: String, appVersion: SemanticVersion, device: DeviceProfile, releaseID: String) -> DeviceExclusion? {
        if app != appID && app != "*" { return .otherApp }
        if !enabled { return .disabled }
        if let appVersions, !appVersions.contains(appVersion) { return .notTargeted }
        if let osVersions {
            guard let os = device.osVersion, osVersions.contains(os) else { return .notTargeted }
        }
        if let models {
            guard let model = device.model, models.contains(model) else { return .notTargeted }
        }
        for (key, allowed) in attributes ?? [:] {
            guard let value = device.attributes[key], allowed.contains(value) else { return .notTargeted }
        }
        if RolloutBucket.bucket(deviceID: device.deviceID, releaseID: releaseID) >= rollout { return .outsideRollout }
        return nil
    }
}
