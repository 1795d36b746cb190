import Foundation
import PatchRuntime

/// The type names scripts write where JSPatch accepts them, turned into what the runtime core
/// parses: type lists (`block()`, `defineProtocol`, `defineCFunction`) and struct field types
/// (`defineStruct`).
///
/// - In a type list, a struct the engine knows (`CGAffineTransform`, `UIEdgeInsets`, a
///   `defineStruct` one) by name or as JSPatch's `{Name}` becomes its encoding, and a class
///   name written without `*` (`NSString`, as JSPatch's defineProtocol takes it) becomes `id`.
///   The C type names the core knows (`int`, `CGFloat`, `NSString *`, `CGRect`…) pass unchanged.
/// - In defineStruct's types, JSPatch's letters `F` (CGFloat), `N` (NSInteger), `U`
///   (NSUInteger), a bare `^` (a pointer) and `{Name}` (a struct defined before) become
///   Objective-C encodings; Objective-C encodings (`cds`, `{_NSPoint=dd}`) pass unchanged.
enum TypeNames {
    /// The type list with every name the core would not know replaced (see above).
    static func resolveTypeList(_ list: String, structs: StructRegistry) -> String {
        list.split(separator: ",", omittingEmptySubsequences: false).map { item -> String in
            let name = item.trimmingCharacters(in: .whitespaces)
            if name.hasPrefix("{"), name.hasSuffix("}"), !name.contains("=") {
                let inner = String(name.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
                return structs.encoding(named: inner) ?? name
            }
            if isIdentifier(name), !coreKnows(name) {
                if let encoding = structs.encoding(named: name) { return encoding }
                if PEClassLookup(name) != nil { return "id" }
            }
            return String(item)
        }.joined(separator: ",")
    }

    /// JSPatch's struct field letters and `{Name}` references as an Objective-C encoding body.
    static func structEncoding(_ types: String, structs: StructRegistry) throws -> String {
        var out = ""
        var rest = Substring(types)
        while let c = rest.first {
            rest = rest.dropFirst()
            switch c {
            case "F": out += "d"          // CGFloat (64-bit platforms)
            case "N": out += "q"          // NSInteger
            case "U": out += "Q"          // NSUInteger
            case "^" where rest.first.map({ !isEncodingStart($0) }) ?? true:
                out += "^v"               // JSPatch's bare pointer
            case "{":
                guard let close = rest.firstIndex(of: "}") else { throw BridgeError("unterminated { in \"\(types)\"") }
                let body = rest[..<close]
                if body.contains("=") || body.contains("{") {
                    // A full Objective-C struct encoding: copied with its nesting.
                    var depth = 1, end = rest.startIndex
                    for index in rest.indices {
                        if rest[index] == "{" { depth += 1 } else if rest[index] == "}" { depth -= 1 }
                        if depth == 0 { end = index; break }
                    }
                    guard depth == 0 else { throw BridgeError("unterminated { in \"\(types)\"") }
                    out += "{" + rest[..<end] + "}"
                    rest = rest[rest.index(after: end)...]
                } else {
                    let name = body.trimmingCharacters(in: .whitespaces)
                    guard let encoding = structs.encoding(named: name) else {
                        throw BridgeError("{\(name)} names no struct (define it with defineStruct first)")
                    }
                    out += encoding
                    rest = rest[rest.index(after: close)...]
                }
            default:
                out.append(c)
            }
        }
        return out
    }

    /// The scalar type of a JSPatch type letter (assignScalarTypePointer), nil for others.
    static func scalarType(letter: String) -> ObjCType? {
        let encoding: String
        switch letter {
        case "F": encoding = "d"
        case "N": encoding = "q"
        case "U": encoding = "Q"
        case "c", "C", "s", "S", "i", "I", "l", "L", "q", "Q", "f", "d", "B": encoding = letter
        default: return nil
        }
        var error: UnsafePointer<CChar>?
        return PETypeParse(encoding, &error).map { ObjCType(raw: $0) }
    }

    private static func isEncodingStart(_ c: Character) -> Bool {
        "cCsSiIlLqQfdBv@#:*^{[(?".contains(c)
    }

    private static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.first, first.isLetter || first == "_" else { return false }
        return name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
    }

    /// Whether the core's type-list parser knows `name` by itself.
    private static func coreKnows(_ name: String) -> Bool {
        var error: UnsafePointer<CChar>?
        return PEFunctionSignatureFromTypeList(name, &error) != nil
    }
}
