import ArgumentParser
import Foundation
import Logging
import PatchDelivery

/// `fleet`: simulated devices following a release channel, in one process (`make demo`).
///
/// Each device has its own id, state directory and `ReleaseLoader`; its "engine" only records
/// which scripts are live (the shop itself shows a real engine). Device state persists between
/// runs under DIR, so a second run shows what a rollout change does to devices that already
/// have a release. Telemetry goes to the service in batches, as a real app's would.
@main
struct Fleet: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "fleet", abstract: "Run simulated devices against a release channel.")

    @Option(help: "Base URL the devices download from.") var server: String
    @Option(help: "Public release key file the devices trust.") var publicKey: String
    @Option(help: "Directory for the devices' state (kept between runs).") var state: String
    @Option(help: "Channel the devices follow.") var channel = "production"
    @Option(help: "Number of devices.") var devices = 200
    @Option(help: "App id.") var appID = "com.example.shop"

    func run() throws {
        // 200 devices' info lines would bury the summary: only warnings reach the terminal.
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        guard let base = URL(string: server) else { throw ValidationError("--server must be a URL") }
        let trust = try TrustStore(publicKeyFiles: [URL(fileURLWithPath: publicKey)])
        var telemetry = TelemetryReporter.Configuration(collectorURL: base.appendingPathComponent("telemetry"), appID: appID,
                                                        appVersion: "1.4.0", channel: channel, directory: nil)
        telemetry.allowsInsecureHTTP = true
        telemetry.batchSize = 100
        let reporter = try TelemetryReporter(configuration: telemetry)
        var running: [String: Int] = [:]
        var reverted = 0, failed = 0
        for n in 0..<devices {
            let id = "sim-device-\(n)"
            var config = ReleaseLoader.Configuration(baseURL: base, appID: appID, appVersion: "1.4.0", channel: channel,
                                                     device: DeviceProfile(deviceID: id, osVersion: SemanticVersion(17, 4), model: "iPhone15,2"),
                                                     trustStore: trust, stateDirectory: URL(fileURLWithPath: state).appendingPathComponent(id))
            config.allowsInsecureHTTP = true
            config.retryPolicy = RetryPolicy(maxAttempts: 2)
            let engine = SimulatedEngine()
            let loader = try ReleaseLoader(configuration: config, applier: engine, telemetry: reporter)
            loader.applyCachedReleases()
            for event in loader.update() {
                if case .reverted = event { reverted += 1 }
                if case .failed = event { failed += 1 }
            }
            loader.markLaunchSucceeded()
            let label = loader.liveReleases.map(\.release.releaseID).joined(separator: "+")
            running[label.isEmpty ? "(none)" : label, default: 0] += 1
        }
        let delivered = reporter.flush(timeout: 30)
        print("fleet: \(devices) devices on channel \(channel)")
        for (release, count) in running.sorted(by: { $0.key < $1.key }) {
            let share = String(format: "%.1f", Double(count) * 100 / Double(devices))
            print("  \(release.padding(toLength: 16, withPad: " ", startingAt: 0)) \(count) devices (\(share) %)")
        }
        print("  reverted this run: \(reverted), failed: \(failed), telemetry \(delivered ? "delivered" : "queued (collector unreachable)")")
    }
}

/// Records which scripts are live, like the engine would, without evaluating them.
final class SimulatedEngine: PatchApplying {
    private(set) var live: Set<String> = []
    func apply(script: String, name: String, bundle: [String: String]) throws { live.insert(name) }
    func revert(name: String) throws { live.remove(name) }
}
