import Foundation

/// What a publisher uploads to the release service: the metadata it signed offline and the
/// target files that metadata lists. The upload carries no credential of its own: the service
/// accepts it only if every file verifies against the root and delegations it already trusts
/// (a new root must be signed by a threshold of the previous root's keys), and no role goes back
/// in version. The service then signs snapshot and timestamp with its online keys.
///
/// Wire form: `{"roots": [<base64>…], "roles": {"<role>": <base64>…}, "files": [<base64>…]}`,
/// each base64 string a file's exact bytes (signatures cover them; nothing is re-encoded).
public struct RepositoryUpload: Equatable, Sendable {
    /// Root metadata files, any versions; the service takes the ones after its newest.
    public var roots: [Data]
    /// The top-level targets role (`targets`) and the roles it delegates, by role name.
    public var roles: [String: Data]
    /// Target files' contents (the service keeps them by their SHA-256).
    public var files: [Data]

    public init(roots: [Data] = [], roles: [String: Data] = [:], files: [Data] = []) {
        self.roots = roots
        self.roles = roles
        self.files = files
    }

    /// Parses the wire form strictly (`JSONParser`: duplicate members, depth); every member
    /// present is required to be what it says.
    public init(data: Data) throws {
        var fields = try JSONFields(try JSONValue.parse(data, what: "upload"), context: "upload")
        func decode(_ value: JSONValue, _ what: String) throws -> Data {
            guard case .string(let text) = value, let bytes = Data(base64Encoded: text) else {
                throw FormatError.malformed("upload: \(what) is not a base64 string")
            }
            return bytes
        }
        roots = try (fields.take("roots").map { value -> [JSONValue] in
            guard case .array(let list) = value else { throw FormatError.malformed("upload: roots must be an array") }
            return list
        } ?? []).enumerated().map { try decode($1, "roots[\($0)]") }
        roles = try (fields.optionalObject("roles") ?? [:]).reduce(into: [:]) { $0[$1.key] = try decode($1.value, "roles.\($1.key)") }
        files = try (fields.take("files").map { value -> [JSONValue] in
            guard case .array(let list) = value else { throw FormatError.malformed("upload: files must be an array") }
            return list
        } ?? []).enumerated().map { try decode($1, "files[\($0)]") }
        guard fields.remaining.isEmpty else {
            throw FormatError.malformed("upload: unknown member \"\(fields.remaining.keys.sorted()[0])\"")
        }
    }

    /// The wire form.
    public func encoded() throws -> Data {
        try CanonicalJSON.encodeFile(.object([
            "roots": .array(roots.map { .string($0.base64EncodedString()) }),
            "roles": .object(roles.mapValues { .string($0.base64EncodedString()) }),
            "files": .array(files.map { .string($0.base64EncodedString()) }),
        ]))
    }
}
