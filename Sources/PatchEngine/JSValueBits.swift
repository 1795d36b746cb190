import CJavaScriptCore

/// Reading a few kinds of `JSValueRef` without calling JavaScriptCore.
///
/// Why: every C API call takes the VM's API lock and checks the value's kind before answering;
/// a JS → Objective-C send made four of them just to find its receiver and selector number.
/// A `JSValueRef` is JavaScriptCore's 64-bit encoded value (JSVALUE64, on every 64-bit platform it
/// supports, Apple's included): an object is its cell pointer, the same bits as its `JSObjectRef`;
/// an int32 carries the number tag in its top bits; `false` and `undefined` are fixed immediates.
/// That layout is not API, so the engine checks it against JavaScriptCore's own answers at start
/// (`verify`) and uses the C API for everything when it differs.
struct JSValueBits {
    private static let numberTag: UInt = 0xfffe_0000_0000_0000
    private static let otherTag: UInt = 0x2
    private static let notCellMask: UInt = numberTag | otherTag

    /// Whether the encoding matched at start; when false no method below may be used.
    let isUsable: Bool

    init(verifyingIn ctx: JSContextRef) {
        guard MemoryLayout<UInt>.size == 8 else { isUsable = false; return }
        func bits(_ value: JSValueRef?) -> UInt { UInt(bitPattern: value.map { UnsafeRawPointer($0) }) }
        let object = JSObjectMake(ctx, nil, nil)
        let int7 = JSValueMakeNumber(ctx, 7), negative = JSValueMakeNumber(ctx, -3)
        isUsable = bits(JSValueMakeUndefined(ctx)) == 0xa && bits(JSValueMakeBoolean(ctx, false)) == 0x6
            && bits(JSValueMakeNull(ctx)) == 0x2 && bits(JSValueMakeBoolean(ctx, true)) == 0x7
            && bits(int7) & Self.numberTag == Self.numberTag && Int32(truncatingIfNeeded: bits(int7)) == 7
            && bits(negative) & Self.numberTag == Self.numberTag && Int32(truncatingIfNeeded: bits(negative)) == -3
            && bits(JSValueMakeNumber(ctx, 1.5)) & Self.numberTag != Self.numberTag
            && bits(object) & Self.notCellMask == 0 && bits(object) != 0
            && bits(JSValueToObject(ctx, object, nil)) == bits(object)
    }

    /// The value as an `Int32` when it is an int32 (JS integers that fit are encoded so).
    @inline(__always) func int32(_ value: JSValueRef) -> Int32? {
        let raw = UInt(bitPattern: UnsafeRawPointer(value))
        return raw & Self.numberTag == Self.numberTag ? Int32(truncatingIfNeeded: raw) : nil
    }

    /// The value as an object when it is a cell (an object, or a string or symbol, which no
    /// class check accepts).
    @inline(__always) func cell(_ value: JSValueRef) -> JSObjectRef? {
        let raw = UInt(bitPattern: UnsafeRawPointer(value))
        return raw & Self.notCellMask == 0 && raw != 0 ? value : nil
    }
}
