import Foundation
import PatchFormat
import PatchSupport

/// Ties the root a device trusts to the root its app ships. The device keeps every root version
/// it accepted after the shipped one (`MetadataStore.rootHistoryDirectory`); at each launch the
/// stored root must be reached from the shipped root through that chain, each step signed by a
/// threshold of the previous root's root keys and of its own and exactly one version up (the
/// checks of `TrustedMetadata.updateRoot`, spec §5.3.4–5.3.8; expiry is not checked, as for a
/// chain followed during a refresh). A stored root that is not reached so is discarded with
/// everything accepted under it and the device starts again from the shipped root: whoever could
/// write the state folder once cannot make the device trust a repository of their own.
public enum RootAnchor {
    public enum Outcome: Equatable, Sendable {
        /// The shipped root was installed: there was none stored, or the stored one was older
        /// (an app update shipping a newer root).
        case installed
        /// The stored root chains from the shipped one and stays.
        case kept(version: Int64)
        /// The stored root did not chain from the shipped one (`reason`): it and every file
        /// trusted under it were deleted and the shipped root installed.
        case discarded(reason: String)
    }

    /// Checks the stored root of `metadataDirectory` against `shippedRoot` (which must be signed
    /// by a threshold of its own root keys) and repairs the folder as `Outcome` says.
    public static func anchor(shippedRoot: Data, metadataDirectory: URL, maxLength: Int64 = 512_000) throws -> Outcome {
        let shipped = try TrustedMetadata(rootData: shippedRoot, now: .distantPast)
        let store = MetadataStore(directory: metadataDirectory)
        let reason: String
        switch verify(shipped, shippedRoot, store: store, maxLength: maxLength) {
        case .success(let outcome):
            if case .kept = outcome { return outcome }
            reason = ""
        case .failure(let failure):
            reason = failure.reason
        }
        // An older stored root (an app update): the other files stay, as rollback references
        // (a refresh drops those the new root's keys don't sign). A root that doesn't chain:
        // nothing trusted under it stays.
        if !reason.isEmpty { try store.removeAll() }
        try store.write("root", shippedRoot)
        return reason.isEmpty ? .installed : .discarded(reason: reason)
    }

    private struct Failure: Error {
        var reason: String
    }

    private static func verify(_ shipped: TrustedMetadata, _ shippedRoot: Data, store: MetadataStore, maxLength: Int64) -> Result<Outcome, Failure> {
        let rootFile = store.url(for: "root")
        let data: Data
        do {
            guard let read = try BoundedFile.contents(of: rootFile, limit: maxLength) else { return .success(.installed) }
            data = read
        } catch {
            return .failure(Failure(reason: "stored root unreadable: \(error)"))
        }
        let stored: Metadata<Root>
        do { stored = try Metadata<Root>(data: data, name: "root") } catch {
            return .failure(Failure(reason: "stored root does not parse: \(error)"))
        }
        let shippedVersion = shipped.root.signed.common.version
        let storedVersion = stored.signed.common.version
        if storedVersion < shippedVersion { return .success(.installed) }
        var chain = shipped
        var reached = shippedRoot
        var version = shippedVersion
        while version < storedVersion {
            version += 1
            guard let step = store.readRoot(version: version, maxLength: maxLength) else {
                return .failure(Failure(reason: "stored root version \(storedVersion): version \(version) of the chain from the shipped version \(shippedVersion) is missing"))
            }
            do { try chain.updateRoot(step) } catch {
                return .failure(Failure(reason: "stored root version \(storedVersion): version \(version) does not chain from the shipped root: \(error)"))
            }
            reached = step
        }
        // Byte for byte: the file the updater starts from is the one the chain verified.
        guard reached == data else {
            return .failure(Failure(reason: "stored root version \(storedVersion) is not the one the chain from the shipped root reaches"))
        }
        return .success(.kept(version: storedVersion))
    }
}
