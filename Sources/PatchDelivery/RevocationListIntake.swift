import Foundation

/// Taking in the revocation list from one source, the same for every loader: fetched with the
/// ETag of the list already held, verified, refused below the sequence floor of the keys the app
/// still trusts (rollback; see `DeliveryState.revocationFloor`), merged into the device state.
/// The caller saves the state, reports, and reverts what the list now revokes.
enum RevocationListIntake {
    enum Outcome {
        /// The source answered 304: the device holds its list already.
        case unchanged
        case fetchFailed(String)
        case refused(PatchRefusal)
        /// Verified and merged into the state.
        case taken(RevocationList)
    }

    static func take(_ url: URL, into state: inout DeliveryState, fetcher: PatchFetcher, verifier: PatchVerifier,
                     trustStore: TrustStore, deadline: Deadline) -> Outcome {
        switch fetcher.fetch(url, ifNoneMatch: state.revocationETag, deadline: deadline) {
        case .notModified:
            return .unchanged
        case .failed(let message):
            return .fetchFailed(message)
        case let .fetched(data, etag):
            let signed: SignedRevocationList
            do { signed = try verifier.verify(revocationListFile: data) } catch {
                return .refused(error as? PatchRefusal ?? .malformed("\(error)"))
            }
            if let floor = state.revocationFloor(trusting: trustStore.isTrusted), signed.list.sequence < floor {
                return .refused(.revocationListRollback(sequence: signed.list.sequence, current: floor))
            }
            state.merge(signed.list)
            state.revocationETag = etag
            return .taken(signed.list)
        }
    }
}
