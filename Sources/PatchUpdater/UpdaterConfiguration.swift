import Foundation

/// Where an updater keeps its trusted metadata, where the repository is, and its limits.
public struct UpdaterConfiguration: Sendable {
    /// The folder holding `root.json` (put there once, from the app bundle, by `Updater.bootstrap`)
    /// and every other trusted metadata file.
    public var metadataDirectory: URL
    /// The repository's metadata folder (`…/metadata/`).
    public var metadataBaseURL: URL
    /// The repository's target folder (`…/targets/`); needed only to download targets.
    public var targetBaseURL: URL?

    /// Maxima for metadata whose length nothing names (python-tuf's defaults): a download is cut
    /// as soon as it passes them.
    public var rootMaxLength: Int64 = 512_000
    public var timestampMaxLength: Int64 = 16_384
    public var snapshotMaxLength: Int64 = 2_000_000
    public var targetsMaxLength: Int64 = 5_000_000
    /// The largest target file taken: a target whose signed length is above it is refused
    /// before its cached copy is read or a download starts. (Signed lengths above the metadata
    /// maxima are refused the same way.)
    public var targetMaxLength: Int64 = 32 << 20
    /// How many new root versions one refresh follows at most (spec §5.3.3).
    public var maxRootRotations = 256
    /// How many roles one target search visits at most (spec §5.6.7).
    public var maxDelegations = 32
    /// How long one download may take, start to end.
    public var downloadTimeout: TimeInterval = 60
    /// Whether target URLs carry a hash prefix when root says consistent snapshots are used.
    public var prefixTargetsWithHash = true
    /// The current time (expiry is checked against it; fixed once per refresh).
    public var clock: @Sendable () -> Date = { Date() }

    public init(metadataDirectory: URL, metadataBaseURL: URL, targetBaseURL: URL? = nil) {
        self.metadataDirectory = metadataDirectory
        self.metadataBaseURL = metadataBaseURL
        self.targetBaseURL = targetBaseURL
    }
}
