import Foundation
import PatchUpdater

/// What a `ReleaseLoader` remembers between launches about its channel: the highest document
/// sequence taken in per signing key (rollback protection), the digest of the document in force
/// (a stored document is used at launch only if it is that one) and its ETag.
struct ReleaseState: Codable, Equatable {
    var sequenceByKey: [String: Int] = [:]
    var channelDigest: String?
    var channelETag: String?
}

/// Files of one followed channel in the loader's state directory: `release-state-<channel>.json`
/// and the verified document `channel-<channel>.json`, both written atomically, read bounded.
struct ReleaseStateStore {
    let stateStore: JSONFileStore<ReleaseState>
    let channelURL: URL
    let sizeLimit: Int

    init(directory: URL, channel: String, sizeLimit: Int) {
        stateStore = JSONFileStore(url: directory.appendingPathComponent("release-state-\(channel).json"))
        channelURL = directory.appendingPathComponent("channel-\(channel).json")
        self.sizeLimit = sizeLimit
    }

    /// The state, or an empty one when missing or unreadable (then the stored document is not used
    /// until a network one has been taken in: `channelDigest` is nil).
    func loadState() -> ReleaseState {
        if case .success(let state?) = stateStore.load() { return state }
        return ReleaseState()
    }

    func saveState(_ state: ReleaseState) throws { try stateStore.save(state) }

    func loadChannel() -> Data? { try? BoundedFile.contents(of: channelURL, limit: sizeLimit) }

    func saveChannel(_ data: Data) throws { try AtomicFile.write(data, to: channelURL) }
}
