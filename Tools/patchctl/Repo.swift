import ArgumentParser
import Foundation
import PatchFormat
import PatchAuthoring
import PatchRepository

extension PatchCtl {
    /// `patchctl repo`: the TUF repository of a patch delivery (docs/tuf-design.md).
    struct Repo: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Keep a TUF repository of patches: roles, keys, channels, releases, publishing.",
            discussion: """
                Every edit starts from this repository's own record (DIR/record), verified on every \
                command, and is signed with the keys found in --keys folders (default DIR/keys). An edit \
                short of a threshold of signatures is staged until other key holders sign it (repo sign, \
                repo merge).
                """,
            subcommands: [RepoInit.self, RepoKeygen.self, RepoRelease.self, RepoPromote.self, RepoRollout.self, RepoDisable.self,
                          RepoEnable.self, RepoRevoke.self, RepoRenew.self, RepoTimestamp.self, RepoRotate.self, RepoSign.self,
                          RepoMerge.self, RepoPublish.self, RepoStatus.self])
    }
}

/// Options every repository command shares.
struct RepoOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("Repository folder.", valueName: "DIR"))
    var directory: String

    @Option(name: .long, help: ArgumentHelp("Folder of key files to sign with (repeatable; default DIR/keys).", valueName: "KEYS"))
    var keys: [String] = []

    var url: URL { URL(fileURLWithPath: directory, isDirectory: true) }

    func open() throws -> Repository {
        do { return try Repository(directory: url) } catch { throw CommandFailure("\(error)") }
    }

    func signingKeys() throws -> [SigningKey] {
        let folders = keys.isEmpty ? [url.appendingPathComponent("keys")] : keys.map { URL(fileURLWithPath: $0, isDirectory: true) }
        do { return try folders.flatMap { try KeyFile.readAll(in: $0) } } catch { throw CommandFailure("\(error)") }
    }
}

func repoRun(_ body: () throws -> Void) throws {
    do { try body() } catch let failure as CommandFailure { throw failure } catch { throw CommandFailure("\(error)") }
}

/// Parses `key=value` pairs into the attribute map (a key given twice accepts either value).
func parseAttributes(_ pairs: [String]) throws -> [String: [String]]? {
    guard !pairs.isEmpty else { return nil }
    var out: [String: [String]] = [:]
    for pair in pairs {
        guard let eq = pair.firstIndex(of: "="), eq != pair.startIndex, pair.index(after: eq) != pair.endIndex else {
            throw CommandFailure("attribute '\(pair)' must be KEY=VALUE")
        }
        let key = String(pair[..<eq]), value = String(pair[pair.index(after: eq)...])
        if !(out[key]?.contains(value) ?? false) { out[key, default: []].append(value) }
    }
    return out
}

/// Parses a version range option (nil when absent): a typo is refused here, before anything is
/// signed, rather than by every device.
func parseRange(_ text: String?, _ option: String) throws -> AppVersionRange? {
    guard let text else { return nil }
    do { return try AppVersionRange(parsing: text) } catch { throw CommandFailure("\(option): \(error)") }
}

/// Parses a percentage with up to two decimals into hundredths of a percent.
func parseRollout(_ text: String) throws -> Int {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    guard (1...2).contains(parts.count), let whole = Int(parts[0]), parts.count == 1 || (1...2).contains(parts[1].count),
          let fraction = parts.count == 2 ? Int(parts[1].padding(toLength: 2, withPad: "0", startingAt: 0)) : 0,
          (0...100).contains(whole), whole * 100 + fraction <= PatchRelease.maxRollout else {
        throw CommandFailure("rollout '\(text)' must be a percentage from 0 to 100 with at most two decimals")
    }
    return whole * 100 + fraction
}

struct RepoInit: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "init", abstract: "Create a repository: keys, root, targets, channels, snapshot, timestamp.")

    @Argument(help: ArgumentHelp("Repository folder (created).", valueName: "DIR")) var directory: String
    @Option(name: .long, help: "Channel roles, delegated in this order (repeatable).") var channel: [String] = ["staging", "production"]
    @Option(name: .long, help: "Number of root keys.") var rootKeys = 3
    @Option(name: .long, help: "Root signature threshold.") var rootThreshold: Int64 = 2
    @Option(name: .long, help: "Key type: ed25519, ecdsa-sha2-nistp256 or rsassa-pss-sha256.") var keyType = "ed25519"
    @Option(name: .long, help: "Folder the new private keys are written to (default DIR/keys; no development keys in it, no key file overwritten).") var keys: String?
    @Option(name: .long, help: "Timestamp validity in seconds (how soon devices must see a revocation).") var timestampExpiry: Int = 86_400
    @Option(name: .long, help: "Snapshot validity in seconds.") var snapshotExpiry: Int = 7 * 86_400
    @Option(name: .long, help: "Validity of targets and channel metadata in seconds (edits re-sign them).") var targetsExpiry: Int = 90 * 86_400
    @Option(name: .long, help: "Root validity in seconds.") var rootExpiry: Int = 365 * 86_400

    func run() throws {
        try repoRun {
            guard let scheme = SigningKey.Scheme(rawValue: keyType) else { throw CommandFailure("unknown key type \(keyType)") }
            let dir = URL(fileURLWithPath: directory, isDirectory: true)
            let keyDir = keys.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? dir.appendingPathComponent("keys")
            // Commands sign with every key of the folder: development keys there (`patchctl dev`'s
            // folder) would sit beside release keys and be overwritten by them.
            if let development = try KeyFile.readAll(in: keyDir).first(where: \.isDevelopment) {
                throw CommandFailure("\(keyDir.path) holds development key \(development.keyID.prefix(16))… (a `patchctl dev` key folder): "
                                     + "a release repository's keys go in a folder of their own (--keys)")
            }
            func make(_ name: String) throws -> SigningKey {
                let file = keyDir.appendingPathComponent("\(name).key")
                guard !FileManager.default.fileExists(atPath: file.path) else {
                    throw CommandFailure("\(file.path) exists: repo init never overwrites a key file (give another --keys folder)")
                }
                let key = try SigningKey.generate(scheme)
                try KeyFile.write(key, to: file)
                return key
            }
            let root = try (1...max(rootKeys, 1)).map { try make("root-\($0)") }
            let initial = InitialKeys(root: root, rootThreshold: rootThreshold, targets: [try make("targets")],
                                      snapshot: try make("snapshot"), timestamp: try make("timestamp"),
                                      channels: Dictionary(uniqueKeysWithValues: try channel.map { ($0, try make("channel-\($0)")) }))
            guard [timestampExpiry, snapshotExpiry, targetsExpiry, rootExpiry].allSatisfy({ $0 > 0 }) else {
                throw CommandFailure("expiry periods must be positive numbers of seconds")
            }
            let settings = RepositorySettings(channels: channel, rootExpiry: TimeInterval(rootExpiry), targetsExpiry: TimeInterval(targetsExpiry),
                                              snapshotExpiry: TimeInterval(snapshotExpiry), timestampExpiry: TimeInterval(timestampExpiry))
            let repository = try Repository.create(directory: dir, settings: settings, keys: initial)
            print("created \(dir.path): root 1 (\(rootThreshold) of \(root.count) keys), channels \(channel.joined(separator: ", ")); keys in \(keyDir.path)")
            print("ship \(dir.path)/record/root/1.root.json with the app as its trusted root (\(repository.root.signed.common.version).root.json)")
        }
    }
}

struct RepoKeygen: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "keygen", abstract: "Write a new private key file (to add with repo rotate).")
    @Argument(help: "Key file to write.") var file: String
    @Option(name: .long, help: "Key type: ed25519, ecdsa-sha2-nistp256 or rsassa-pss-sha256.") var keyType = "ed25519"

    func run() throws {
        try repoRun {
            guard let scheme = SigningKey.Scheme(rawValue: keyType) else { throw CommandFailure("unknown key type \(keyType)") }
            let key = try SigningKey.generate(scheme)
            try KeyFile.write(key, to: URL(fileURLWithPath: file))
            print("key \(key.keyID) written to \(file)")
        }
    }
}

struct RepoRelease: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "release", abstract: "Add a patch to a channel as a target.")
    @OptionGroup var repo: RepoOptions
    @Argument(help: ArgumentHelp("Patch script.", valueName: "FILE")) var file: String
    @Option(name: .long, help: "Channel.") var channel: String
    @Option(name: .long, help: "App identifier the patch is for.") var app: String
    @Option(name: .long, help: "Patch id.") var patchID: String
    @Option(name: .long, help: "Release name (default: the file's name).") var name: String?
    @Option(name: .long, help: "App version range ('>=1.2.0 <1.3.0', '1.4.2', '*'); refused unless it parses.") var appVersions: String?
    @Option(name: .long, help: "Share of devices, percent (two decimals).") var rollout = "100"
    @Option(name: .long, help: "OS version range (as --app-versions).") var osVersions: String?
    @Option(name: .long, help: "Device model (repeatable).") var model: [String] = []
    @Option(name: .long, help: ArgumentHelp("Targeting attribute the device must report (repeatable; several values of one key: any of them).",
                                            valueName: "KEY=VALUE")) var attribute: [String] = []
    @Option(name: .long, help: "Patch version (of several releases of one patch id, devices run the highest).") var version: Int = 1
    @Option(name: .long, help: ArgumentHelp(
        "The app's interface (`patchctl interface`): the script is checked against it and not released if it has errors.",
        valueName: "IFACE.json")) var interface: String?
    @Flag(name: .long, help: "Release even when `patchctl check` finds errors (with --interface).") var force = false

    func run() throws {
        try repoRun {
            var repository = try repo.open()
            let data = try CommandSupport.read(file, what: "patch")
            if let interface {
                guard let source = String(data: data, encoding: .utf8) else { throw CommandFailure("\(file) is not UTF-8") }
                let findings = PatchCtl.Check.check(source, file: file, with: PatchChecker(interface: try PatchCtl.Check.loadInterface(interface)))
                for f in findings { CommandSupport.printError("\(f.file):\(f.line):\(f.column): \(f.severity.rawValue): \(f.message)") }
                let errors = findings.filter { $0.severity == .error }.count
                if errors > 0 && !force {
                    throw CommandFailure("not released: `patchctl check` found \(errors) error\(errors == 1 ? "" : "s") (--force releases anyway)")
                }
            }
            let release = PatchRelease(app: app, patchID: patchID, version: version, appVersions: try parseRange(appVersions, "--app-versions"),
                                       rollout: try parseRollout(rollout), osVersions: try parseRange(osVersions, "--os-versions"),
                                       models: model.isEmpty ? nil : model,
                                       attributes: try parseAttributes(attribute))
            let name = self.name ?? URL(fileURLWithPath: file).lastPathComponent
            print(try repository.release(name, content: data, release: release, channel: channel, keys: try repo.signingKeys()))
        }
    }
}

struct RepoPromote: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "promote", abstract: "Copy a release to another channel (verified from this repository's record).")
    @OptionGroup var repo: RepoOptions
    @Argument(help: "Release name.") var name: String
    @Option(name: .long, help: "Source channel.") var from: String
    @Option(name: .long, help: "Destination channel.") var to: String
    @Option(name: .long, help: "Rollout in the destination, percent (default: as in the source).") var rollout: String?

    func run() throws {
        try repoRun {
            var repository = try repo.open()
            print(try repository.promote(name, from: from, to: to, rollout: try rollout.map(parseRollout), keys: try repo.signingKeys()))
        }
    }
}

/// The release a channel edit acts on: `NAME --channel CHANNEL`.
struct ReleaseInChannel: ParsableArguments {
    @Argument(help: "Release name.") var name: String
    @Option(name: .long, help: "Channel.") var channel: String
}

extension RepoOptions {
    /// Changes one release's custom metadata in the publisher's own record and prints the outcome.
    func updateRelease(_ release: ReleaseInChannel, _ change: (inout PatchRelease) throws -> Void) throws {
        var repository = try open()
        print(try repository.updateRelease(release.name, channel: release.channel, keys: try signingKeys(), change))
    }
}

struct RepoRollout: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rollout", abstract: "Set a release's share of devices.")
    @OptionGroup var repo: RepoOptions
    @OptionGroup var release: ReleaseInChannel
    @Argument(help: "Percent (two decimals).") var percent: String

    func run() throws {
        try repoRun {
            let value = try parseRollout(percent)
            try repo.updateRelease(release) { $0.rollout = value }
        }
    }
}

struct RepoDisable: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "disable", abstract: "Disable a release (devices revert it).")
    @OptionGroup var repo: RepoOptions
    @OptionGroup var release: ReleaseInChannel

    func run() throws {
        try repoRun { try repo.updateRelease(release) { $0.enabled = false } }
    }
}

struct RepoEnable: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "enable", abstract: "Enable a disabled release again.")
    @OptionGroup var repo: RepoOptions
    @OptionGroup var release: ReleaseInChannel

    func run() throws {
        try repoRun { try repo.updateRelease(release) { $0.enabled = true } }
    }
}

struct RepoRevoke: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "revoke", abstract: "Remove a release from a channel.")
    @OptionGroup var repo: RepoOptions
    @OptionGroup var release: ReleaseInChannel

    func run() throws {
        try repoRun {
            var repository = try repo.open()
            print(try repository.revoke(release.name, channel: release.channel, keys: try repo.signingKeys()))
        }
    }
}

struct RepoRenew: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "renew", abstract: "Re-sign a role unchanged with a fresh expiry (root, targets or a channel), before it expires.")
    @OptionGroup var repo: RepoOptions
    @Argument(help: "Role: root, targets or a channel.") var role: String
    @Option(name: .long, help: "Seconds the new version stays valid (default: the repository's setting for the role).")
    var validFor: Int?

    func run() throws {
        try repoRun {
            var repository = try repo.open()
            print(try repository.renew(role, keys: try repo.signingKeys(), validity: validFor.map(TimeInterval.init)))
        }
    }
}

struct RepoTimestamp: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "timestamp", abstract: "Re-sign the timestamp (before it expires).")
    @OptionGroup var repo: RepoOptions

    func run() throws {
        try repoRun {
            var repository = try repo.open()
            try repository.refreshTimestamp(keys: try repo.signingKeys())
            print("timestamp version \(repository.timestamp.signed.common.version), expires \(MetadataDate.format(repository.timestamp.signed.common.expires))")
        }
    }
}

struct RepoRotate: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rotate", abstract: "New root version: replace a role's keys (root, targets, snapshot, timestamp) or a channel's key.")
    @OptionGroup var repo: RepoOptions
    @Option(name: .long, help: "Role whose key changes.") var role: String
    @Option(name: .long, help: "Key id, or key file, to remove (repeatable).") var remove: [String] = []
    @Option(name: .long, help: "Key file whose public key is added (repeatable).") var add: [String] = []
    @Option(name: .long, help: "New threshold.") var threshold: Int64?

    func run() throws {
        try repoRun {
            var repository = try repo.open()
            let added = try add.map { try KeyFile.read(URL(fileURLWithPath: $0)) }
            let remove = try self.remove.map { item in
                FileManager.default.fileExists(atPath: item) ? try KeyFile.read(URL(fileURLWithPath: item)).keyID : item
            }
            var keys = try repo.signingKeys()
            keys += added
            if Root.topLevelRoles.contains(role) {
                print(try repository.editRoot(keys: keys) { root in
                    for keyid in remove { root.revoke(keyid: keyid, from: role) }
                    for key in added { root.add(key: key.publicKey, to: role) }
                    if let threshold { root.roles[role]!.threshold = threshold }
                })
            } else {
                print(try repository.edit("targets", keys: keys) { targets in
                    guard var delegations = targets.delegations, let index = delegations.roles?.firstIndex(where: { $0.name == role }) else {
                        throw CommandFailure("targets delegates no role \(role)")
                    }
                    delegations.roles![index].keyids.removeAll { remove.contains($0) }
                    for key in added {
                        delegations.keys[key.keyID] = key.publicKey
                        delegations.roles![index].keyids.append(key.keyID)
                    }
                    if let threshold { delegations.roles![index].threshold = threshold }
                    targets.delegations = delegations
                })
            }
        }
    }
}

struct RepoSign: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sign", abstract: "Sign a staged edit with the keys in --keys (recorded once a threshold signed it).")
    @OptionGroup var repo: RepoOptions
    @Argument(help: "Role of the staged edit.") var role: String

    func run() throws {
        try repoRun {
            var repository = try repo.open()
            print(try repository.signStaged(role, keys: try repo.signingKeys()))
        }
    }
}

struct RepoMerge: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "merge", abstract: "Add the signatures of a staged file signed elsewhere.")
    @OptionGroup var repo: RepoOptions
    @Argument(help: "Role of the staged edit.") var role: String
    @Argument(help: "The staged file as another key holder signed it.") var file: String

    func run() throws {
        try repoRun {
            var repository = try repo.open()
            print(try repository.merge(role, signedFile: try CommandSupport.read(file, what: "signed file"), keys: try repo.signingKeys()))
        }
    }
}

struct RepoPublish: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Write the static tree a CDN serves (metadata/ and targets/), or upload to the release service (--to).",
        discussion: """
            With --to, the record (roots, targets, channel roles, target files) is uploaded to the release \
            service, which verifies it against the root it trusts and signs snapshot and timestamp with \
            its online keys.
            """)
    @OptionGroup var repo: RepoOptions
    @Argument(help: "Output folder (without --to).") var out: String?
    @Option(name: .long, help: "Release service URL to upload to.") var to: String?
    @Option(name: .long, help: "App id the service hosts the repository under (with --to).") var app: String?
    @Option(name: .long, help: "Seconds to wait for the service (with --to).") var timeout: Double = 60

    func run() throws {
        try repoRun {
            let repository = try repo.open()
            if let to {
                guard out == nil else { throw CommandFailure("give an output folder or --to, not both") }
                guard let app else { throw CommandFailure("--to needs --app (the app id the service hosts)") }
                guard let url = URL(string: to), url.scheme == "http" || url.scheme == "https" else { throw CommandFailure("--to must be an http(s) URL") }
                let content = try repository.uploadContent()
                let timeout = self.timeout
                let answer = try waitFor { try await Repository.upload(content, to: url, app: app, timeout: timeout) }
                print("uploaded to \(to): \(answer)")
                // A channel role version too short-lived is left out; the rest was taken.
                if let notTaken = (try? JSONDecoder().decode([String: String].self, from: Data(answer.utf8)))?["not-taken"] {
                    CommandSupport.printError("warning: the service did not take \(notTaken)")
                }
                return
            }
            guard let out else { throw CommandFailure("give an output folder, or --to URL") }
            try repository.publish(to: URL(fileURLWithPath: out, isDirectory: true))
            print("published to \(out): root \(repository.root.signed.common.version), timestamp \(repository.timestamp.signed.common.version)")
        }
    }
}

/// Runs async work from a synchronous command and waits for it.
func waitFor<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let done = DispatchSemaphore(value: 0)
    let box = ResultBox<T>()
    Task {
        box.result = await Result(catching: { try await body() })
        done.signal()
    }
    done.wait()
    return try box.result!.get()
}

private final class ResultBox<T>: @unchecked Sendable {
    var result: Result<T, Error>?
}

extension Result where Failure == Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

struct RepoStatus: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "List roles and releases; warn about roles expired or expiring soon.",
        discussion: "Exits 0 even with warnings: they are printed to standard error, one `warning:` line per role.")
    @OptionGroup var repo: RepoOptions
    @Option(name: .long, help: "Warn about root, targets and channel roles expiring within this many seconds.")
    var expiryWarning: Int = 7 * 86_400

    func run() throws {
        try repoRun {
            let repository = try repo.open()
            let now = Date()
            let roles = [("root", repository.root.signed.common), ("targets", repository.targets.signed.common)]
                + repository.settings.channels.compactMap { name in repository.channels[name].map { (name, $0.signed.common) } }
            for (role, common) in roles {
                let expiry = RoleExpiry(role: role, version: common.version, expires: common.expires, now: now, warningWindow: TimeInterval(expiryWarning))
                guard let warning = expiry.warning else { continue }
                CommandSupport.printError("warning: \(warning): "
                    + (expiry.state == .expired ? "devices that need it take nothing from it until you renew it (`patchctl repo renew`) and publish"
                                                : "renew it (`patchctl repo renew`) and publish before then"))
            }
            print("root \(repository.root.signed.common.version), targets \(repository.targets.signed.common.version), "
                  + "snapshot \(repository.snapshot.signed.common.version), timestamp \(repository.timestamp.signed.common.version) "
                  + "(expires \(MetadataDate.format(repository.timestamp.signed.common.expires)))")
            for channel in repository.settings.channels {
                for (name, file, release) in try repository.releases(in: channel) {
                    let state = release.map { "\($0.enabled ? "enabled" : "disabled") rollout \(Double($0.rollout) / 100)% app \($0.app) patch \($0.patchID)" } ?? "no release metadata"
                    print("\(channel)/\(name): \(file.length) bytes, \(state)")
                }
            }
        }
    }
}
