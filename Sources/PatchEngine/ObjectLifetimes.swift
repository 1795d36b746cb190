import CJavaScriptCore
import Foundation
import PatchSupport

/// What the engine tracks about the lifetime of Objective-C objects its boxes stand for: `__weak`
/// boxes to zero when their object is deallocated, boxes made while an object's -dealloc runs, and
/// the objects whose JS -dealloc chained to the original. One object for the process (every VM's
/// `Engine.lifetimes`): the runtime's dealloc handlers and box finalizers reach it on any thread.
///
/// Lock discipline: one lock, held only to change the tables; boxes are zeroed after it is let go
/// (`JSObjectSetPrivate` runs no JS, but nothing else runs under it either).
final class ObjectLifetimes: @unchecked Sendable {
    private struct Tables {
        /// Objects whose JS `-dealloc` chained to the original (which then must not run again).
        var deallocOriginalCalled: Set<UInt> = []
        /// Object address → its `__weak` boxes, zeroed when the object is deallocated.
        var weakBoxes: [UInt: [JSObjectRef]] = [:]
        /// Boxes of objects made while their -dealloc ran (they retain nothing: the memory goes when
        /// that -dealloc returns), per address and deallocating thread, zeroed when it returns.
        var deallocScopedBoxes: [DeallocScope: [JSObjectRef]] = [:]
    }
    private let tables = LockedValue(Tables())

    /// Tracks `box`, a `__weak` box of `object`.
    func addWeakBox(_ box: JSObjectRef, of object: UnsafeMutableRawPointer) {
        tables.withLock { $0.weakBoxes[UInt(bitPattern: object), default: []].append(box) }
    }

    /// The object is being deallocated: its weak boxes now hold nil. Runs before the class's
    /// -dealloc (whose memory another thread may get before it returns), on any thread; touches no JS.
    func objectDeallocated(_ object: UnsafeMutableRawPointer) {
        let boxes = tables.withLock { $0.weakBoxes.removeValue(forKey: UInt(bitPattern: object)) } ?? []
        for box in boxes { JSObjectSetPrivate(box, nil) }
    }

    /// Tracks `box`, made for an object during its -dealloc (`scope`).
    func addDeallocScopedBox(_ box: JSObjectRef, in scope: DeallocScope) {
        tables.withLock { $0.deallocScopedBoxes[scope, default: []].append(box) }
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

    /// A JS -dealloc sent -dealloc to the original: the dispatcher must not run it again.
    func noteDeallocOriginalCalled(_ object: UnsafeMutableRawPointer) {
        _ = tables.withLock { $0.deallocOriginalCalled.insert(UInt(bitPattern: object)) }
    }

    /// Whether the JS -dealloc of `object` chained to the original (and forgets it).
    func takeDeallocOriginalCalled(_ object: UnsafeMutableRawPointer) -> Bool {
        tables.withLock { $0.deallocOriginalCalled.remove(UInt(bitPattern: object)) != nil }
    }
}

/// An object's -dealloc running on one thread: another thread may run a -dealloc at the same
/// address meanwhile (a new object there, already gone again).
struct DeallocScope: Hashable {
    let address: UInt
    let thread: UInt

    /// `object`'s -dealloc on the calling thread.
    init(onThisThread object: UnsafeMutableRawPointer) {
        address = UInt(bitPattern: object)
        thread = UInt(bitPattern: Int(bitPattern: pthread_self()))
    }
}
