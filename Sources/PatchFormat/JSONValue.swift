import Foundation

/// A JSON document as TUF metadata holds it: every kind of value JSON has, objects keyed by
/// member name (duplicate names are refused by `JSONParser`, so a dictionary loses nothing).
///
/// Numbers are kept as integers when they are integers; anything else keeps its source text
/// (`.fraction`), which canonical JSON refuses to encode, so metadata carrying one never verifies.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case fraction(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses `data` strictly (see `JSONParser`).
    public static func parse(_ data: Data, what: String = "JSON") throws -> JSONValue {
        try JSONParser.parse([UInt8](data), what: what)
    }

    /// A short name of the value's kind, for error messages.
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .integer, .fraction: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    public var objectValue: [String: JSONValue]? {
        if case .object(let o) = self { return o }
        return nil
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }
}
