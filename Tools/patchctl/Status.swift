import ArgumentParser
import Foundation
import PatchPublishing

extension PatchCtl {
    /// Prints each channel's releases with the counts devices reported.
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show releases per channel with applied / failed / reverted / disabled counts.")

        @OptionGroup var service: ServiceOptions

        func run() throws {
            let channels = try service.client().status()
            if channels.isEmpty { print("no channels"); return }
            for channel in channels {
                print("channel \(channel.channel) #\(channel.sequence)")
                print("  release                  patch                 rollout  state       applied  failed  reverted  disabled")
                for r in channel.releases.reversed() {
                    let name = "\(r.patchID) v\(r.version)"
                    let rollout = String(format: "%g %%", Double(r.rollout) / 100)
                    print("  " + [pad(r.releaseID, 24), pad(name, 21), lpad(rollout, 7), pad(r.state, 9), lpad("\(r.applied)", 9),
                                  lpad("\(r.failed)", 7), lpad("\(r.reverted)", 9), lpad("\(r.disabledByGuard)", 9)].joined(separator: " "))
                }
            }
        }

        private func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
        private func lpad(_ s: String, _ n: Int) -> String { s.count >= n ? s : String(repeating: " ", count: n - s.count) + s }
    }

    /// Uploads a signed revocation list to the release service.
    struct Revocations: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Upload a signed revocation list (from `patchctl revoke`) to the release service; devices take it in with the channel.")

        @Argument(help: ArgumentHelp("Signed revocation list file.", valueName: "LIST")) var list: String
        @OptionGroup var service: ServiceOptions

        func run() throws {
            guard service.publisherKey != nil else { throw CommandFailure("--publisher-key is required") }
            try service.client().putRevocationList(try CommandSupport.read(list, what: "revocation list"))
            print("uploaded \(list)")
        }
    }

    /// Writes the signed files as a static tree for a CDN.
    struct Publish: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the channels' signed documents and patch files as a static tree (for any CDN or static host).")

        @OptionGroup var service: ServiceOptions
        @Option(name: .long, help: "Channels to publish (repeatable).") var channel: [String]
        @Option(name: .long, help: ArgumentHelp("Output directory.", valueName: "DIR")) var out: String

        func run() throws {
            guard !channel.isEmpty else { throw CommandFailure("give at least one --channel") }
            let client = try service.client()
            let snapshot = try client.snapshot(channels: channel)
            let written = try StaticTree.write(channels: snapshot.channels, patches: snapshot.patches,
                                               revocations: try client.revocationList(), to: URL(fileURLWithPath: out))
            for path in written { print(path) }
        }
    }
}
