import ArgumentParser
import Foundation
import PatchDelivery

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

        @Option(name: .customLong("app-id"), help: "The app's id (bundle id); '*' for any app.")
        var appID: String = "*"

        @Option(name: .customLong("app-version"), help: ArgumentHelp(
            "App versions the patch applies to: '*', or comparators like '>=1.2.0 <2.0.0', '=1.4.2'.", valueName: "RANGE"))
        var appVersion: String = "*"

        @Option(name: .long, help: ArgumentHelp(
            "Expiry time, ISO 8601: 2026-12-31 (midnight UTC) or 2026-12-31T18:00:00Z.", valueName: "DATE"))
        var expires: String?

        @Option(name: .long, help: ArgumentHelp("Patch file to write.", valueName: "PATCH"))
        var out: String

        func validate() throws {
            guard !scripts.isEmpty else { throw ValidationError("give at least one SCRIPT") }
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
            let patch: SignedPatch
            do {
                patch = try PatchSigner(key: signingKey).sign(
                    patchID: id, version: version, appID: appID, appVersions: range, expires: expiry, scripts: sources)
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
