import PatchRuntime

/// Swift view of a parsed Objective-C type (`PEType` from the runtime core).
struct ObjCType {
    let raw: OpaquePointer

    enum Kind {
        case void, char, uchar, short, ushort, int, uint, long, ulong, longLong, ulongLong
        case float, double, bool, object, block, cls, selector, cString, pointer, structure, union, array
    }

    var kind: Kind {
        switch UInt8(truncatingIfNeeded: PETypeGetKind(raw).rawValue) {
        case UInt8(ascii: "v"): return .void
        case UInt8(ascii: "c"): return .char
        case UInt8(ascii: "C"): return .uchar
        case UInt8(ascii: "s"): return .short
        case UInt8(ascii: "S"): return .ushort
        case UInt8(ascii: "i"): return .int
        case UInt8(ascii: "I"): return .uint
        // `l` / `L` are 32 bits on Apple's runtime, C's long on GCC's (PEPlatform.h sizes them).
        case UInt8(ascii: "l"): return size == 4 ? .int : .long
        case UInt8(ascii: "L"): return size == 4 ? .uint : .ulong
        case UInt8(ascii: "q"): return .longLong
        case UInt8(ascii: "Q"): return .ulongLong
        case UInt8(ascii: "f"): return .float
        case UInt8(ascii: "d"): return .double
        case UInt8(ascii: "B"): return .bool
        case UInt8(ascii: "@"): return .object
        case UInt8(ascii: "?"): return .block
        case UInt8(ascii: "#"): return .cls
        case UInt8(ascii: ":"): return .selector
        case UInt8(ascii: "*"): return .cString
        case UInt8(ascii: "^"): return .pointer
        case UInt8(ascii: "{"): return .structure
        case UInt8(ascii: "("): return .union
        default: return .array
        }
    }

    /// A C number type (integers of every size, float, double; not BOOL).
    var isNumber: Bool {
        switch kind {
        case .char, .uchar, .short, .ushort, .int, .uint, .long, .ulong, .longLong, .ulongLong, .float, .double: return true
        default: return false
        }
    }

    var size: Int { PETypeGetSize(raw) }
    var encoding: String { String(cString: PETypeGetEncoding(raw)) }
    var name: String { String(cString: PETypeGetName(raw)) }
    var fieldCount: Int { Int(PETypeGetFieldCount(raw)) }
    func field(_ i: Int) -> ObjCType { ObjCType(raw: PETypeGetField(raw, UInt32(i))!) }
    func fieldOffset(_ i: Int) -> Int { PETypeGetFieldOffset(raw, UInt32(i)) }
    /// What a `^` type points at (nil for `^v` and function pointers).
    var pointee: ObjCType? { PETypeGetPointee(raw).map { ObjCType(raw: $0) } }

    /// A readable name for messages ("int", "id", "struct _NSRect").
    var displayName: String {
        switch kind {
        case .void: return "void"
        case .char: return "char"
        case .uchar: return "unsigned char"
        case .short: return "short"
        case .ushort: return "unsigned short"
        case .int: return "int"
        case .uint: return "unsigned int"
        case .long: return "long"
        case .ulong: return "unsigned long"
        case .longLong: return "long long"
        case .ulongLong: return "unsigned long long"
        case .float: return "float"
        case .double: return "double"
        case .bool: return "BOOL"
        case .object: return "id"
        case .block: return "block"
        case .cls: return "Class"
        case .selector: return "SEL"
        case .cString: return "char *"
        case .pointer: return "pointer"
        case .structure: return "struct \(name)"
        case .union: return "union \(name)"
        case .array: return "array"
        }
    }
}
