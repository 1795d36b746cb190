/// One version of one patch: what the crash-loop guard suspects, clears or disables.
public struct PatchVersionID: Codable, Hashable, Sendable, CustomStringConvertible {
    public var patchID: String
    public var version: Int

    public init(patchID: String, version: Int) {
        self.patchID = patchID
        self.version = version
    }

    public var description: String { "\(patchID) v\(version)" }
}
