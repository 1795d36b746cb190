import Foundation
import PatchDelivery

/// The publisher's operations on a channel, each producing the channel's next document (sequence
/// + 1, issued now) to be signed with the release key. Only this small document is re-signed;
/// patch files stay as they were signed.
public enum ChannelEdit: Equatable, Sendable {
    /// Adds a release (a patch already uploaded) at the end of the channel.
    case release(ReleaseChannel.Release)
    /// Copies a release from another channel's document (same id, patch, digest, targeting), at `rollout`.
    case promote(ReleaseChannel.Release, rollout: Int)
    /// Sets a release's rollout (hundredths of a percent).
    case rollout(releaseID: String, rollout: Int)
    case disable(releaseID: String)
    case enable(releaseID: String)

    /// Why an edit can't be made.
    public struct Failure: Error, CustomStringConvertible, Equatable {
        public var description: String
    }

    /// The next document of `current` (or a new channel when nil) with this edit applied.
    public func apply(to current: ReleaseChannel?, appID: String, channel: String, now: Date) throws -> ReleaseChannel {
        var next = current ?? ReleaseChannel(appID: appID, channel: channel, sequence: 0, issued: now)
        next.sequence += 1
        next.issued = now
        next.expires = nil
        func index(_ id: String) throws -> Int {
            guard let i = next.releases.firstIndex(where: { $0.releaseID == id }) else {
                throw Failure(description: "channel '\(channel)' has no release '\(id)'")
            }
            return i
        }
        switch self {
        case .release(let release):
            guard next.release(release.releaseID) == nil else { throw Failure(description: "release '\(release.releaseID)' already exists in '\(channel)'") }
            next.releases.append(release)
        case let .promote(release, rollout):
            var copy = release
            copy.rollout = rollout
            copy.state = .enabled
            if let i = next.releases.firstIndex(where: { $0.releaseID == release.releaseID }) {
                next.releases[i] = copy
            } else {
                next.releases.append(copy)
            }
        case let .rollout(id, rollout):
            next.releases[try index(id)].rollout = rollout
        case .disable(let id):
            next.releases[try index(id)].state = .disabled
        case .enable(let id):
            next.releases[try index(id)].state = .enabled
        }
        // Validated when signed (`PatchSigner.sign(_:)` sets the key id, then checks everything).
        return next
    }

    /// Parses a percentage (`10`, `0.5`, `100`) into hundredths of a percent.
    public static func rollout(percent text: String) throws -> Int {
        guard let value = Double(text), value >= 0, value <= 100, (value * 100).rounded() == value * 100 else {
            throw Failure(description: "rollout '\(text)' must be a percentage from 0 to 100 with at most two decimals")
        }
        return Int((value * 100).rounded())
    }
}
