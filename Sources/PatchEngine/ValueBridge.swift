import CJavaScriptCore
import Foundation
import PatchRuntime

/// Conversions between JavaScript values and Objective-C values laid out by a type encoding.
///
/// Objective-C → JS: C numbers → number (BOOL → boolean), nil → false (so messages to nil answer
/// false, as in JSPatch), NSNumber → number/boolean, other objects (NSString, NSArray, NSDictionary
/// included) → boxes whose `.toJS()` converts them, blocks → callable functions, SEL → string,
/// Class → class box, pointers → pointer boxes, structs → objects with the struct's keys.
/// JS → Objective-C: the reverse, with JS strings, arrays and objects becoming NSString,
/// NSMutableArray and NSMutableDictionary; a value of the wrong kind is an error naming the type.
extension Engine {

    // MARK: Boxes

    /// A JS value for an Objective-C object (`retain`: the box holds a reference until collected).
    /// A strong box is the object's live box when it has one (`BoxCache`); a new one is a plain
    /// object whose read-only `__handle` is an `OCObject`-class object that holds the reference
    /// (see `BoxBits` for why the box itself is no object of a class).
    /// A protocol object is first made the runtime's one for its name (`PEObjectCanonical`).
    /// `inEntry`: the caller runs inside `entering`, which holds the API lock (a patched call's
    /// arguments): the cache is read without taking it again (≈ 8 ns a recursive hold).
    func box(_ object: UnsafeMutableRawPointer?, retain: Bool = true, inEntry: Bool = false) -> JSValueRef {
        guard let object else { return shortcuts.makeBoolean(false, ctx) }
        return boxCanonical(PEObjectCanonical(object), retain: retain, inEntry: inEntry)
    }

    private func boxCanonical(_ object: UnsafeMutableRawPointer, retain: Bool, inEntry: Bool = false) -> JSValueRef {
        if retain {
            // The usual case, the object's live box, read under the lock `entering` holds.
            if inEntry, let live = boxCache.box(of: object) { return live }
            // One hold of the API lock for the lookup and the making, so that two threads boxing
            // the same object in this VM can't both miss and make two boxes.
            let boxed = apiLock.withLock(ctx) { () -> JSObjectRef? in
                if let live = boxCache.box(of: object) { return live }
                // A retain now would not keep it: the memory goes when its -dealloc returns.
                if PEObjectIsDeallocatingOnThisThread(object) { return nil }
                let handle = JSObjectMake(ctx, classes.object, PEObjectRetain(object))!
                let boxed = Self.makeBoxObject(ctx, handle: handle, prototype: objectPrototype)
                boxCache.remember(boxed, of: object)
                return boxed
            }
            return boxed ?? deallocScopedBox(object)
        }
        let boxed = JSObjectMake(ctx, classes.weakObject, object)!
        JSObjectSetPrototype(ctx, boxed, objectPrototype)
        return boxed
    }

    private static let handleName = JSStringCreateWithUTF8CString("__handle")!

    /// A box around `handle`, made the one way every box is (its structure is what `BoxBits` checks).
    static func makeBoxObject(_ ctx: JSContextRef, handle: JSObjectRef, prototype: JSObjectRef) -> JSObjectRef {
        let boxed = JSObjectMake(ctx, nil, nil)!
        JSObjectSetPrototype(ctx, boxed, prototype)
        let attributes = kJSPropertyAttributeReadOnly | kJSPropertyAttributeDontEnum | kJSPropertyAttributeDontDelete
        JSObjectSetProperty(ctx, boxed, handleName, handle, JSPropertyAttributes(attributes), nil)
        return boxed
    }

    /// The object behind a box (a weak box's, a block's), or nil when `value` is no box.
    @inline(__always) func unbox(_ value: JSValueRef) -> UnsafeMutableRawPointer? {
        if let values = shortcuts.values, let objects = shortcuts.objects {
            // No lock at all (see BoxBits): only objects of the engine's classes have private data.
            guard let cell = values.cell(value) else { return nil }
            if objects.readsBoxes, let handle = objects.handleSlot(of: cell) { return handleObject(handle) }
            guard let object = JSObjectGetPrivate(cell) else { return unboxThroughAPI(value) }
            let jsClass = objects.jsClass(ofPrivateHolder: cell)
            return jsClass == classes.object || jsClass == classes.weakObject || jsClass == classes.blockFunction ? object : nil
        }
        return unboxThroughAPI(value)
    }

    /// The object behind a strong box (not a weak box, not a block), or nil.
    @inline(__always) func strongBoxObject(_ value: JSValueRef) -> UnsafeMutableRawPointer? {
        if let values = shortcuts.values, let boxes = shortcuts.boxes {
            guard let cell = values.cell(value) else { return nil }
            if let handle = boxes.handleSlot(of: cell) { return handleObject(handle) }
        }
        return handleObject(boxHandleThroughAPI(value))
    }

    /// The object a handle holds, when `value` is a handle.
    @inline(__always) private func handleObject(_ value: JSValueRef?) -> UnsafeMutableRawPointer? {
        guard let value else { return nil }
        if let values = shortcuts.values, let objects = shortcuts.objects {
            guard let cell = values.cell(value) else { return nil }
            if let object = objects.handlePrivateData(cell, handleClass: classes.object) { return object }
            guard let object = JSObjectGetPrivate(cell),
                  objects.jsClass(ofPrivateHolder: cell) == classes.object else { return nil }
            return object
        }
        guard JSValueIsObjectOfClass(ctx, value, classes.object) else { return nil }
        return JSObjectGetPrivate(value)
    }

    /// A box's handle read through the C API (a box a script has added properties to, or a
    /// JavaScriptCore whose layouts `BoxBits` didn't recognise); nil when `value` is no box.
    private func boxHandleThroughAPI(_ value: JSValueRef) -> JSValueRef? {
        guard JSValueIsObject(ctx, value), !JSValueIsObjectOfClass(ctx, value, classes.object),
              let object = JSValueToObject(ctx, value, nil),
              JSObjectGetPrototype(ctx, object) == objectPrototype, JSObjectHasProperty(ctx, object, Self.handleName) else { return nil }
        return JSObjectGetProperty(ctx, object, Self.handleName, nil)
    }

    /// The value as a number when it is one.
    @inline(__always) func numberValue(_ value: JSValueRef) -> Double? {
        shortcuts.number(value, ctx)
    }

    private func unboxThroughAPI(_ value: JSValueRef) -> UnsafeMutableRawPointer? {
        if let object = handleObject(boxHandleThroughAPI(value)) { return object }
        guard JSValueIsObject(ctx, value) else { return nil }
        if JSValueIsObjectOfClass(ctx, value, classes.object) || JSValueIsObjectOfClass(ctx, value, classes.weakObject)
            || JSValueIsObjectOfClass(ctx, value, classes.blockFunction) {
            return JSObjectGetPrivate(JSValueToObject(ctx, value, nil))
        }
        return nil
    }

    func isBox(_ value: JSValueRef) -> Bool {
        strongBoxObject(value) != nil || JSValueIsObjectOfClass(ctx, value, classes.object) || JSValueIsObjectOfClass(ctx, value, classes.weakObject)
    }

    func makePointer(_ pointer: UnsafeMutableRawPointer?) -> JSValueRef {
        guard let pointer else { return JSValueMakeNull(ctx) }
        let boxed = JSObjectMake(ctx, classes.pointer, pointer)!
        return boxed
    }

    func pointerValue(_ value: JSValueRef) -> UnsafeMutableRawPointer? {
        guard JSValueIsObjectOfClass(ctx, value, classes.pointer) else { return nil }
        return JSObjectGetPrivate(JSValueToObject(ctx, value, nil))
    }

    /// Class name for messages about a value's JS type.
    func jsTypeName(_ value: JSValueRef) -> String {
        switch JSValueGetType(ctx, value) {
        case kJSTypeUndefined: return "undefined"
        case kJSTypeNull: return "null"
        case kJSTypeBoolean: return "boolean"
        case kJSTypeNumber: return "number"
        case kJSTypeString: return "string"
        default:
            if let obj = unbox(value) { return String(cString: PEClassGetName(PEObjectGetClass(obj))) }
            if JSValueIsObjectOfClass(ctx, value, classes.pointer) { return "pointer" }
            if JSValueIsArray(ctx, value) { return "array" }
            if let o = JSValueToObject(ctx, value, nil), JSObjectIsFunction(ctx, o) { return "function" }
            return "object"
        }
    }

    // MARK: Objective-C → JS

    /// Converts the value of type `type` stored at `p`.
    func toJS(_ p: UnsafeRawPointer, _ type: ObjCType, inEntry: Bool = false) throws -> JSValueRef {
        switch type.kind {
        case .void: return JSValueMakeUndefined(ctx)
        case .char: return JSValueMakeNumber(ctx, Double(p.load(as: Int8.self)))
        case .uchar: return JSValueMakeNumber(ctx, Double(p.load(as: UInt8.self)))
        case .short: return JSValueMakeNumber(ctx, Double(p.load(as: Int16.self)))
        case .ushort: return JSValueMakeNumber(ctx, Double(p.load(as: UInt16.self)))
        case .int: return JSValueMakeNumber(ctx, Double(p.load(as: Int32.self)))
        case .uint: return JSValueMakeNumber(ctx, Double(p.load(as: UInt32.self)))
        case .long, .longLong: return JSValueMakeNumber(ctx, Double(p.load(as: Int64.self)))
        case .ulong, .ulongLong: return JSValueMakeNumber(ctx, Double(p.load(as: UInt64.self)))
        case .float: return JSValueMakeNumber(ctx, Double(p.load(as: Float.self)))
        case .double: return JSValueMakeNumber(ctx, p.load(as: Double.self))
        case .bool: return JSValueMakeBoolean(ctx, p.load(as: UInt8.self) != 0)
        case .object, .block, .cls:
            return objectToJS(p.load(as: UnsafeMutableRawPointer?.self), inEntry: inEntry)
        case .selector:
            guard let sel = p.load(as: UnsafeRawPointer?.self), let name = PESelectorGetName(sel) else {
                return JSValueMakeNull(ctx)
            }
            return JSC.makeString(ctx, String(cString: name))
        case .cString:
            // A pointer box, as JSPatch does: the same buffer comes back when JS passes it on.
            return makePointer(p.load(as: UnsafeMutableRawPointer?.self))
        case .pointer:
            return makePointer(p.load(as: UnsafeMutableRawPointer?.self))
        case .structure:
            return try structs.toJS(self, p, type)
        case .union, .array:
            throw BridgeError("values of type \(type.encoding) cannot cross into JavaScript")
        }
    }

    /// An object pointer as JS: numbers and booleans unwrap, blocks become callable, the rest is boxed.
    /// `inEntry`: as for `box`.
    func objectToJS(_ object: UnsafeMutableRawPointer?, retain: Bool = true, inEntry: Bool = false) -> JSValueRef {
        guard let native = object else { return JSValueMakeBoolean(ctx, false) }
        let object = PEObjectCanonical(native)!
        switch PEObjectGetKind(object) {
        case PEObjectKindNumber: return JSValueMakeNumber(ctx, PENumberGetDouble(object))
        case PEObjectKindBoolean: return JSValueMakeBoolean(ctx, PENumberGetDouble(object) != 0)
        case PEObjectKindBlock: return blockToJS(object)
        case PEObjectKindString, PEObjectKindArray, PEObjectKindDictionary, PEObjectKindNull:
            // autoConvertOCType(1): these arrive as JS values (jspatch.js).
            return jspatch.autoConvert ? deepObjectToJS(object) : boxCanonical(object, retain: retain, inEntry: inEntry)
        default: return boxCanonical(object, retain: retain, inEntry: inEntry)
        }
    }

    /// `.toJS()`: NSString → string, NSArray → array, NSDictionary → object, NSNull → null, recursively.
    func deepToJS(_ value: JSValueRef) -> JSValueRef {
        guard let object = unbox(value) else { return value }
        return deepObjectToJS(object)
    }

    func deepObjectToJS(_ object: UnsafeMutableRawPointer) -> JSValueRef {
        switch PEObjectGetKind(object) {
        case PEObjectKindString:
            var length = 0
            let bytes = PEStringCopyUTF8(object, &length)!
            defer { free(bytes) }
            return JSC.makeString(ctx, String(decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self))
        case PEObjectKindNull:
            return JSValueMakeNull(ctx)
        case PEObjectKindArray:
            let count = PEArrayCount(object)
            var items: [JSValueRef?] = []
            items.reserveCapacity(count)
            for i in 0..<count { items.append(deepObjectToJS(PEArrayGet(object, i))) }
            return JSC.array(ctx, items)
        case PEObjectKindDictionary:
            let result = JSObjectMake(ctx, nil, nil)!
            let keys = PEDictionaryKeys(object)!
            for i in 0..<PEArrayCount(keys) {
                let key = PEArrayGet(keys, i)!
                let name = JSC.toString(ctx, deepObjectToJS(key))
                JSC.set(ctx, result, name, deepObjectToJS(PEDictionaryGet(object, key)))
            }
            return result
        default:
            return objectToJS(object)
        }
    }

    // MARK: JS → Objective-C

    /// Writes `value` as a `type` at `p`. Memory that must outlive the write (C strings) is
    /// autoreleased into the caller's pool. `what` names the slot for error messages.
    func fromJS(_ value: JSValueRef, _ type: ObjCType, into p: UnsafeMutableRawPointer, what: @autoclosure () -> String) throws {
        switch type.kind {
        case .void: return
        case .char, .uchar, .short, .ushort, .int, .uint, .long, .longLong, .ulong, .ulongLong, .float, .double:
            storeNumber(try number(value, type, what()), type, into: p)
        case .bool: p.storeBytes(of: UInt8(JSValueToBoolean(ctx, value) ? 1 : 0), as: UInt8.self)
        case .object:
            p.storeBytes(of: try jsToObject(value, what: what()), as: UnsafeMutableRawPointer?.self)
        case .block:
            p.storeBytes(of: try jsToBlock(value, what: what()), as: UnsafeMutableRawPointer?.self)
        case .cls:
            p.storeBytes(of: try jsToClass(value, what: what()), as: UnsafeMutableRawPointer?.self)
        case .selector:
            if JSValueIsNull(ctx, value) || JSValueIsUndefined(ctx, value) {
                p.storeBytes(of: nil, as: UnsafeRawPointer?.self)
            } else if JSValueIsString(ctx, value) {
                p.storeBytes(of: PESelectorRegister(JSC.toString(ctx, value)), as: UnsafeRawPointer?.self)
            } else {
                throw BridgeError("\(what()) expects a selector name (string), got \(jsTypeName(value))")
            }
        case .cString:
            if JSValueIsNull(ctx, value) || JSValueIsUndefined(ctx, value) {
                p.storeBytes(of: nil, as: UnsafeRawPointer?.self)
            } else if JSValueIsString(ctx, value) {
                // The copy is freed when the caller's autorelease pool drains.
                let copy = strdup(JSC.toString(ctx, value))!
                PEAutoreleaseMalloced(copy, strlen(copy) + 1)
                p.storeBytes(of: UnsafeRawPointer(copy), as: UnsafeRawPointer?.self)
            } else if let ptr = pointerValue(value) {
                p.storeBytes(of: ptr, as: UnsafeMutableRawPointer?.self)
            } else {
                throw BridgeError("\(what()) expects a string, got \(jsTypeName(value))")
            }
        case .pointer:
            if JSValueIsNull(ctx, value) || JSValueIsUndefined(ctx, value) || (JSValueIsBoolean(ctx, value) && !JSValueToBoolean(ctx, value)) {
                p.storeBytes(of: nil, as: UnsafeMutableRawPointer?.self)
            } else if let ptr = pointerValue(value) ?? unbox(value) {
                p.storeBytes(of: ptr, as: UnsafeMutableRawPointer?.self)
            } else {
                throw BridgeError("\(what()) expects a pointer (from malloc() or an out-parameter), got \(jsTypeName(value))")
            }
        case .structure:
            try structs.fromJS(self, value, type, into: p, what: what())
        case .union, .array:
            throw BridgeError("\(what()): values of type \(type.encoding) cannot be passed from JavaScript")
        }
    }

    // `what` is only read to build an error: never computed on the way of a good value.
    func number(_ value: JSValueRef, _ type: ObjCType, _ what: @autoclosure () -> String) throws -> Double {
        if JSValueIsNumber(ctx, value) { return JSValueToNumber(ctx, value, nil) }
        if JSValueIsBoolean(ctx, value) { return JSValueToBoolean(ctx, value) ? 1 : 0 }
        if JSValueIsNull(ctx, value) || JSValueIsUndefined(ctx, value) { return 0 }
        if let object = unbox(value), PEObjectGetKind(object) == PEObjectKindNumber || PEObjectGetKind(object) == PEObjectKindBoolean {
            return PENumberGetDouble(object)
        }
        throw BridgeError("\(what()) expects \(type.displayName), got \(jsTypeName(value))")
    }

    /// A number JS returned for a numeric `type` (not `BOOL`), stored at `p` as `fromJS` would
    /// store it, reading no script code; false (nothing stored) for anything else.
    @inline(__always) func storeReturnedNumber(_ value: JSValueRef, _ type: ObjCType, into p: UnsafeMutableRawPointer) -> Bool {
        guard type.kind != .bool, type.isNumber, let number = numberValue(value) else { return false }
        return storeNumber(number, type, into: p)
    }

    /// Writes the number `d` as the numeric `type` at `p` (C's conversion, with integers clamped
    /// and NaN/infinity as 0); false, writing nothing, when `type` is not a number type.
    @discardableResult
    func storeNumber(_ d: Double, _ type: ObjCType, into p: UnsafeMutableRawPointer) -> Bool {
        switch type.kind {
        case .char: p.storeBytes(of: Int8(truncatingIfNeeded: Self.clampedInteger(d)), as: Int8.self)
        case .uchar: p.storeBytes(of: UInt8(truncatingIfNeeded: Self.clampedInteger(d)), as: UInt8.self)
        case .short: p.storeBytes(of: Int16(truncatingIfNeeded: Self.clampedInteger(d)), as: Int16.self)
        case .ushort: p.storeBytes(of: UInt16(truncatingIfNeeded: Self.clampedInteger(d)), as: UInt16.self)
        case .int: p.storeBytes(of: Int32(truncatingIfNeeded: Self.clampedInteger(d)), as: Int32.self)
        case .uint: p.storeBytes(of: UInt32(truncatingIfNeeded: Self.clampedInteger(d)), as: UInt32.self)
        case .long, .longLong: p.storeBytes(of: Self.clampedInteger(d), as: Int64.self)
        case .ulong, .ulongLong:
            // Negative values wrap as C's conversion through a signed integer does; NaN is 0.
            let value = d.isNaN ? 0 : d < 0 ? UInt64(bitPattern: Self.clampedInteger(d))
                      : (d >= 18446744073709551615.0 ? UInt64.max : UInt64(d))
            p.storeBytes(of: value, as: UInt64.self)
        case .float: p.storeBytes(of: Float(d), as: Float.self)
        case .double: p.storeBytes(of: d, as: Double.self)
        default: return false
        }
        return true
    }

    private static func clampedInteger(_ d: Double) -> Int64 {
        guard d.isFinite else { return 0 }
        if d >= 9223372036854775807.0 { return Int64.max }
        if d <= -9223372036854775808.0 { return Int64.min }
        return Int64(d)
    }

    /// How far one JS value's conversion to Foundation objects (`jsToObject`) may go: a script
    /// chooses the value, and the conversion is a native loop no time limit ends. An array inside
    /// itself recursed until the stack overflowed (the app crashed); an array of length 2^32 − 1
    /// grew an `NSArray` until memory ran out. Past a bound the conversion is refused with an
    /// error naming it (the script can catch it; a patched method's caller gets the original's
    /// result), never cut short silently.
    struct ObjectConversion {
        static let maximumDepth = 100
        static let maximumValues = 1_000_000
        var values = 0
        var open: Set<JSObjectRef> = []
    }

    /// A JS value as an object pointer (autoreleased when created here): arrays and plain objects
    /// become `NSArray` and `NSDictionary`, within `ObjectConversion`'s bounds.
    func jsToObject(_ value: JSValueRef, what: @autoclosure () -> String) throws -> UnsafeMutableRawPointer? {
        var conversion = ObjectConversion()
        return try jsToObject(value, what: what(), &conversion)
    }

    private func jsToObject(_ value: JSValueRef, what: @autoclosure () -> String,
                            _ conversion: inout ObjectConversion) throws -> UnsafeMutableRawPointer? {
        conversion.values += 1
        guard conversion.values <= ObjectConversion.maximumValues else {
            throw BridgeError("\(what()): the value holds more than \(ObjectConversion.maximumValues) values, the most one conversion to Objective-C makes")
        }
        switch JSValueGetType(ctx, value) {
        case kJSTypeUndefined, kJSTypeNull: return nil
        case kJSTypeBoolean:
            return JSValueToBoolean(ctx, value) ? PENumberCreateBool(true) : nil
        case kJSTypeNumber:
            return PENumberCreateDouble(JSValueToNumber(ctx, value, nil))
        case kJSTypeString:
            return JSC.toString(ctx, value).withCString { PEStringCreate($0, strlen($0)) }
        default:
            if let object = unbox(value) { return object }
            if isZeroedWeakBox(value) { return nil }
            if pointerValue(value) != nil {
                throw BridgeError("\(what()) expects an object, got a pointer (use pval() to read it)")
            }
            guard let object = JSValueToObject(ctx, value, nil) else {
                throw BridgeError("\(what()): JavaScriptCore answered no object (the script is being ended)")
            }
            if JSObjectIsFunction(ctx, object) {
                throw BridgeError("\(what()) got a JS function: wrap it with block(\"returnType, argTypes\", fn) to pass a block")
            }
            guard !conversion.open.contains(object) else {
                throw BridgeError("\(what()) contains itself: an array or object inside itself can't become an NSArray or NSDictionary")
            }
            guard conversion.open.count < ObjectConversion.maximumDepth else {
                throw BridgeError("\(what()) is nested deeper than \(ObjectConversion.maximumDepth) levels, the most a conversion to Objective-C follows")
            }
            conversion.open.insert(object)
            defer { conversion.open.remove(object) }
            if JSValueIsArray(ctx, value) {
                let array = PEArrayCreate()
                let n = try JSC.arrayLength(ctx, object, atMost: ObjectConversion.maximumValues, what())
                for i in 0..<n {
                    let item = try JSC.read(ctx, object, Int(i))
                    PEArrayAppend(array, try jsToObject(item, what: "\(what())[\(i)]", &conversion))
                }
                return array
            }
            let dict = PEDictionaryCreate()
            for key in JSC.propertyNames(ctx, object) {
                let item = try JSC.read(ctx, object, key)
                let keyObject = key.withCString { PEStringCreate($0, strlen($0)) }
                PEDictionarySet(dict, keyObject, try jsToObject(item, what: "\(what()).\(key)", &conversion))
            }
            return dict
        }
    }

    func jsToClass(_ value: JSValueRef, what: @autoclosure () -> String) throws -> UnsafeMutableRawPointer? {
        if JSValueIsNull(ctx, value) || JSValueIsUndefined(ctx, value) { return nil }
        if JSValueIsBoolean(ctx, value) && !JSValueToBoolean(ctx, value) { return nil }
        if JSValueIsString(ctx, value) {
            let name = JSC.toString(ctx, value)
            guard let cls = PEClassLookup(name) else { throw BridgeError("\(what()): no Objective-C class named \(name)") }
            return cls
        }
        if let object = unbox(value), PEObjectGetKind(object) == PEObjectKindClass { return object }
        throw BridgeError("\(what()) expects a class, got \(jsTypeName(value))")
    }
}
