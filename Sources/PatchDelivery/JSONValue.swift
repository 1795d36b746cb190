import Foundation

/// A parsed JSON document, for reading patch files and revocation lists field by field with
/// precise error messages (and for rejecting fields nobody signed).
enum JSONValue: Decodable, Equatable {
    case null
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let i = try? c.decode(Int.self) { self = .integer(i) }
        else if let d = try? c.decode(Double.self) { self = .number(d) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    /// Parses `data` as one JSON document; the error says where it stopped making sense.
    static func parse(_ data: Data, what: String) throws -> JSONValue {
        do {
            return try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw PatchRefusal.malformed("\(what) is not valid JSON")
        }
    }

    var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .integer, .number: return "a number"
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
            throw PatchRefusal.malformed("\(context) has unknown field '\(extra)'")
        }
    }

    func value(_ key: String) throws -> JSONValue {
        guard let v = members[key], v != .null else {
            throw PatchRefusal.malformed("\(context) is missing field '\(key)'")
        }
        return v
    }

    func has(_ key: String) -> Bool { members[key].map { $0 != .null } ?? false }

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

    private func typeError(_ key: String, _ expected: String) -> PatchRefusal {
        .malformed("\(context) field '\(key)' must be \(expected), found \(members[key]?.typeName ?? "nothing")")
    }
}
