import CJavaScriptCore
import Foundation
import PatchRuntime

/// `__weak(obj)`: a box that does not retain its object and becomes nil when the object is
/// deallocated. GCC's runtime has no zeroing weak references, so the engine zeroes them itself:
/// the object's class gets the dispatcher's per-object cleanup, which reports the address here
/// when its -dealloc starts. A message to a zeroed weak box answers false, like any message to nil.
extension Engine {
    func makeWeak(_ object: UnsafeMutableRawPointer) throws -> JSValueRef {
        // Classes and protocols never go away (and a protocol's class can't take the cleanup).
        if PEObjectGetKind(object) == PEObjectKindClass || PEObjectIsProtocol(object) { return box(object) }
        var error: UnsafeMutablePointer<CChar>?
        guard PEClassEnablePropertyCleanup(PEObjectGetClass(object), &error) else {
            defer { free(error) }
            throw BridgeError("__weak: \(error.map { String(cString: $0) } ?? "cannot track the object")")
        }
        let boxed = box(object, retain: false)
        let jsObject = JSValueToObject(ctx, boxed, nil)!
        // Inside the object's own -dealloc its weak references are already zeroed (as ARC's read
        // nil from then on); one made now would outlive the memory.
        if PEObjectIsDeallocatingOnThisThread(object) {
            JSObjectSetPrivate(jsObject, nil)
            return boxed
        }
        tables.withLock { $0.weakBoxes[UInt(bitPattern: object), default: []].append(jsObject) }
        return boxed
    }

    /// The object is being deallocated: its weak boxes now hold nil. Runs before the class's
    /// -dealloc (whose memory another thread may get before it returns), on any thread; touches no JS.
    func objectDeallocated(_ object: UnsafeMutableRawPointer) {
        let boxes = tables.withLock { $0.weakBoxes.removeValue(forKey: UInt(bitPattern: object)) } ?? []
        for box in boxes { JSObjectSetPrivate(box, nil) }
    }

    /// A box for an object whose -dealloc this thread is running (a patched method it calls, an
    /// argument): it retains nothing and reads nil once that -dealloc returns.
    func deallocScopedBox(_ object: UnsafeMutableRawPointer) -> JSValueRef {
        let boxed = box(object, retain: false)
        let scope = DeallocScope(onThisThread: object)
        tables.withLock { $0.deallocScopedBoxes[scope, default: []].append(JSValueToObject(ctx, boxed, nil)!) }
        return boxed
    }

    /// The -dealloc this thread ran for `object` returned: the boxes made during it now hold nil.
    func objectDeallocEnded(_ object: UnsafeMutableRawPointer) {
        let scope = DeallocScope(onThisThread: object)
        let boxes = tables.withLock { $0.deallocScopedBoxes.removeValue(forKey: scope) } ?? []
        for box in boxes { JSObjectSetPrivate(box, nil) }
    }

    /// A weak box was collected: stop tracking it (from its finalizer; touches no JS).
    func forgetWeakBox(_ box: JSObjectRef, object: UnsafeMutableRawPointer?) {
        guard let object else { return }
        let key = UInt(bitPattern: object)
        tables.withLock { tables in
            tables.weakBoxes[key]?.removeAll { $0 == box }
            if tables.weakBoxes[key]?.isEmpty == true { tables.weakBoxes[key] = nil }
            // Collected while the -dealloc still runs (a collection inside it): not zeroed later.
            if !tables.deallocScopedBoxes.isEmpty {
                for scope in tables.deallocScopedBoxes.keys where scope.address == key {
                    tables.deallocScopedBoxes[scope]?.removeAll { $0 == box }
                    if tables.deallocScopedBoxes[scope]?.isEmpty == true { tables.deallocScopedBoxes[scope] = nil }
                }
            }
        }
    }

    /// Whether `value` is a weak box whose object was deallocated.
    func isZeroedWeakBox(_ value: JSValueRef) -> Bool {
        JSValueIsObjectOfClass(ctx, value, weakObjectClass) && JSObjectGetPrivate(JSValueToObject(ctx, value, nil)) == nil
    }
}
