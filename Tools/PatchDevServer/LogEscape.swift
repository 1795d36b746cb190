/// Text from a request (its path, a header) on its way into a log line: control characters,
/// Unicode format characters (direction overrides…) and line or paragraph separators become
/// `\u{…}`, a backslash becomes `\\`, and long text is cut, so a client can neither forge a log
/// line nor hide what follows. (PatchDelivery's LogSafe does the same for the client side;
/// this server depends on no part of PatchDelivery.)
enum LogEscape {
    /// Longest text kept, in Unicode scalars; the rest is replaced by "…".
    static let limit = 300

    static func escape(_ text: String) -> String {
        var out = ""
        for (index, scalar) in text.unicodeScalars.enumerated() {
            if index == limit { out += "…"; break }
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator:
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            default:
                if scalar == "\\" { out += "\\\\" } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }
}
