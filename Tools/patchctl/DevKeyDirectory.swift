import Foundation
import PatchUpdater
import PatchDelivery

/// Where `patchctl dev` keeps its development key pair: `~/.patchengine/dev` unless told
/// otherwise, never inside the watched folder (a key next to the scripts ends up committed or
/// served). Created on first use: the folder 0700, the private key 0600.
struct DevKeyDirectory {
    static let privateName = "dev-signing-key.json"
    static let publicName = "dev-public-key.json"

    let url: URL
    var privateKeyURL: URL { url.appendingPathComponent(Self.privateName) }
    var publicKeyURL: URL { url.appendingPathComponent(Self.publicName) }

    static func defaultPath() -> String {
        let home = ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".patchengine/dev").path
    }

    init(path: String, watched: URL) throws {
        url = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath()
        let folder = watched.standardizedFileURL.resolvingSymlinksInPath().path
        if url.path == folder || url.path.hasPrefix(folder + "/") {
            throw CommandFailure("--key-dir \(path) is inside the watched folder \(watched.path): keep the development key outside it")
        }
    }

    /// The key, read, or made and written on first use. `created` tells which.
    func loadOrCreate() throws -> (key: SigningKey, created: Bool) {
        if FileManager.default.fileExists(atPath: privateKeyURL.path) {
            let data = try CommandSupport.read(privateKeyURL.path, what: "development key")
            do {
                let key = try DevelopmentKey.signingKey(fileData: data)
                // The public half is rewritten if missing or stale: the app is pointed at it.
                let publicData = DevelopmentKey.publicFileData(key)
                if (try? Data(contentsOf: publicKeyURL)) != publicData { try AtomicFile.write(publicData, to: publicKeyURL) }
                try? FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: publicKeyURL.path)
                return (key, false)
            } catch let error as KeyFileError {
                throw CommandFailure("development key \(privateKeyURL.path): \(error)")
            }
        }
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let key = DevelopmentKey.generate()
            try AtomicFile.write(DevelopmentKey.privateFileData(key), to: privateKeyURL)   // created 0600
            try AtomicFile.write(DevelopmentKey.publicFileData(key), to: publicKeyURL)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: publicKeyURL.path)
            return (key, true)
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure("cannot write the development key into \(url.path): \(error)")
        }
    }
}
