import CJavaScriptCore
import PatchRuntime

/// JS values ↔ the general-purpose register words of a register-only call (`PEMessageSendRegisters`).
///
/// The common values (boxes, nil, numbers, booleans) are read and made from their bits, with no
/// call into JavaScriptCore (`JSValueBits`, `BoxBits`); everything else goes through `fromJS` /
/// `toJS` on a word of memory, so the results are exactly a framed call's.
extension Engine {
    /// `value` as the register word a callee expects for `type`, narrow integers sign- or
    /// zero-extended as their type is.
    @inline(__always)
    func registerValue(of value: JSValueRef, _ type: ObjCType, what: @autoclosure () -> String) throws -> UInt {
        let kind = type.kind
        if let values = shortcuts.values {
            switch kind {
            case .object:
                if values.cell(value) != nil, let object = unbox(value) { return UInt(bitPattern: object) }
                if values.isUndefinedOrNull(value) || values.boolean(value) == false { return 0 }
            case .char, .uchar, .short, .ushort, .int, .uint, .long, .ulong, .longLong, .ulongLong:
                if let d = values.number(value) { return registerNumber(d, type) }
            case .bool:
                if let b = values.boolean(value) { return b ? 1 : 0 }
                if let i = values.int32(value) { return i != 0 ? 1 : 0 }
            default:
                break
            }
        }
        var word: UInt = 0
        try withUnsafeMutableBytes(of: &word) { try fromJS(value, type, into: $0.baseAddress!, what: what()) }
        return Self.widen(word, kind)
    }

    /// A number stored as `type` would be (C's conversion, clamped), as a register word.
    @inline(__always) private func registerNumber(_ d: Double, _ type: ObjCType) -> UInt {
        var word: UInt = 0
        withUnsafeMutableBytes(of: &word) { _ = storeNumber(d, type, into: $0.baseAddress!) }
        return Self.widen(word, type.kind)
    }

    /// The low bytes of `word` that hold a `kind`, extended to the whole register as the callee
    /// (or, for a result, the caller) may expect.
    @inline(__always) static func widen(_ word: UInt, _ kind: ObjCType.Kind) -> UInt {
        switch kind {
        case .char: return UInt(bitPattern: Int(Int8(truncatingIfNeeded: word)))
        case .uchar, .bool: return UInt(UInt8(truncatingIfNeeded: word))
        case .short: return UInt(bitPattern: Int(Int16(truncatingIfNeeded: word)))
        case .ushort: return UInt(UInt16(truncatingIfNeeded: word))
        case .int: return UInt(bitPattern: Int(Int32(truncatingIfNeeded: word)))
        case .uint: return UInt(UInt32(truncatingIfNeeded: word))
        default: return word
        }
    }

    /// The JS value of a register-only call's result register (not void, not an object).
    @inline(__always)
    func jsValue(ofRegister register: UInt, _ type: ObjCType) throws -> JSValueRef {
        let kind = type.kind
        if let values = shortcuts.values {
            let word = Self.widen(register, kind)
            switch kind {
            case .char, .short, .int, .long, .longLong:
                return values.makeNumber(Double(Int(bitPattern: word)))
            case .uchar, .ushort, .uint, .ulong, .ulongLong:
                return values.makeNumber(Double(word))
            case .bool:
                return values.makeBoolean(word != 0)
            default:
                break
            }
        }
        var word = register
        return try withUnsafeBytes(of: &word) { try toJS($0.baseAddress!, type) }
    }
}
