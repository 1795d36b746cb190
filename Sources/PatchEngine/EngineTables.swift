import CJavaScriptCore
import Foundation

/// The engine's tables that bridge calls on any thread read and change; held by
/// `Engine.tables`, whose lock guards them. Per-script state (included files, source maps) is in
/// the script's transaction instead (`TransactionLog`), so it goes away with a revert.
struct EngineTables {
    /// Objects whose JS `-dealloc` chained to the original (which then must not run again).
    var deallocOriginalCalled: Set<UInt> = []
    /// Object address → its `__weak` boxes, zeroed when the object is deallocated.
    var weakBoxes: [UInt: [JSObjectRef]] = [:]
    /// Boxes of objects made while their -dealloc ran (they retain nothing: the memory goes when
    /// that -dealloc returns), per address and deallocating thread, zeroed when it returns.
    var deallocScopedBoxes: [DeallocScope: [JSObjectRef]] = [:]
    /// JS → Objective-C sends, per class and selector; records live for the process.
    var callSites: [CallSiteKey: UnsafeMutablePointer<Engine.CallSite>] = [:]
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
