import ArgumentParser
import Foundation
import PatchDelivery
import PatchPublishing

extension PatchCtl {
    /// Uploads a signed patch and adds it as a release to a channel.
    struct Release: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Upload a signed patch to the release service and release it on a channel.",
            discussion: """
                The patch keeps its signature; only the channel document (rollout, targeting, state) is signed \
                anew, with --key, on this machine. Example: patchctl release shop-fixes-3.json --channel staging \
                --server http://127.0.0.1:8080/ --key release.key --publisher-key publisher.key
                """)

        @Argument(help: ArgumentHelp("Signed patch file (from `patchctl sign`).", valueName: "PATCH"))
        var patch: String

        @Option(name: .long, help: "Channel to release on.")
        var channel: String

        @Option(name: .long, help: ArgumentHelp("Share of devices, percent (0–100, two decimals).", valueName: "PERCENT"))
        var rollout = "100"

        @Option(name: .long, help: "Release id (default: <patch id>-<version>).")
        var releaseID: String?

        @Option(name: .long, help: ArgumentHelp("Only these app versions.", valueName: "RANGE"))
        var appVersions: String?

        @Option(name: .long, help: ArgumentHelp("Only these OS versions.", valueName: "RANGE"))
        var osVersions: String?

        @Option(name: .long, help: ArgumentHelp("Only these device models (repeatable).", valueName: "MODEL"))
        var model: [String] = []

        @Option(name: .long, help: ArgumentHelp("Only devices with this attribute value: key=value[,value] (repeatable).", valueName: "KEY=VALUES"))
        var attribute: [String] = []

        @OptionGroup var options: ChannelChangeOptions

        func run() throws {
            let data = try CommandSupport.read(patch, what: "patch")
            let signed: SignedPatch
            do { signed = try SignedPatch(fileData: data) } catch { throw CommandFailure("\(patch): \(error)") }
            var attributes: [String: [String]] = [:]
            for item in attribute {
                let parts = item.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { throw CommandFailure("--attribute '\(item)' must be key=value[,value]") }
                attributes[String(parts[0]), default: []] += parts[1].split(separator: ",").map(String.init)
            }
            let targeting = ReleaseChannel.Targeting(
                appVersions: try appVersions.map { try AppVersionRange(parsing: $0) },
                osVersions: try osVersions.map { try AppVersionRange(parsing: $0) },
                models: model.isEmpty ? nil : model, attributes: attributes.isEmpty ? nil : attributes)
            let client = try options.service.client()
            let uploaded = try client.uploadPatch(data)
            print("uploaded \(uploaded.path) (\(uploaded.digest.prefix(12)))")
            let m = signed.manifest
            let release = ReleaseChannel.Release(
                releaseID: releaseID ?? "\(m.patchID)-\(m.version)", patchID: m.patchID, version: m.version, digest: uploaded.digest,
                file: uploaded.path, rollout: try ChannelEdit.rollout(percent: rollout), targeting: targeting)
            try options.change(channel, appID: m.appID, .release(release))
        }
    }

    /// Copies a release from one channel to another.
    struct Promote: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Promote a release from one channel to another (e.g. staging to production).")

        @Argument(help: "Release id.") var releaseID: String
        @Option(name: .long, help: "Channel the release is on.") var from: String
        @Option(name: .long, help: "Channel to promote it to.") var to: String
        @Option(name: .long, help: ArgumentHelp("Share of devices on the target channel, percent.", valueName: "PERCENT")) var rollout = "100"
        @OptionGroup var options: ChannelChangeOptions

        func run() throws {
            let client = try options.service.client()
            guard let source = try client.channel(from), let release = source.channel.release(releaseID) else {
                throw CommandFailure("channel '\(from)' has no release '\(releaseID)'")
            }
            try options.change(to, appID: source.channel.appID, .promote(release, rollout: try ChannelEdit.rollout(percent: rollout)))
        }
    }

    /// Changes the share of devices a release reaches.
    struct Rollout: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set a release's rollout percentage (lowering it reverts devices outside it to the previous release).")

        @Argument(help: "Release id.") var releaseID: String
        @Argument(help: ArgumentHelp("Share of devices, percent (0–100).", valueName: "PERCENT")) var percent: String
        @Option(name: .long, help: "Channel.") var channel: String
        @OptionGroup var options: ChannelChangeOptions

        func run() throws {
            try options.change(channel, appID: nil, .rollout(releaseID: releaseID, rollout: try ChannelEdit.rollout(percent: percent)))
        }
    }

    /// Pulls a release back everywhere, reversibly.
    struct Disable: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Disable a release: devices revert it (to the previous release); `enable` brings it back.")
        @Argument(help: "Release id.") var releaseID: String
        @Option(name: .long, help: "Channel.") var channel: String
        @OptionGroup var options: ChannelChangeOptions
        func run() throws { try options.change(channel, appID: nil, .disable(releaseID: releaseID)) }
    }

    struct Enable: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Enable a disabled release again.")
        @Argument(help: "Release id.") var releaseID: String
        @Option(name: .long, help: "Channel.") var channel: String
        @OptionGroup var options: ChannelChangeOptions
        func run() throws { try options.change(channel, appID: nil, .enable(releaseID: releaseID)) }
    }
}
