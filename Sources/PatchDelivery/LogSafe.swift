/// Text from outside the signature (file names, field names, URL paths, server messages) on its
/// way into an event or a log line: control characters, line and paragraph separators and
/// direction overrides are written as `\u{…}` escapes, and long text is cut, so such a string can
/// neither start a forged log line nor hide what follows it.
enum LogSafe {
    /// Longest text kept, in characters; the rest is replaced by "…".
    static let limit = 200

    static func escape(_ text: String) -> String {
        var out = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == limit {
                out += "…"
                break
            }
            count += 1
            if needsEscape(scalar) {
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else if scalar == "\\" {
                out += "\\\\"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Control characters (C0, DEL, C1), Unicode format characters (bidi overrides, zero-width
    /// joiners…), line and paragraph separators.
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }

    /// Whether `text` has nothing `escape` would change (names that end up in logs as they are).
    static func isPrintable(_ text: String) -> Bool {
        !text.unicodeScalars.contains { needsEscape($0) }
    }
}
