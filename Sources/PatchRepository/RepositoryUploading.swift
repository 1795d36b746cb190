import Foundation
import PatchFormat
import PatchUpdater

/// Publishing to the release service: the repository's own record (every root version, targets,
/// the channel roles and their target files) sent as one `RepositoryUpload`. The service checks
/// the signatures against the root it already trusts and signs snapshot and timestamp with its
/// online keys; nothing it answers ever changes this record.
extension Repository {
    /// What `upload(to:)` sends.
    public func uploadContent() throws -> RepositoryUpload {
        var roles = ["targets": try targets.serialized()]
        var files: [Data] = []
        var seen: Set<String> = []
        for (name, role) in [("targets", targets)] + settings.channels.map({ ($0, channels[$0]!) }) {
            if name != "targets" { roles[name] = try role.serialized() }
            for (path, file) in role.signed.targets.sorted(by: { $0.key < $1.key }) {
                let data = try content(of: file, path: path)
                if seen.insert(file.hashes["sha256"] ?? path).inserted { files.append(data) }
            }
        }
        return RepositoryUpload(roots: try roots.map { try $0.serialized() }, roles: roles, files: files)
    }

    /// Uploads the record to the release service at `serviceURL` for app `app`
    /// (`POST <serviceURL>/apps/<app>/upload`). Returns the service's answer; throws
    /// `RepositoryError` with the service's refusal.
    public func upload(to serviceURL: URL, app: String, timeout: TimeInterval = 60) async throws -> String {
        try await Self.upload(try uploadContent(), to: serviceURL, app: app, timeout: timeout)
    }

    /// Sends `content` (`uploadContent()`) to the release service.
    public static func upload(_ content: RepositoryUpload, to serviceURL: URL, app: String, timeout: TimeInterval = 60) async throws -> String {
        let url = serviceURL.appendingPathComponent("apps").appendingPathComponent(app).appendingPathComponent("upload")
        let (status, body) = try await HTTPTransport.shared.post(url, body: try content.encoded(), deadline: Date().addingTimeInterval(timeout))
        let text = String(decoding: body, as: UTF8.self)
        guard status == 200 else { throw RepositoryError("the service refused the upload (HTTP \(status)): \(text)") }
        return text
    }
}
