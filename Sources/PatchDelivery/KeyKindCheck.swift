import PatchFormat
import PatchUpdater

extension TrustedMetadata {
    /// The first role a client of one kind must refuse, if any: a top-level role of the trusted
    /// root, then `channel`'s delegation, that trusts a development key when `development` is false
    /// (`PatchClient`: a release build) or a release key when it is true (`DevelopmentSession`).
    /// Development and release keys never sign for the same client (docs/patch-delivery.md).
    func roleTrustingKeys(ofOtherKindThan development: Bool, channel: String) -> String? {
        let root = root.signed
        if let role = development ? root.firstRoleTrustingReleaseKey : root.firstRoleTrustingDevelopmentKey { return role }
        guard let delegations = targets("targets", delegator: "root")?.signed.delegations,
              let keys = delegations.keys(for: channel) else { return nil }
        return keys.keyids.contains { (delegations.keys[$0]?.isDevelopment == true) != development } ? channel : nil
    }
}
