import ArgumentParser
import Foundation
import PatchDelivery

extension PatchCtl {
    /// Checks a patch file (or a revocation list) the way a device would.
    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Verify a signed patch file or revocation list.",
            discussion: """
                Checks the format, the signing key, the signature, every script's SHA-256 and the expiry \
                (and, when --app-id / --app-version are given, that the patch fits that app). \
                Exit status 0 with a one-line summary when valid; 1 with the reason on standard error otherwise.
                """)

        @Argument(help: ArgumentHelp("Patch file or revocation list file.", valueName: "PATCH"))
        var file: String

        @Option(name: .customLong("public-key"), help: ArgumentHelp("Trusted public key file (repeatable).", valueName: "PUBLIC"))
        var publicKeys: [String]

        @Option(name: .customLong("retired-key"), help: ArgumentHelp("Public key file of a retired key (repeatable).", valueName: "PUBLIC"))
        var retiredKeys: [String] = []

        @Option(name: .customLong("app-id"), help: "Also check that the patch targets this app.")
        var appID: String?

        @Option(name: .customLong("app-version"), help: "Also check that the patch applies to this app version.")
        var appVersion: String?

        func validate() throws {
            guard (appID == nil) == (appVersion == nil) else { throw ValidationError("--app-id and --app-version go together") }
        }

        func run() throws {
            var store = TrustStore()
            for (path, retired) in publicKeys.map({ ($0, false) }) + retiredKeys.map({ ($0, true) }) {
                do { store.add(try TrustedKey(fileData: try CommandSupport.read(path, what: "public key"), isRetired: retired)) } catch let e as KeyFileError {
                    throw CommandFailure("\(path): \(e)")
                }
            }
            var target: PatchVerifier.Target?
            if let appID, let appVersion {
                do { target = .init(appID: appID, appVersion: try SemanticVersion(parsing: appVersion)) } catch {
                    throw CommandFailure("--app-version: \(error)")
                }
            }
            let data = try CommandSupport.read(file, what: "file")
            let verifier = PatchVerifier(trustStore: store, target: target)
            do {
                if Self.looksLikeRevocationList(data) {
                    let list = try verifier.verify(revocationListFile: data).list
                    let ids = list.entries.map { e in e.patchID + (e.versions.map { " v" + $0.map(String.init).joined(separator: ",") } ?? "") }
                    print("valid: revocation list #\(list.sequence) revoking \(ids.isEmpty ? "nothing" : ids.joined(separator: "; ")), signed by \(list.keyID)")
                } else {
                    let m = try verifier.verify(patchFile: data).manifest
                    let expiry = m.expires.map { ISO8601DateFormatter().string(from: $0) } ?? "never"
                    print("valid: patch \(m.patchID) v\(m.version) for \(m.appID) \(m.appVersions), scripts \(m.scripts.map(\.name).joined(separator: ", ")), signed by \(m.keyID), expires \(expiry)")
                }
            } catch let refusal as PatchRefusal {
                CommandSupport.printError("invalid: \(file): \(refusal)")
                throw ExitCode.failure
            }
        }

        /// A revocation list file has a top-level "list" member; a patch file has "manifest".
        static func looksLikeRevocationList(_ data: Data) -> Bool {
            guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return false }
            return object["list"] != nil && object["manifest"] == nil
        }
    }
}
