import CJavaScriptCore

/// One box per live object: while JS can still reach an object's strong box, the object crosses
/// into JS as that same box again.
///
/// Why: making a box (`JSObjectMake`) costs ≈ 70–100 ns, about as much as a whole call from
/// native code into JS, and every patched method needs one for `self`. The table maps an object's
/// address to a JavaScriptCore weak reference to its box (`JSWeakCreate`), which doesn't keep the
/// box alive: once JS drops the box it is collected as before and its finalizer releases the
/// object. A weak reference reads NULL from the collection that found its box dead on; the box's
/// finalizer (which releases the object) runs only after that, at the box's sweep, so an address
/// can't be reused by a new object while an entry still answers for it. An entry whose box died
/// stays until its slot is wanted (the same address boxed again) or the table is rebuilt, when it
/// is dropped. Scripts see one more guarantee than before: the same object is `===` itself while
/// both are in reach.
///
/// Why not JavaScriptCore's weak object map (`JSWeakObjectMapGet`, what this used before): each
/// lookup takes a `JSLockHolder`, whose reference counts on the VM and its lock are four atomic
/// operations — 25 ns a lookup, measured, a fifth of a patched call's whole cost. `JSWeakGetObject`
/// takes no lock (1.6 ns); the table is guarded by the VM's API lock, which the hot path already
/// holds (a recursive hold is ≈ 8 ns where it doesn't).
///
/// Where JavaScriptCore lacks the weak reference or lock functions (`JSCPrivateFunctions`) the
/// cache is off and every crossing makes a box, as it always did.
final class BoxCache {
    private struct Entry {
        var object: UnsafeMutableRawPointer?
        var weak: PEJSWeakRef?
    }

    private let group: JSContextGroupRef
    private let functions: JSCPrivateFunctions.WeakReferenceFunctions?
    /// Open addressing with linear probing; `capacity` a power of two. Guarded by the API lock.
    @exclusivity(unchecked) private var entries: UnsafeMutablePointer<Entry>
    @exclusivity(unchecked) private var capacity: Int
    /// 64 − log2(capacity): a hash's top bits pick the slot.
    @exclusivity(unchecked) private var shift: Int
    /// Slots in use, dead boxes' included.
    @exclusivity(unchecked) private var used = 0
    private static let minimumCapacity = 64

    init(group: JSContextGroupRef, lockAvailable: Bool) {
        self.group = group
        functions = lockAvailable ? JSCPrivateFunctions.weakReferences : nil
        capacity = functions == nil ? 0 : Self.minimumCapacity
        shift = 64 - Self.minimumCapacity.trailingZeroBitCount
        entries = .allocate(capacity: capacity)
        entries.initialize(repeating: Entry(), count: capacity)
    }

    /// Slots in use (dead boxes' included) and the table's size: for tests.
    var occupancy: (used: Int, capacity: Int) { (used, capacity) }

    @inline(__always) private func slot(of object: UnsafeMutableRawPointer) -> Int {
        // Fibonacci hashing: the product's top bits mix every bit of the address.
        Int(truncatingIfNeeded: (UInt64(UInt(bitPattern: object)) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(shift))
    }

    /// The live box of `object`, if there is one. The caller holds the API lock.
    @inline(__always) func box(of object: UnsafeMutableRawPointer) -> JSObjectRef? {
        guard let functions else { return nil }
        var i = slot(of: object)
        while let key = entries[i].object {
            if key == object { return entries[i].weak.flatMap { functions.get($0) } }
            i = (i + 1) & (capacity - 1)
        }
        return nil
    }

    /// `box` is `object`'s box from now on. The caller holds the API lock.
    func remember(_ box: JSObjectRef, of object: UnsafeMutableRawPointer) {
        guard let functions else { return }
        if (used + 1) * 2 > capacity { rebuild(functions) }
        var i = slot(of: object)
        while let key = entries[i].object, key != object { i = (i + 1) & (capacity - 1) }
        if entries[i].object == nil {
            used += 1
        } else if let old = entries[i].weak {
            functions.release(group, old)
        }
        entries[i] = Entry(object: object, weak: functions.create(group, box))
    }

    /// Drops the entries whose box died and rehashes the rest into a table sized for them (at most
    /// a quarter full, never below the minimum): the table stays bounded by the live boxes.
    private func rebuild(_ functions: JSCPrivateFunctions.WeakReferenceFunctions) {
        var live = 0
        for i in 0..<capacity {
            guard let weak = entries[i].weak else { continue }
            if functions.get(weak) == nil {
                functions.release(group, weak)
                entries[i] = Entry()
            } else {
                live += 1
            }
        }
        var newCapacity = Self.minimumCapacity
        while newCapacity < live * 4 { newCapacity *= 2 }
        let old = entries, oldCapacity = capacity
        entries = .allocate(capacity: newCapacity)
        entries.initialize(repeating: Entry(), count: newCapacity)
        capacity = newCapacity
        shift = 64 - newCapacity.trailingZeroBitCount
        used = 0
        for i in 0..<oldCapacity {
            guard let object = old[i].object, old[i].weak != nil else { continue }
            var j = slot(of: object)
            while entries[j].object != nil { j = (j + 1) & (capacity - 1) }
            entries[j] = old[i]
            used += 1
        }
        old.deallocate()
    }
}
