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
        lifetimes.addWeakBox(jsObject, of: object)
        return boxed
    }

    /// A box for an object whose -dealloc this thread is running (a patched method it calls, an
    /// argument): it retains nothing and reads nil once that -dealloc returns.
    func deallocScopedBox(_ object: UnsafeMutableRawPointer) -> JSValueRef {
        let boxed = box(object, retain: false)
        let scope = DeallocScope(onThisThread: object)
        lifetimes.addDeallocScopedBox(JSValueToObject(ctx, boxed, nil)!, in: scope)
        return boxed
    }

    /// Whether `value` is a weak box whose object was deallocated.
    func isZeroedWeakBox(_ value: JSValueRef) -> Bool {
        JSValueIsObjectOfClass(ctx, value, classes.weakObject) && JSObjectGetPrivate(JSValueToObject(ctx, value, nil)) == nil
    }
}
