import ArgumentParser
import Foundation
import Logging
import PatchDelivery
import PatchFormat

/// `fleet`: simulated devices following a release channel of the app's TUF repository, in one
/// process (`make demo`).
///
/// Each device has its own install id, state directory and `PatchClient`; its "engine" only
/// records which scripts are live (the shop itself shows a real engine). Device state persists
/// between runs under DIR, so a second run shows what a rollout change does to devices that
/// already have a release.
@main
struct Fleet: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "fleet", abstract: "Run simulated devices against a release channel.")

    @Option(help: "Base URL of the repository (serving metadata/ and targets/).") var repository: String
    @Option(help: "The root metadata the app ships with.") var root: String
    @Option(help: "Directory for the devices' state (kept between runs).") var state: String
    @Option(help: "Channel the devices follow.") var channel = "production"
    @Option(help: "Number of devices.") var devices = 200
    @Option(help: "App id.") var appID = "com.example.shop"

    func run() throws {
        // 200 devices' info lines would bury the summary: only warnings reach the terminal.
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .error
            return handler
        }
        var text = repository
        if !text.hasSuffix("/") { text += "/" }
        guard let base = URL(string: text), base.host != nil else { throw ValidationError("--repository must be a URL") }
        guard let rootData = FileManager.default.contents(atPath: root) else { throw ValidationError("cannot read --root \(root)") }
        var running: [String: Int] = [:]
        var reverted = 0, failed = 0, refused: [String: Int] = [:]
        for n in 0..<devices {
            let id = "sim-device-\(n)"
            var config = PatchClientConfiguration(
                metadataURL: base.appendingPathComponent("metadata/"), targetsURL: base.appendingPathComponent("targets/"),
                bundledRoot: rootData, appID: appID, appVersion: "1.4.0", channel: channel,
                device: DeviceProfile(deviceID: id, osVersion: SemanticVersion(17, 4), model: "iPhone15,2"),
                stateDirectory: URL(fileURLWithPath: state).appendingPathComponent(id))
            config.allowsInsecureHTTP = true
            config.updateDeadline = 20
            let client = try PatchClient(configuration: config, applier: SimulatedEngine())
            client.applyCached()
            for event in client.update() {
                switch event {
                case .reverted: reverted += 1
                case .failed: failed += 1
                case .refreshFailed(let error): refused[error.code, default: 0] += 1
                case .refused(_, let error): refused[error.code, default: 0] += 1
                default: break
                }
            }
            client.markLaunchSucceeded()
            let label = client.liveReleases.map { String($0.reference.path.dropFirst(channel.count + 1)) }.joined(separator: "+")
            running[label.isEmpty ? "(none)" : label, default: 0] += 1
        }
        print("fleet: \(devices) devices on channel \(channel)")
        for (release, count) in running.sorted(by: { $0.key < $1.key }) {
            let share = String(format: "%.1f", Double(count) * 100 / Double(devices))
            print("  \(release.padding(toLength: 16, withPad: " ", startingAt: 0)) \(count) devices (\(share) %)")
        }
        let refusals = refused.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        print("  reverted this run: \(reverted), failed: \(failed), refused: \(refusals.isEmpty ? "none" : refusals)")
    }
}

/// Records which scripts are live, like the engine would, without evaluating them.
final class SimulatedEngine: PatchApplying {
    private(set) var live: Set<String> = []
    func apply(script: String, name: String, bundle: [String: String]) throws { live.insert(name) }
    func revert(name: String) throws { live.remove(name) }
}
