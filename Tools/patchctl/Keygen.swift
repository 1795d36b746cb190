import ArgumentParser
import Foundation
import PatchUpdater
import PatchDelivery

extension PatchCtl {
    /// Writes a new Ed25519 key pair.
    struct Keygen: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Generate an Ed25519 signing key pair.",
            discussion: """
                Writes <id>.private-key.json (mode 0600: keep it secret, give it to `sign` and `revoke`) \
                and <id>.public-key.json (ship it, or its base64 key, in the app's trust store) into DIR. \
                Without --id the key id is derived from the public key. Existing files are not overwritten.
                """)

        @Option(name: .long, help: ArgumentHelp("Directory to write the key files into (created if missing).", valueName: "DIR"))
        var out: String

        @Option(name: .long, help: "Key id written into every manifest this key signs (letters, digits, '.', '_', '-').")
        var id: String?

        func validate() throws {
            if let id, id.isEmpty || !id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }) {
                throw ValidationError("--id must be letters, digits, '.', '_' or '-'")
            }
            if let id, DevelopmentKey.isDevelopmentKeyID(id) {
                throw ValidationError("--id may not start with '\(DevelopmentKey.idPrefix)': that marks development keys (`patchctl dev` makes its own)")
            }
        }

        func run() throws {
            let key = SigningKey.generate(id: id)
            let directory = URL(fileURLWithPath: out)
            let privateURL = directory.appendingPathComponent("\(key.id).private-key.json")
            let publicURL = directory.appendingPathComponent("\(key.id).public-key.json")
            for url in [privateURL, publicURL] where FileManager.default.fileExists(atPath: url.path) {
                throw CommandFailure("\(url.path) already exists; not overwriting a key")
            }
            do {
                try AtomicFile.write(key.fileData(), to: privateURL)  // created 0600
                try AtomicFile.write(key.trustedKey.fileData(), to: publicURL)
                try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: publicURL.path)
            } catch {
                throw CommandFailure("cannot write keys into \(out): \(error)")
            }
            print("key id:      \(key.id)")
            print("private key: \(privateURL.path)")
            print("public key:  \(publicURL.path)")
            print("public key (base64, for TrustedKey(id:base64:)): \(key.trustedKey.base64)")
        }
    }
}
