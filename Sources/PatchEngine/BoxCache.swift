import CJavaScriptCore

/// One box per live object: while JS can still reach an object's strong box, the object crosses
/// into JS as that same box again.
///
/// Why: making a box (`JSObjectMake`) costs ≈ 70–100 ns, about as much as a whole call from
/// native code into JS, and every patched method needs one for `self`. Kept in a JavaScriptCore
/// weak object map (`PEJSWeakObjectMapRef`, keyed by the object's address), which doesn't keep a
/// box alive: once JS drops the box it is collected as before and its finalizer releases the
/// object. An entry reads as absent from the collection that found its box dead on; the box's
/// finalizer (which releases the object) runs only after that, so an address can't be reused by a
/// new object while an entry still answers for it. Scripts see one more guarantee than before:
/// the same object is `===` itself while both are in reach.
///
/// Where JavaScriptCore lacks the map functions (`JSCPrivateFunctions`) the cache is off and every crossing
/// makes a box, as it always did.
final class BoxCache {
    private let map: PEJSWeakObjectMapRef?
    private let getFunction: PEJSWeakObjectMapGetFunction?
    private let setFunction: PEJSWeakObjectMapSetFunction?

    init(ctx: JSContextRef) {
        let functions = JSCPrivateFunctions.weakObjectMap
        (getFunction, setFunction) = (functions?.get, functions?.set)
        map = functions?.create(ctx, nil, nil)
    }

    var isAvailable: Bool { map != nil }

    /// The live box of `object`, if there is one.
    @inline(__always) func box(of object: UnsafeMutableRawPointer, _ ctx: JSContextRef) -> JSObjectRef? {
        guard let map else { return nil }
        return getFunction.unsafelyUnwrapped(ctx, map, object)
    }

    @inline(__always) func remember(_ box: JSObjectRef, of object: UnsafeMutableRawPointer, _ ctx: JSContextRef) {
        guard let map else { return }
        setFunction.unsafelyUnwrapped(ctx, map, object, box)
    }
}
