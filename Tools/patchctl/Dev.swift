import ArgumentParser
import Dispatch
import Foundation
import PatchUpdater
import PatchDelivery
import PatchFormat
import PatchEngine
import PatchAuthoring
import PatchRepository
import PatchDevServer
import PatchSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension PatchCtl {
    /// The live QA loop: watch a folder of patch scripts, publish each save as a new version of a
    /// development TUF repository (its own root and keys, all development keys) and announce it
    /// to the test apps connected over server-sent events; print what they report.
    struct Dev: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Live QA loop: publish every save of DIR's scripts to connected test apps (development repository).",
            discussion: """
                Watches the .js files in DIR (sorted by name, one patch). On every save (bursts are \
                debounced) it lints them (syntax; class and selector names with --classes; `patchctl check` with --interface), \
                publishes them as the next version of the development repository (a TUF repository whose \
                root, targets, snapshot, timestamp and channel keys are development keys; metadata valid \
                for hours), served at http://HOST:PORT/dev-repository/, and announces the version to every \
                app connected to http://HOST:PORT/_dev/events; each app verifies and downloads it with the \
                TUF updater. Apps open a DevelopmentSession with the development root (dev-root.json in \
                --key-dir, printed at start); production builds refuse it. Each app's reports are printed as \
                they arrive: '[device] v<N> applied', '... syntax error file.js:LINE:COLUMN: message', runtime \
                errors (in a script `patchctl convert` wrote: also the Objective-C FILE.m:LINE it came from) and console.log lines. Keys and repository are made on first use in --key-dir, \
                outside DIR. Runs until interrupted (SIGINT or SIGTERM).
                """)

        @Argument(help: ArgumentHelp("Folder of patch scripts to watch.", valueName: "DIR"))
        var directory: String

        @Option(name: .long, help: "Port to listen on; 0 picks a free one (printed, and written to --port-file).")
        var port: UInt16 = 8765

        @Option(name: .long, help: "IPv4 address to listen on (beyond loopback, anyone on that network can read the scripts).")
        var host: String = "127.0.0.1"

        @Option(name: .customLong("port-file"), help: ArgumentHelp("Write the bound port to this file once listening.", valueName: "FILE"))
        var portFile: String?

        @Option(name: .customLong("key-dir"), help: ArgumentHelp("Where the development repository and its keys live (default ~/.patchengine/dev).", valueName: "DIR"))
        var keyDirectory: String?

        @Option(name: .long, help: "Patch id of the development patch.")
        var id: String = "dev"

        @Option(name: .customLong("app-id"), help: "App id the development patch is for ('*': any).")
        var appID: String = "*"

        @Option(name: .customLong("app-version"), help: "App version range the development patch is for.")
        var appVersion: String = "*"

        @Option(name: .long, help: ArgumentHelp("Class/selector list for the linter (as `patchctl lint --classes`).", valueName: "FILE"))
        var classes: String?

        @Option(name: .long, help: ArgumentHelp("The app's interface (`patchctl interface`): every save is checked against it as `patchctl check` does.", valueName: "IFACE.json"))
        var interface: String?

        @Option(name: .long, help: "Quiet time in milliseconds before a burst of saves is published.")
        var debounce: Int = 40

        func validate() throws {
            guard (0...5000).contains(debounce) else { throw ValidationError("--debounce must be 0...5000 ms") }
        }

        func run() throws {
            let stopSignals = CommandSupport.StopSignals()

            let folder = URL(fileURLWithPath: directory).standardizedFileURL
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw CommandFailure("cannot watch \(directory): not a directory")
            }
            let range: AppVersionRange
            do { range = try AppVersionRange(parsing: appVersion) } catch { throw CommandFailure("--app-version: \(error)") }
            let linter = try classes.map { ScriptLinter(namesFile: try CommandSupport.readText($0, what: "class list")) }
            let checker = try interface.map { PatchChecker(interface: try Check.loadInterface($0)) }
            let keys = try DevKeyDirectory(path: keyDirectory ?? DevKeyDirectory.defaultPath(), watched: folder)
            let (repository, created) = try keys.openOrCreate()

            // What the server serves besides the channel: the development repository's static tree.
            let published = FileManager.default.temporaryDirectory.appendingPathComponent("patchctl-dev-\(getpid())-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: published, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: published) }

            let out = DevOutput()
            let origins = ConvertedOrigins()
            let channel = DevChannel(onReport: { device, data in
                guard let report = DevReport.decode(data) else {
                    return out.line("[\(devPrintable(device))] sent a report that is not one (\(data.count) bytes)")
                }
                out.line(report.formatted(device: device, origin: origins.origin(of: report)))
            }, onDevice: { device, connected in
                out.line("[\(devPrintable(device))] \(connected ? "connected" : "disconnected")")
            })
            let server = PatchServer(directory: published, host: host, port: port, devChannel: channel, log: nil)
            let bound: UInt16
            do { bound = try server.start() } catch { throw CommandFailure("\(error)") }
            defer { server.stop() }

            let publisher = DevPublisher(folder: folder, patchID: id, appID: appID, appVersions: range.comparators.isEmpty ? nil : range,
                                         repository: repository, linter: linter, checker: checker, channel: channel,
                                         served: published.appendingPathComponent(DevelopmentSession.repositoryPath), out: out,
                                         origins: origins)
            out.line("development repository\(created ? " (new)" : "") in \(keys.url.path): give apps \(repository.rootFileURL.path)")
            out.line("watching \(folder.path); devices connect to http://\(host):\(bound)/ (Ctrl-C to stop)")
            if let portFile {
                do { try Data("\(bound)\n".utf8).write(to: URL(fileURLWithPath: portFile), options: .atomic) } catch {
                    throw CommandFailure("cannot write --port-file \(portFile): \(error)")
                }
            }
            let queue = DispatchQueue(label: "patchctl.dev")
            let debouncer = Debouncer(queue: queue, quiet: .milliseconds(debounce), longest: .milliseconds(max(200, debounce * 10))) {
                publisher.publishIfChanged()
            }
            let watcher: FileWatcher
            do {
                watcher = try FileWatchers.make(directory: folder, queue: queue) { name in
                    if let name, !DevPublisher.isScriptName(name) { return }
                    debouncer.poke()
                }
            } catch { throw CommandFailure("\(error)") }
            defer { watcher.stop() }
            queue.sync { publisher.publishCurrent() }
            // Metadata is valid for hours: re-signed well before it expires, for as long as this runs.
            let renewal = DispatchSource.makeTimerSource(queue: queue)
            renewal.schedule(deadline: .now() + 600, repeating: 600)
            renewal.setEventHandler { publisher.renew() }
            renewal.resume()
            defer { renewal.cancel() }

            stopSignals.waitForStop()
            watcher.stop()
            debouncer.cancel()
            // Streams never end on their own: close them now rather than after the grace period.
            channel.disconnectAll()
            out.line("stopped")
        }
    }
}

/// Every line `patchctl dev` prints, one at a time, flushed at once (devices report from
/// server threads while the watcher publishes).
final class DevOutput: Sendable {
    /// Guards standard output, which holds no value of its own here.
    private let output = LockedValue(())
    func line(_ text: String) {
        output.withLock { _ in
            print(text)
            fflush(stdout)
        }
    }
}

/// Runs `action` once saves have been quiet for `quiet`, but never later than `longest` after the
/// first save of a burst (an editor saving without pause still gets published).
final class Debouncer: @unchecked Sendable {
    private let queue: DispatchQueue
    private let quiet: DispatchTimeInterval
    private let longest: DispatchTimeInterval
    private let action: () -> Void
    private var pending: DispatchWorkItem?
    private var burstStart: DispatchTime?

    init(queue: DispatchQueue, quiet: DispatchTimeInterval, longest: DispatchTimeInterval, action: @escaping () -> Void) {
        self.queue = queue
        self.quiet = quiet
        self.longest = longest
        self.action = action
    }

    /// Called on `queue`.
    func poke() {
        let now = DispatchTime.now()
        let start = burstStart ?? now
        burstStart = start
        pending?.cancel()
        let item = DispatchWorkItem { [weak self] in
            guard let self else { return }
            self.pending = nil
            self.burstStart = nil
            self.action()
        }
        pending = item
        queue.asyncAfter(deadline: min(now + quiet, start + longest), execute: item)
    }

    func cancel() { queue.sync { pending?.cancel(); pending = nil } }
}

/// Reads the folder's scripts, lints them, and publishes a new development version when their
/// content changed (editors fire several events per save): the next version of the development
/// repository's channel, the static tree rewritten, the version announced on the live channel.
final class DevPublisher {
    /// Per script and in all: a runaway file is refused, not read whole. In all it is
    /// `DevelopmentSession.Configuration`'s default `maxPatchBytes`: a device would refuse more.
    static let maxScriptBytes = 1 << 20
    static let maxTotalBytes = 1 << 20
    static let maxScripts = 256

    let folder: URL
    let patchID: String
    let appID: String
    let appVersions: AppVersionRange?
    private var repository: DevelopmentRepository
    let linter: ScriptLinter?
    let checker: PatchChecker?
    let channel: DevChannel
    /// Where the repository's static tree is served from.
    let served: URL
    let out: DevOutput
    /// Each published version's converted scripts' Objective-C origins, for the reports.
    let origins: ConvertedOrigins
    private var lastContent: [String: String]?

    init(folder: URL, patchID: String, appID: String, appVersions: AppVersionRange?, repository: DevelopmentRepository,
         linter: ScriptLinter?, checker: PatchChecker? = nil, channel: DevChannel, served: URL, out: DevOutput,
         origins: ConvertedOrigins) {
        self.checker = checker
        self.origins = origins
        self.folder = folder
        self.patchID = patchID
        self.appID = appID
        self.appVersions = appVersions
        self.repository = repository
        self.linter = linter
        self.channel = channel
        self.served = served
        self.out = out
    }

    /// A patch script: `*.js`, not hidden (editors' swap and backup files are).
    static func isScriptName(_ name: String) -> Bool { name.hasSuffix(".js") && !name.hasPrefix(".") }

    /// At start: the tree as recorded is served and its version announced, then the folder is read.
    func publishCurrent() {
        do { try repository.write(to: served) } catch {
            return out.line("cannot write the development repository into \(served.path): \(CommandSupport.reason(error))")
        }
        if let version = repository.currentVersion { _ = try? channel.publish(event: DevelopmentSession.versionEvent, id: String(version), data: String(version)) }
        publishIfChanged()
    }

    /// Re-signs metadata about to expire and serves it (devices read it on their next announcement).
    func renew() {
        do {
            try repository.renewIfNeeded()
            try repository.write(to: served)
        } catch {
            out.line("development metadata not renewed: \(CommandSupport.reason(error))")
        }
    }

    func publishIfChanged() {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter(Self.isScriptName).sorted()
        } catch {
            return out.line("cannot list \(folder.path): \(CommandSupport.reason(error))")
        }
        guard names.count <= Self.maxScripts else {
            return out.line("not published: \(names.count) scripts in \(folder.path), more than \(Self.maxScripts)")
        }
        var scripts: [(name: String, source: String)] = []
        var total = 0
        for name in names {
            switch CommandSupport.readBounded(folder.appendingPathComponent(name).path, limit: Self.maxScriptBytes,
                                                regularFileOnly: true) {
            case .failure(let failure):
                // Gone between listing and reading (a rename in flight): the next event re-reads.
                if failure.isMissingFile { continue }
                return out.line("not published: \(devPrintable(name)): \(failure)")
            case .success(let data):
                total += data.count
                guard total <= Self.maxTotalBytes else { return out.line("not published: the scripts pass \(Self.maxTotalBytes) bytes") }
                guard let text = String(data: data, encoding: .utf8) else { return out.line("not published: \(devPrintable(name)) is not UTF-8") }
                scripts.append((name, text))
            }
        }
        guard !scripts.isEmpty else { return out.line("no .js files in \(folder.path) yet") }
        let content = Dictionary(uniqueKeysWithValues: scripts.map { ($0.name, $0.source) })
        guard content != lastContent else { return }
        // The lint of `patchctl lint`, printed at once; the version is published all the same, so
        // each device reports what its own engine makes of it.
        for (name, source) in scripts {
            do {
                try PatchEngine.checkSyntax(source, name: name)
            } catch let error as PatchError {
                out.line("lint \(devPrintable(name)):\(error.line ?? 1):\(error.column ?? 1): error: \(devPrintable(error.message))")
                continue
            } catch {}
            for warning in linter?.warnings(in: source) ?? [] {
                out.line("lint \(devPrintable(name)):\(warning.line):\(warning.column): warning: \(devPrintable(warning.message))")
            }
            for finding in checker?.check(source) ?? [] {
                out.line("check \(devPrintable(name)):\(finding.line):\(finding.column): \(finding.severity.rawValue): \(devPrintable(finding.message))")
            }
        }
        let version: Int
        do {
            try repository.renewIfNeeded()
            version = try repository.publish(scripts: scripts.map { ($0.name, Data($0.source.utf8)) }, patchID: patchID,
                                             app: appID, appVersions: appVersions)
            try repository.write(to: served)
        } catch {
            return out.line("not published: \(CommandSupport.reason(error))")
        }
        // Before the announcement: a device can report an error as soon as it has the version.
        origins.record(version: version, scripts: scripts)
        let devices: Int
        do { devices = try channel.publish(event: DevelopmentSession.versionEvent, id: String(version), data: String(version)) } catch {
            return out.line("not published: \(error)")
        }
        lastContent = content
        out.line("v\(version) published (\(names.joined(separator: ", "))) to \(devices) device\(devices == 1 ? "" : "s")")
    }
}
