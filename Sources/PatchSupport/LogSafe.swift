/// Text from outside (file names, field names, URL paths, server messages, a request's path or
/// headers) on its way into an event or a log line, on the device and in the servers alike: control characters, line and paragraph separators and
/// direction overrides are written as `\u{…}` escapes, and long text is cut, so such a string can
/// neither start a forged log line nor hide what follows it.
public enum LogSafe {
    /// Longest text kept by default, in Unicode scalars; the rest is replaced by "…".
    public static let limit = 200

    /// `text` with what could forge or hide a log line escaped (a backslash becomes `\\`), cut
    /// after `limit` scalars.
    public static func escape(_ text: String, limit: Int = LogSafe.limit) -> String {
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
    public static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }

    /// Whether `text` has nothing `escape` would change (names that end up in logs as they are).
    public static func isPrintable(_ text: String) -> Bool {
        !text.unicodeScalars.contains { needsEscape($0) }
    }
}
