import CJavaScriptCore

/// Reading and making a few kinds of `JSValueRef` without calling JavaScriptCore.
///
/// Why: every C API call takes the VM's API lock and checks the value's kind before answering
/// (≈ 35–60 ns on the CI machine kind when the calling thread doesn't hold the lock already, which
/// it never does inside a native callback: JavaScriptCore drops it around them); a bridged call
/// that costs a host call (≈ 50 ns) can't afford several of those per argument.
/// A `JSValueRef` is JavaScriptCore's 64-bit encoded value (JSVALUE64, on every 64-bit platform it
/// supports, Apple's included): an object is its cell pointer, the same bits as its `JSObjectRef`;
/// an int32 carries the number tag in its top bits; a double is its bits plus 2⁴⁹; `false`,
/// `true`, `null` and `undefined` are fixed immediates. That layout is not API, so the engine
/// checks it against JavaScriptCore's own answers at start (`init(verifyingIn:)`) and uses the C
/// API for everything when it differs (`LayoutShortcuts` decides).
struct JSValueBits {
    private static let numberTag: UInt = 0xfffe_0000_0000_0000
    private static let otherTag: UInt = 0x2
    private static let notCellMask: UInt = numberTag | otherTag
    private static let doubleEncodeOffset: UInt = 1 << 49
    private static let undefinedBits: UInt = 0xa, falseBits: UInt = 0x6, trueBits: UInt = 0x7, nullBits: UInt = 0x2
    /// JavaScriptCore's one NaN (every NaN a value holds is made this one).
    private static let pureNaN: UInt64 = 0x7ff8_0000_0000_0000

    /// Whether the encoding matched at start; when false no method below may be used.
    let isUsable: Bool

    init(verifyingIn ctx: JSContextRef) {
        guard MemoryLayout<UInt>.size == 8 else { isUsable = false; return }
        func bits(_ value: JSValueRef?) -> UInt { UInt(bitPattern: value.map { UnsafeRawPointer($0) }) }
        let object = JSObjectMake(ctx, nil, nil)
        let int7 = JSValueMakeNumber(ctx, 7), negative = JSValueMakeNumber(ctx, -3)
        var usable = bits(JSValueMakeUndefined(ctx)) == Self.undefinedBits && bits(JSValueMakeBoolean(ctx, false)) == Self.falseBits
            && bits(JSValueMakeNull(ctx)) == Self.nullBits && bits(JSValueMakeBoolean(ctx, true)) == Self.trueBits
            && bits(int7) & Self.numberTag == Self.numberTag && Int32(truncatingIfNeeded: bits(int7)) == 7
            && bits(negative) & Self.numberTag == Self.numberTag && Int32(truncatingIfNeeded: bits(negative)) == -3
            && bits(JSValueMakeNumber(ctx, 1.5)) & Self.numberTag != Self.numberTag
            && bits(object) & Self.notCellMask == 0 && bits(object) != 0
            && bits(JSValueToObject(ctx, object, nil)) == bits(object)
        // Numbers both ways: what JavaScriptCore makes is what `number` reads and `makeNumber` makes.
        for d in [0, 7, -3, 1.5, -2.25e300, 5e-324, 4_294_967_296, 2_147_483_647, -2_147_483_648, 2_147_483_648,
                  -0.0, .infinity, -.infinity, .nan, Double(Int64.max)] where usable {
            let made = JSValueMakeNumber(ctx, d)!
            let probe = JSValueBits(usable: true)
            guard let read = probe.number(made), read.bitPattern == d.bitPattern || (read.isNaN && d.isNaN),
                  bits(probe.makeNumber(d)) == bits(made) else { usable = false; break }
        }
        isUsable = usable
    }

    private init(usable: Bool) { isUsable = usable }

    @inline(__always) private static func raw(_ value: JSValueRef) -> UInt { UInt(bitPattern: UnsafeRawPointer(value)) }
    @inline(__always) private static func value(_ raw: UInt) -> JSValueRef { OpaquePointer(bitPattern: raw)! }

    /// The value as an `Int32` when it is an int32 (JS integers that fit are encoded so).
    @inline(__always) func int32(_ value: JSValueRef) -> Int32? {
        let raw = Self.raw(value)
        return raw & Self.numberTag == Self.numberTag ? Int32(truncatingIfNeeded: raw) : nil
    }

    /// The value as a `Double` when it is a number.
    @inline(__always) func number(_ value: JSValueRef) -> Double? {
        let raw = Self.raw(value)
        if raw & Self.numberTag == Self.numberTag { return Double(Int32(truncatingIfNeeded: raw)) }
        if raw & Self.numberTag != 0 { return Double(bitPattern: UInt64(raw &- Self.doubleEncodeOffset)) }
        return nil
    }

    /// The number `d` as JavaScriptCore encodes it: an int32 when it is one (but not -0), else a double.
    @inline(__always) func makeNumber(_ d: Double) -> JSValueRef {
        if let i = Int32(exactly: d), !(i == 0 && d.sign == .minus) {
            return Self.value(Self.numberTag | UInt(UInt32(bitPattern: i)))
        }
        let bits = d.isNaN ? Self.pureNaN : d.bitPattern
        return Self.value(UInt(bits) &+ Self.doubleEncodeOffset)
    }

    @inline(__always) func makeInt32(_ i: Int32) -> JSValueRef { Self.value(Self.numberTag | UInt(UInt32(bitPattern: i))) }

    @inline(__always) func makeBoolean(_ b: Bool) -> JSValueRef { Self.value(b ? Self.trueBits : Self.falseBits) }

    /// The value as a `Bool` when it is `true` or `false`.
    @inline(__always) func boolean(_ value: JSValueRef) -> Bool? {
        switch Self.raw(value) {
        case Self.trueBits: return true
        case Self.falseBits: return false
        default: return nil
        }
    }

    @inline(__always) func isUndefinedOrNull(_ value: JSValueRef) -> Bool {
        let raw = Self.raw(value)
        return raw == Self.undefinedBits || raw == Self.nullBits
    }

    /// The value as an object when it is a cell (an object, or a string, symbol or big integer,
    /// which no class check accepts).
    @inline(__always) func cell(_ value: JSValueRef) -> JSObjectRef? {
        let raw = Self.raw(value)
        return raw & Self.notCellMask == 0 && raw != 0 ? value : nil
    }
}
