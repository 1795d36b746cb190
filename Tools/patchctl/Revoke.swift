import ArgumentParser
import Foundation
import PatchUpdater
import PatchDelivery

extension PatchCtl {
    /// Creates or extends a signed revocation list.
    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke patch ids in a signed revocation list.",
            discussion: """
                If LIST exists it is extended: its signature must verify with the key given (so entries of \
                unknown origin are never re-signed), the new ids are added and the sequence number grows by one. \
                Devices revert a revoked patch at run time and never load it again.
                """)

        @Argument(help: ArgumentHelp("Patch ids to revoke.", valueName: "ID"))
        var ids: [String]

        @Option(name: .long, help: ArgumentHelp("Private key file from `patchctl keygen`.", valueName: "PRIVATE"))
        var key: String

        @Option(name: .long, help: ArgumentHelp("Revoke only these versions (comma-separated); default: every version.", valueName: "N,N"))
        var versions: String?

        @Option(name: .long, help: ArgumentHelp("Revocation list file to create or extend.", valueName: "LIST"))
        var out: String

        func validate() throws {
            guard !ids.isEmpty else { throw ValidationError("give at least one ID") }
        }

        func run() throws {
            let signingKey: SigningKey
            do { signingKey = try SigningKey(fileData: try CommandSupport.read(key, what: "private key")) } catch let e as KeyFileError {
                throw CommandFailure("\(key): \(e)")
            }
            let versionList = try versions.map { text -> [Int] in
                let parsed = text.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
                guard !parsed.isEmpty, parsed.allSatisfy({ ($0 ?? 0) >= 1 }) else {
                    throw CommandFailure("--versions '\(text)' must be positive whole numbers separated by commas")
                }
                return parsed.map { $0! }
            }
            var list = RevocationList(sequence: 1, issued: Date(), keyID: signingKey.id)
            let url = URL(fileURLWithPath: out)
            if FileManager.default.fileExists(atPath: url.path) {
                let verifier = PatchVerifier(trustStore: TrustStore(keys: [signingKey.trustedKey]))
                do {
                    list = try verifier.verify(revocationListFile: try CommandSupport.read(out, what: "revocation list")).list
                } catch let refusal as PatchRefusal {
                    throw CommandFailure("cannot extend \(out): \(refusal)")
                }
                list.sequence += 1
                list.issued = Date()
            }
            for id in ids {
                guard !id.isEmpty, id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }) else {
                    throw CommandFailure("patch id '\(id)' must be letters, digits, '.', '_' or '-'")
                }
                list.revoke(id, versions: versionList)
            }
            let signed = try PatchSigner(key: signingKey).sign(list)
            do { try AtomicFile.write(signed.fileData(), to: url) } catch {
                throw CommandFailure("cannot write \(out): \(error)")
            }
            try? FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
            let summary = signed.list.entries.map { e in e.patchID + (e.versions.map { " v" + $0.map(String.init).joined(separator: ",") } ?? "") }
            print("revocation list #\(signed.list.sequence) revoking \(summary.joined(separator: "; ")), signed with key \(signingKey.id) -> \(out)")
        }
    }
}
