import Foundation

/// What PatchEngine keeps in a patch target's `custom` metadata (under `"patchengine"`), signed
/// by the channel role that lists it: which app and versions the patch is for, which devices
/// get it, and whether it is enabled. Devices check all of it before applying.
public struct PatchRelease: Equatable, Sendable {
    public var app: String
    public var patchID: String
    /// The patch's version (1 when the metadata names none): of several releases of one patch id
    /// that a device qualifies for, it runs the highest; the crash-loop guard disables versions.
    public var version: Int
    /// An app version range in `AppVersionRange` syntax (e.g. `>=1.2.0 <1.3.0`); nil: all.
    public var appVersions: String?
    /// Share of devices, in hundredths of a percent (0–10 000).
    public var rollout: Int
    public var enabled: Bool
    public var osVersions: String?
    public var models: [String]?
    public var attributes: [String: [String]]?

    public static let maxRollout = 10_000

    public init(app: String, patchID: String, version: Int = 1, appVersions: String? = nil, rollout: Int = maxRollout, enabled: Bool = true,
                osVersions: String? = nil, models: [String]? = nil, attributes: [String: [String]]? = nil) {
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
        appVersions = try fields.optionalString("app_versions")
        let rollout = try fields.integer("rollout")
        guard (0...Int64(Self.maxRollout)).contains(rollout) else {
            throw FormatError.malformed("custom patchengine: rollout must be 0 to \(Self.maxRollout)")
        }
        self.rollout = Int(rollout)
        enabled = try fields.bool("enabled")
        osVersions = try fields.optionalString("os_versions")
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
        if let appVersions { members["app_versions"] = .string(appVersions) }
        if let osVersions { members["os_versions"] = .string(osVersions) }
        if let models { members["models"] = .array(models.map { .string($0) }) }
        if let attributes { members["attributes"] = .object(attributes.mapValues { .array($0.map { .string($0) }) }) }
        return .object(["patchengine": .object(members)])
    }
}
