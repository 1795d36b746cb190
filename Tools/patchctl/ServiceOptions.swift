import ArgumentParser
import Foundation
import PatchDelivery
import PatchPublishing

/// Options of the commands that talk to the release service (`patchserver`).
struct ServiceOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The release service's base URL.", valueName: "URL"))
    var server: String

    @Option(name: .long, help: ArgumentHelp("Publisher private key (signs the requests; from `patchctl keygen`).", valueName: "PRIVATE"))
    var publisherKey: String?

    func client() throws -> PublisherClient {
        guard let url = URL(string: server), let scheme = url.scheme, ["http", "https"].contains(scheme) else {
            throw CommandFailure("--server '\(server)' must be an http:// or https:// URL")
        }
        let key = try publisherKey.map { try Self.key($0, what: "publisher key") } ?? SigningKey.generate(id: "anonymous")
        return PublisherClient(baseURL: url.absoluteString.hasSuffix("/") ? url : url.appendingPathComponent(""), publisherKey: key)
    }

    static func key(_ path: String, what: String) throws -> SigningKey {
        do { return try SigningKey(fileData: try CommandSupport.read(path, what: what)) } catch let e as KeyFileError {
            throw CommandFailure("\(path): \(e)")
        }
    }
}

/// Options of the commands that change a channel: the release key signs the next document here.
struct ChannelChangeOptions: ParsableArguments {
    @OptionGroup var service: ServiceOptions

    @Option(name: .long, help: ArgumentHelp("Release private key: signs the channel document (the service never holds it).", valueName: "PRIVATE"))
    var key: String

    /// Applies `edit` to `channel` on the service and prints the result.
    func change(_ channel: String, appID: String?, _ edit: ChannelEdit) throws {
        guard service.publisherKey != nil else { throw CommandFailure("--publisher-key is required to change a channel") }
        let client = try service.client()
        let releaseKey = try ServiceOptions.key(key, what: "release key")
        let current = try client.channel(channel)
        guard let app = appID ?? current?.channel.appID else { throw CommandFailure("channel '\(channel)' does not exist yet") }
        let signed = try client.edit(channel: channel, appID: app, edit, releaseKey: releaseKey)
        print("channel \(channel) #\(signed.channel.sequence):")
        for r in signed.channel.releases {
            print("  \(r.releaseID)  \(r.patchID) v\(r.version)  \(String(format: "%g", Double(r.rollout) / 100)) %  \(r.state.rawValue)")
        }
    }
}
