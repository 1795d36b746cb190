import Foundation
import PatchFormat

/// One kind of key per repository: a release repository trusts release keys only, a development
/// repository (`DevelopmentRepository`, the live QA loop's) development keys only. A release
/// build's `PatchClient` refuses every role that trusts a development key and a
/// `DevelopmentSession` every role that trusts a release key (PatchDelivery's `KeyKindCheck`), so
/// a mixed repository would only fail later, on devices; the publisher's tools refuse it first.
extension Repository {
    /// Throws unless every key `root`'s roles and `delegations`' roles trust is of the kind of
    /// `root`'s root keys (development when they all are).
    static func checkKeyKinds(root: Root, delegations: Delegations?) throws {
        let development = !(root.roles["root"]?.keyids ?? []).isEmpty
            && root.roles["root"]!.keyids.allSatisfy { root.keys[$0]?.isDevelopment == true }
        func check(_ role: String, _ keyids: [String], _ keys: [String: PublicKey]) throws {
            for id in keyids.sorted() {
                guard let key = keys[id], key.isDevelopment != development else { continue }
                if development {
                    throw RepositoryError("the development repository's \(role) role cannot trust release key \(id.prefix(16))…: "
                                          + "development sessions refuse release keys")
                }
                throw RepositoryError("a release repository's \(role) role cannot trust development key \(id.prefix(16))… "
                                      + "(a `patchctl dev` key): release builds of the app refuse every role that trusts one; "
                                      + "make a release key with `patchctl repo keygen`")
            }
        }
        for (role, keys) in root.roles.sorted(by: { $0.key < $1.key }) { try check(role, keys.keyids, root.keys) }
        for role in delegations?.roles ?? [] { try check(role.name, role.keyids, delegations!.keys) }
    }
}
