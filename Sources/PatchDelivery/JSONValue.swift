import Foundation

/// A parsed JSON document, for reading patch files and revocation lists field by field with
/// precise error messages (and for rejecting fields nobody signed). Only the kinds of value
/// `StrictJSON` accepts: what canonical form can express.
enum JSONValue: Equatable {
    case integer(Int)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses `data` strictly (see `StrictJSON`); the error says where it stopped making sense.
    static func parse(_ data: Data, what: String) throws -> JSONValue {
        try StrictJSON.parse([UInt8](data), what: what)
    }

    var typeName: String {
        switch self {
        case .integer: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// Reads the members of one JSON object, refusing unknown members and wrongly typed values.
struct JSONObjectReader {
    let members: [String: JSONValue]
    let context: String

    init(_ value: JSONValue, context: String) throws {
        guard case .object(let members) = value else {
            throw PatchRefusal.malformed("\(context) must be a JSON object, found \(value.typeName)")
        }
        self.members = members
        self.context = context
    }

    /// Refuses members outside `known`: a member nobody reads would be carried along unsigned.
    func rejectUnknown(_ known: Set<String>) throws {
        if let extra = members.keys.filter({ !known.contains($0) }).sorted().first {
            throw PatchRefusal.malformed("\(context) has unknown field '\(LogSafe.escape(extra))'")
        }
    }

    func value(_ key: String) throws -> JSONValue {
        guard let v = members[key] else {
            throw PatchRefusal.malformed("\(context) is missing field '\(key)'")
        }
        return v
    }

    func has(_ key: String) -> Bool { members[key] != nil }

    func string(_ key: String) throws -> String {
        guard case .string(let s) = try value(key) else { throw typeError(key, "a string") }
        return s
    }

    func integer(_ key: String) throws -> Int {
        guard case .integer(let i) = try value(key) else { throw typeError(key, "an integer") }
        return i
    }

    func array(_ key: String) throws -> [JSONValue] {
        guard case .array(let a) = try value(key) else { throw typeError(key, "an array") }
        return a
    }

    func object(_ key: String) throws -> [String: JSONValue] {
        guard case .object(let o) = try value(key) else { throw typeError(key, "an object") }
        return o
    }

    /// Reads a base64 field, refusing any spelling other than the one `base64EncodedString()`
    /// writes (padding, line breaks, non-zero trailing bits): one value, one spelling.
    func base64(_ key: String) throws -> Data {
        let text = try string(key)
        guard let data = Data(base64Encoded: text), data.base64EncodedString() == text else {
            throw PatchRefusal.malformed("\(context) field '\(key)' is not canonical base64")
        }
        return data
    }

    private func typeError(_ key: String, _ expected: String) -> PatchRefusal {
        .malformed("\(context) field '\(key)' must be \(expected), found \(members[key]?.typeName ?? "nothing")")
    }
}
