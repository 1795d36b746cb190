import PatchAuthoring
import PatchDelivery
import PatchSupport

/// The Objective-C origins of the converted scripts `patchctl dev` published (the map
/// `patchctl convert` ends a script with), by version: a device's report names the version and
/// script it ran, so an error is mapped with the map of what that device ran, not of a later save.
final class ConvertedOrigins: Sendable {
    /// Versions kept; a report about an older one is printed without an origin.
    static let maxVersions = 32
    private let maps = LockedValue([Int: [String: ConvertedLineMap]]())

    /// Records the maps of `scripts` (those that carry one still true to their lines) as `version`'s.
    func record(version: Int, scripts: [(name: String, source: String)]) {
        var found: [String: ConvertedLineMap] = [:]
        for (name, source) in scripts { found[name] = ConvertedLineMap(readingScript: source) }
        maps.withLock { maps in
            maps[version] = found
            while maps.count > Self.maxVersions, let oldest = maps.keys.min() { maps[oldest] = nil }
        }
    }

    /// `File.m:line` of the code a report points at, if its script was converted.
    func origin(of report: DevReport) -> String? {
        guard let version = report.version, let script = report.script, let line = report.line else { return nil }
        let position = maps.withLock { $0[version]?[script] }?.origin(ofLine: line)
        return position.map { "\($0.file):\($0.line)" }
    }
}
