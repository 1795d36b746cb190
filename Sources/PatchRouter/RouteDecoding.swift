import Foundation

/// Turning the percent-encoded text of a URL into parameter values.
enum RouteDecoding {
    /// Decodes one value: `+` becomes a space first (when asked), then percent escapes are decoded.
    ///
    /// Plus signs are replaced before percent decoding, so `%2B` stays a literal `+`. (JLRoutes
    /// replaced them afterwards, which turned an encoded plus into a space.) Text whose escapes
    /// don't decode to UTF-8 (`%FF`) is returned with only the plus signs replaced.
    static func value(_ raw: Substring, decodePlusSymbols: Bool) -> String {
        let text = decodePlusSymbols ? raw.replacingOccurrences(of: "+", with: " ") : String(raw)
        return text.removingPercentEncoding ?? text
    }

    /// Percent-decodes without touching `+`, for comparing a URL component with a literal.
    static func percentDecoded(_ raw: String) -> String? {
        raw.removingPercentEncoding
    }

    /// The `name=value` items of a query string in order, names and values decoded.
    ///
    /// As in JLRoutes, an item without `=` has no value and is skipped (`?flag` adds nothing, `?flag=`
    /// adds an empty string). Items with an empty name are skipped too.
    static func queryItems(_ query: Substring, decodePlusSymbols: Bool) -> [(name: String, value: String)] {
        var items: [(name: String, value: String)] = []
        for item in query.split(separator: "&", omittingEmptySubsequences: true) {
            guard let equals = item.firstIndex(of: "=") else { continue }
            let name = value(item[..<equals], decodePlusSymbols: decodePlusSymbols)
            guard !name.isEmpty else { continue }
            items.append((name, value(item[item.index(after: equals)...], decodePlusSymbols: decodePlusSymbols)))
        }
        return items
    }

    /// Whether a fragment without `?` is a query (`#a=1&b=2`) rather than a path (`#/view/1`):
    /// JLRoutes' rule, its first item must have a non-empty value.
    static func fragmentIsQuery(_ fragment: Substring) -> Bool {
        guard let first = fragment.split(separator: "&", omittingEmptySubsequences: false).first,
              let equals = first.firstIndex(of: "=") else { return false }
        return first.index(after: equals) != first.endIndex
    }
}
