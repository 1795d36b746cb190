import Foundation
import PatchRepository

/// Where `patchctl dev` keeps its development repository (keys, record, `dev-root.json`;
/// `DevelopmentRepository`): `~/.patchengine/dev` unless told otherwise, never inside the watched
/// folder (keys next to the scripts end up committed or served). Created on first use: the
/// folder 0700, the private keys 0600.
struct DevKeyDirectory {
    let url: URL

    static func defaultPath() -> String {
        let home = ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".patchengine/dev").path
    }

    init(path: String, watched: URL) throws {
        url = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath()
        let folder = watched.standardizedFileURL.resolvingSymlinksInPath().path
        if url.path == folder || url.path.hasPrefix(folder + "/") {
            throw CommandFailure("--key-dir \(path) is inside the watched folder \(watched.path): keep the development keys outside it")
        }
    }

    /// The development repository, opened, or made on first use. `created` tells which.
    func openOrCreate() throws -> (repository: DevelopmentRepository, created: Bool) {
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            return try DevelopmentRepository.openOrCreate(in: url)
        } catch {
            throw CommandFailure("development repository in \(url.path): \(CommandSupport.reason(error))")
        }
    }
}
