import Foundation

/// What the converter needs to know about C and Objective-C types, from clang's type spellings.
enum CTypes {
    static let integers: Set<String> = [
        "char", "signed char", "unsigned char", "short", "unsigned short", "int", "unsigned int", "long",
        "unsigned long", "long long", "unsigned long long", "_Bool", "bool", "__int128", "unsigned __int128",
        "BOOL", "NSInteger", "NSUInteger", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t",
        "uint32_t", "uint64_t", "size_t", "ssize_t", "intptr_t", "uintptr_t", "unichar", "NSTimeInterval_int",
    ]
    static let floats: Set<String> = ["float", "double", "long double", "CGFloat", "NSTimeInterval", "Float64", "Float32"]

    static func strip(_ type: String?) -> String {
        var t = (type ?? "").trimmingCharacters(in: .whitespaces)
        for q in ["const ", "volatile ", "__strong ", "__weak ", "__unsafe_unretained ", "__autoreleasing ", "__block "] {
            while t.hasPrefix(q) { t = String(t.dropFirst(q.count)) }
        }
        for q in [" const", " __strong", " __weak", " _Nonnull", " _Nullable", " __unsafe_unretained"] {
            while t.hasSuffix(q) { t = String(t.dropLast(q.count)) }
        }
        if t.hasSuffix("*const") { t = String(t.dropLast(5)) }   // `NSString *const`: a constant pointer
        return t
    }

    static func isInteger(_ type: String?) -> Bool {
        let t = strip(type)
        return integers.contains(t) || t.hasPrefix("enum ")
    }

    static func isFloat(_ type: String?) -> Bool { floats.contains(strip(type)) }

    static func isNumber(_ type: String?) -> Bool { isInteger(type) || isFloat(type) }

    static func isBool(_ type: String?) -> Bool { ["BOOL", "_Bool", "bool"].contains(strip(type)) }

    /// `id`, `Class`, `instancetype`, `NSString *`, `id<P>`, blocks: what JS sees as an object or nil.
    static func isObjectPointer(_ type: String?) -> Bool {
        let t = strip(type)
        if t == "id" || t == "Class" || t == "instancetype" || t.hasPrefix("id<") || t.hasPrefix("id <") { return true }
        if isBlock(t) { return true }
        guard t.hasSuffix("*") else { return false }
        let base = strip(String(t.dropLast()).trimmingCharacters(in: .whitespaces))
        guard let first = base.first, first.isUppercase else { return false }
        return !base.hasSuffix("*") && !base.hasPrefix("CF") && !base.hasPrefix("CG")
    }

    /// Any pointer (objects, C pointers, blocks).
    static func isPointer(_ type: String?) -> Bool {
        let t = strip(type)
        return isObjectPointer(t) || t.hasSuffix("*") || t == "SEL" || t.contains("(*)")
    }

    /// A block pointer (`void (^)(int)`), not a function type taking one (`void (void (^)(void))`).
    static func isBlock(_ type: String?) -> Bool {
        let t = strip(type)
        guard let open = t.firstIndex(of: "(") else { return false }
        return t[t.index(after: open)...].hasPrefix("^")
    }

    static func isStruct(_ canonical: String?) -> Bool { strip(canonical).hasPrefix("struct ") }

    /// A block type's return type and parameter types: `void (^)(NSString *, int)` → ("void", ["NSString *", "int"]).
    static func blockSignature(_ type: String?) -> (returns: String, params: [String])? {
        let t = strip(type)
        guard let caret = t.range(of: "(^") else { return nil }
        let returns = String(t[..<caret.lowerBound]).trimmingCharacters(in: .whitespaces)
        // The parameter list: the last parenthesised group.
        guard let close = t.lastIndex(of: ")") else { return nil }
        var depth = 0, open = close
        var i = close
        while true {
            if t[i] == ")" { depth += 1 } else if t[i] == "(" { depth -= 1; if depth == 0 { open = i; break } }
            if i == t.startIndex { return nil }
            i = t.index(before: i)
        }
        let list = String(t[t.index(after: open)..<close])
        var params: [String] = [], current = "", level = 0
        for c in list {
            if c == "(" { level += 1 } else if c == ")" { level -= 1 }
            if c == ",", level == 0 { params.append(current.trimmingCharacters(in: .whitespaces)); current = "" } else { current.append(c) }
        }
        if !current.trimmingCharacters(in: .whitespaces).isEmpty { params.append(current.trimmingCharacters(in: .whitespaces)) }
        if params == ["void"] { params = [] }
        return (returns, params)
    }

    /// A type name the engine's type lists (`block`, `defineProtocol`, `defineCFunction`) read:
    /// object pointers as written, Cocoa's scalar typedefs by name, other typedefs as clang resolves them.
    static func engineTypeName(_ type: String?, _ desugared: String?) -> String {
        let t = strip(type)
        if t.isEmpty { return "id" }
        if isObjectPointer(t) { return t == "instancetype" ? "id" : (isBlock(t) ? "id" : t) }
        let known: Set<String> = ["void", "BOOL", "NSInteger", "NSUInteger", "CGFloat", "SEL", "Class", "id", "double", "float",
                                  "int", "long", "char", "short", "unsigned int", "unsigned long", "long long",
                                  "unsigned long long", "unsigned char", "unsigned short", "bool", "CGRect", "CGPoint",
                                  "CGSize", "NSRect", "NSPoint", "NSSize", "NSRange", "char *", "const char *", "void *"]
        if known.contains(t) { return t }
        if let d = desugared.map(strip), !d.isEmpty {
            if isBlock(d) || isObjectPointer(d) { return "id" }   // a typedef'd block or object type
            if d.hasPrefix("struct ") { return String(d.dropFirst(7)) }
            if d.hasPrefix("enum ") { return "long" }
            return d
        }
        return t
    }
}

/// C string literals as clang prints them (quoted, C escapes) → the text they denote.
enum CStringLiteral {
    static func decode(_ printed: String) -> String {
        var s = Substring(printed)
        if s.hasPrefix("\"") { s = s.dropFirst() }
        if s.hasSuffix("\"") { s = s.dropLast() }
        var bytes: [UInt8] = []
        var it = Array(s.utf8)[...]
        while let b = it.popFirst() {
            guard b == UInt8(ascii: "\\"), let e = it.popFirst() else { bytes.append(b); continue }
            switch e {
            case UInt8(ascii: "n"): bytes.append(10)
            case UInt8(ascii: "t"): bytes.append(9)
            case UInt8(ascii: "r"): bytes.append(13)
            case UInt8(ascii: "a"): bytes.append(7)
            case UInt8(ascii: "b"): bytes.append(8)
            case UInt8(ascii: "f"): bytes.append(12)
            case UInt8(ascii: "v"): bytes.append(11)
            case UInt8(ascii: "x"):
                var v = 0
                while let h = it.first, let d = hexValue(h) { v = v * 16 + d; it = it.dropFirst() }
                bytes.append(UInt8(truncatingIfNeeded: v))
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                var v = Int(e - UInt8(ascii: "0")), n = 1
                while n < 3, let o = it.first, o >= UInt8(ascii: "0"), o <= UInt8(ascii: "7") {
                    v = v * 8 + Int(o - UInt8(ascii: "0")); it = it.dropFirst(); n += 1
                }
                bytes.append(UInt8(truncatingIfNeeded: v))
            default: bytes.append(e)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ b: UInt8) -> Int? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(b - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return Int(b - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return Int(b - UInt8(ascii: "A")) + 10
        default: return nil
        }
    }
}
