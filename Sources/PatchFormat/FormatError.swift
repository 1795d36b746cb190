/// Why metadata or a signature was refused. The message names the role, field or key involved.
public enum FormatError: Error, Equatable, CustomStringConvertible, Sendable {
    /// Not the shape the specification defines (a missing or mistyped field, a bad value).
    case malformed(String)
    /// A key the format cannot use (an unknown type or scheme, an unreadable public key).
    case unsupportedKey(String)

    public var description: String {
        switch self {
        case .malformed(let m): return m
        case .unsupportedKey(let m): return m
        }
    }
}
