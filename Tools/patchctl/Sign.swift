import ArgumentParser
import Foundation
import PatchUpdater
import PatchDelivery
import PatchAuthoring

extension PatchCtl {
    /// Builds and signs a patch file from scripts.
    struct Sign: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sign scripts into a patch file.",
            discussion: """
                The scripts are evaluated in the order given; each is listed in the manifest by file name \
                with its SHA-256. The manifest is signed with Ed25519 over its canonical bytes.
                """)

        @Argument(help: ArgumentHelp("Patch scripts (JavaScript), in evaluation order.", valueName: "SCRIPT"))
        var scripts: [String]

        @Option(name: .long, help: ArgumentHelp("Private key file from `patchctl keygen`.", valueName: "PRIVATE"))
        var key: String

        @Option(name: .long, help: "Patch id, stable across versions (letters, digits, '.', '_', '-').")
        var id: String

        @Option(name: .long, help: "Patch version: a whole number, higher than any version devices have applied.")
        var version: Int

        @Option(name: .customLong("app-id"), help: ArgumentHelp(
            "The app the patch is for (bundle id). Required unless --any-app.", valueName: "APP"))
        var appID: String?

        @Flag(name: .customLong("any-app"), help: "Let any app apply the patch (no --app-id): a patch for one app should name it.")
        var anyApp = false

        @Option(name: .customLong("app-version"), help: ArgumentHelp(
            "App versions the patch applies to: '*', or comparators like '>=1.2.0 <2.0.0', '=1.4.2'.", valueName: "RANGE"))
        var appVersion: String = "*"

        @Option(name: .long, help: ArgumentHelp(
            "Expiry time, ISO 8601: 2026-12-31 (midnight UTC) or 2026-12-31T18:00:00Z. Required unless --no-expiry.",
            valueName: "DATE"))
        var expires: String?

        @Flag(name: .customLong("no-expiry"), help: "Sign a patch that never expires (no --expires).")
        var noExpiry = false

        @Option(name: .long, help: ArgumentHelp("Patch file to write.", valueName: "PATCH"))
        var out: String

        @Option(name: .long, help: ArgumentHelp(
            "The app's interface (`patchctl interface`): the scripts are checked against it and not signed if they have errors.",
            valueName: "IFACE.json"))
        var interface: String?

        @Flag(name: .long, help: "Sign even when `patchctl check` finds errors (with --interface).")
        var force = false

        func validate() throws {
            guard !scripts.isEmpty else { throw ValidationError("give at least one SCRIPT") }
            // Both are what limit where a leaked or mistaken patch can run: leaving them out must be a decision.
            switch (appID, anyApp) {
            case (nil, false):
                throw ValidationError("give --app-id APP (the app the patch is for), or --any-app to let any app apply it")
            case (_?, true):
                throw ValidationError("--app-id and --any-app exclude each other")
            case ("*"?, false):
                throw ValidationError("--app-id '*' would let any app apply the patch: say --any-app instead")
            default:
                break
            }
            switch (expires, noExpiry) {
            case (nil, false):
                throw ValidationError("give --expires DATE (when devices stop applying the patch), or --no-expiry for a patch that never expires")
            case (_?, true):
                throw ValidationError("--expires and --no-expiry exclude each other")
            default:
                break
            }
        }

        func run() throws {
            let signingKey: SigningKey
            do { signingKey = try SigningKey(fileData: try CommandSupport.read(key, what: "private key")) } catch let e as KeyFileError {
                throw CommandFailure("\(key): \(e)")
            }
            let range: AppVersionRange
            do { range = try AppVersionRange(parsing: appVersion) } catch {
                throw CommandFailure("--app-version: \(error)")
            }
            let expiry = try expires.map(Self.parseDate)
            if let expiry, expiry <= Date() {
                throw CommandFailure("--expires \(Self.format(expiry)) is in the past: devices would refuse the patch")
            }
            var sources: [(name: String, source: String)] = []
            for path in scripts {
                let name = URL(fileURLWithPath: path).lastPathComponent
                if sources.contains(where: { $0.name == name }) {
                    throw CommandFailure("two scripts are named \(name); scripts are identified by file name")
                }
                sources.append((name, try CommandSupport.readText(path, what: "script")))
            }
            if let interface {
                let checker = PatchChecker(interface: try Check.loadInterface(interface))
                let findings = zip(scripts, sources).flatMap { Check.check($1.source, file: $0, with: checker) }
                for f in findings { CommandSupport.printError("\(f.file):\(f.line):\(f.column): \(f.severity.rawValue): \(f.message)") }
                let errors = findings.filter { $0.severity == .error }.count
                if errors > 0 && !force {
                    throw CommandFailure("not signed: `patchctl check` found \(errors) error\(errors == 1 ? "" : "s") (--force signs anyway)")
                }
            }
            let patch: SignedPatch
            do {
                patch = try PatchSigner(key: signingKey).sign(
                    patchID: id, version: version, appID: appID ?? "*", appVersions: range, expires: expiry, scripts: sources)
            } catch let refusal as PatchRefusal {
                if case .malformed(let why) = refusal { throw CommandFailure(why) }
                throw CommandFailure(refusal.description)
            }
            do { try AtomicFile.write(patch.fileData(), to: URL(fileURLWithPath: out)) } catch {
                throw CommandFailure("cannot write \(out): \(error)")
            }
            let names = sources.map(\.name).joined(separator: ", ")
            print("signed \(id) v\(version) (\(names)) with key \(signingKey.id) -> \(out)")
        }

        /// ISO 8601 with time and zone, or a plain date meaning midnight UTC.
        static func parseDate(_ text: String) throws -> Date {
            let full = ISO8601DateFormatter()
            if let date = full.date(from: text) { return date }
            let day = ISO8601DateFormatter()
            day.formatOptions = [.withFullDate]
            if let date = day.date(from: text) { return date }
            throw CommandFailure("--expires '\(text)' is not an ISO 8601 date (2026-12-31 or 2026-12-31T18:00:00Z)")
        }

        static func format(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }
    }
}
