import Foundation

/// Reads the members of one JSON object by name with typed accessors; what is left afterwards
/// are the members the specification doesn't define, which metadata keeps (spec §4: they are
/// part of what is signed and hashed).
struct JSONFields {
    private let members: [String: JSONValue]
    /// The names taken so far (a few per object). Taking leaves `members` shared with the
    /// document instead of copying it to remove one (10,000 copies for a role of 10,000 targets).
    private var taken: [String] = []
    let context: String

    init(_ value: JSONValue, context: String) throws {
        guard case .object(let members) = value else {
            throw FormatError.malformed("\(context) must be an object, found \(value.kindName)")
        }
        self.members = members
        self.context = context
    }

    /// The members not taken yet.
    var remaining: [String: JSONValue] {
        taken.count == members.count ? [:] : members.filter { !taken.contains($0.key) }
    }

    /// The member `name`, once: taken again it is nil.
    mutating func take(_ name: String) -> JSONValue? {
        guard let value = members[name], !taken.contains(name) else { return nil }
        taken.append(name)
        return value
    }

    mutating func required(_ name: String) throws -> JSONValue {
        guard let value = take(name) else { throw FormatError.malformed("\(context): missing \"\(name)\"") }
        return value
    }

    mutating func string(_ name: String) throws -> String {
        let value = try required(name)
        guard case .string(let s) = value else { throw mistyped(name, "a string", value) }
        return s
    }

    mutating func optionalString(_ name: String) throws -> String? {
        guard let value = take(name) else { return nil }
        guard case .string(let s) = value else { throw mistyped(name, "a string", value) }
        return s
    }

    mutating func integer(_ name: String) throws -> Int64 {
        let value = try required(name)
        guard case .integer(let i) = value else { throw mistyped(name, "an integer", value) }
        return i
    }

    mutating func optionalInteger(_ name: String) throws -> Int64? {
        guard let value = take(name) else { return nil }
        guard case .integer(let i) = value else { throw mistyped(name, "an integer", value) }
        return i
    }

    mutating func bool(_ name: String) throws -> Bool {
        let value = try required(name)
        guard case .bool(let b) = value else { throw mistyped(name, "a boolean", value) }
        return b
    }

    mutating func optionalBool(_ name: String) throws -> Bool? {
        guard let value = take(name) else { return nil }
        guard case .bool(let b) = value else { throw mistyped(name, "a boolean", value) }
        return b
    }

    mutating func object(_ name: String) throws -> [String: JSONValue] {
        let value = try required(name)
        guard case .object(let o) = value else { throw mistyped(name, "an object", value) }
        return o
    }

    mutating func optionalObject(_ name: String) throws -> [String: JSONValue]? {
        guard let value = take(name) else { return nil }
        guard case .object(let o) = value else { throw mistyped(name, "an object", value) }
        return o
    }

    mutating func array(_ name: String) throws -> [JSONValue] {
        let value = try required(name)
        guard case .array(let a) = value else { throw mistyped(name, "an array", value) }
        return a
    }

    mutating func optionalStringArray(_ name: String) throws -> [String]? {
        guard let value = take(name) else { return nil }
        guard case .array(let a) = value else { throw mistyped(name, "an array", value) }
        return try a.map {
            guard case .string(let s) = $0 else { throw mistyped(name, "an array of strings", value) }
            return s
        }
    }

    mutating func stringArray(_ name: String) throws -> [String] {
        guard let list = try optionalStringArray(name) else { throw FormatError.malformed("\(context): missing \"\(name)\"") }
        return list
    }

    private func mistyped(_ name: String, _ expected: String, _ found: JSONValue) -> FormatError {
        .malformed("\(context): \"\(name)\" must be \(expected), found \(found.kindName)")
    }
}

extension Dictionary where Key == String, Value == JSONValue {
    /// `self` with `other`'s members added (the typed fields over the kept unknown ones).
    func merging(_ other: [String: JSONValue]) -> [String: JSONValue] {
        merging(other) { _, new in new }
    }
}
