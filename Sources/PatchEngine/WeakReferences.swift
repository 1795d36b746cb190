import CJavaScriptCore
import Foundation
import PatchRuntime

/// `__weak(obj)`: a box that does not retain its object and becomes nil when the object is
/// deallocated. GCC's runtime has no zeroing weak references, so the engine zeroes them itself:
/// the object's class gets the dispatcher's per-object cleanup after -dealloc, which reports the
/// address here. A message to a zeroed weak box answers false, like any message to nil.
extension Engine {
    func makeWeak(_ object: UnsafeMutableRawPointer) throws -> JSValueRef {
        if PEObjectGetKind(object) == PEObjectKindClass { return box(object) }   // classes never go away
        var error: UnsafeMutablePointer<CChar>?
        guard PEClassEnablePropertyCleanup(PEObjectGetClass(object), &error) else {
            defer { free(error) }
            throw BridgeError("__weak: \(error.map { String(cString: $0) } ?? "cannot track the object")")
        }
        let boxed = box(object, retain: false)
        let jsObject = JSValueToObject(ctx, boxed, nil)!
        tables.withLock { $0.weakBoxes[UInt(bitPattern: object), default: []].append(jsObject) }
        return boxed
    }

    /// The object died: its weak boxes now hold nil. Runs after -dealloc on any thread; touches no JS.
    func objectDeallocated(_ object: UnsafeMutableRawPointer) {
        let boxes = tables.withLock { $0.weakBoxes.removeValue(forKey: UInt(bitPattern: object)) } ?? []
        for box in boxes { JSObjectSetPrivate(box, nil) }
    }

    /// A weak box was collected: stop tracking it (from its finalizer; touches no JS).
    func forgetWeakBox(_ box: JSObjectRef, object: UnsafeMutableRawPointer?) {
        guard let object else { return }
        let key = UInt(bitPattern: object)
        tables.withLock { tables in
            tables.weakBoxes[key]?.removeAll { $0 == box }
            if tables.weakBoxes[key]?.isEmpty == true { tables.weakBoxes[key] = nil }
        }
    }

    /// Whether `value` is a weak box whose object was deallocated.
    func isZeroedWeakBox(_ value: JSValueRef) -> Bool {
        JSValueIsObjectOfClass(ctx, value, weakObjectClass) && JSObjectGetPrivate(JSValueToObject(ctx, value, nil)) == nil
    }
}
