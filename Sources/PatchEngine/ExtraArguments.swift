import CJavaScriptCore
import Foundation
import PatchRuntime
import PatchSupport

/// Arguments a script passes to a JS-defined method beyond what its selector takes. JSPatch hands
/// a JS method every argument of a call from JS (`funcReturnBool: function (view, num)` is
/// -funcReturnBool:, and `o.funcReturnBool(view, 42)` reaches it with both); a call that crosses
/// into Objective-C carries only the selector's, so the rest wait here, per thread, for the JS
/// method the call enters (direct.js passes them on without crossing). Only for methods a JS
/// patch implements: extra arguments to a native method are still an error.
final class ExtraArguments: @unchecked Sendable {
    private struct Pending {
        let thread: pthread_t
        let receiver: UnsafeMutableRawPointer
        let selector: String
        let values: [JSValueRef]
    }
    private let pending = LockedValue<[Pending]>([])
    /// How many calls are pending, read without the lock on every entry of a JS method.
    private let count: UnsafeMutablePointer<UInt32> = {
        let count = UnsafeMutablePointer<UInt32>.allocate(capacity: 1)
        count.initialize(to: 0)
        return count
    }()

    /// Whether a send of `selector` to `receiver` enters a JS patch.
    static func entersJSPatch(_ receiver: UnsafeMutableRawPointer, _ selector: String) -> Bool {
        guard let cls = PEObjectGetClass(receiver), let slot = PESlotFindInHierarchy(cls, selector) else { return false }
        return PESlotGetPatch(slot) != 0
    }

    /// Keeps `values` (protected) for the next entry of `selector` on `receiver` on this thread,
    /// for the duration of `body`.
    func withPending<T>(_ values: [JSValueRef], receiver: UnsafeMutableRawPointer, selector: String, ctx: JSContextRef,
                        _ body: () throws -> T) rethrows -> T {
        guard !values.isEmpty else { return try body() }
        for value in values { JSValueProtect(ctx, value) }
        let thread = pthread_self()
        pending.withLock { list in
            list.append(Pending(thread: thread, receiver: receiver, selector: selector, values: values))
            PEAtomicStoreUInt32(count, UInt32(list.count))
        }
        defer {
            pending.withLock { list in
                if let index = list.lastIndex(where: { pthread_equal($0.thread, thread) != 0 && $0.receiver == receiver && $0.selector == selector }) {
                    list.remove(at: index)
                }
                PEAtomicStoreUInt32(count, UInt32(list.count))
            }
            for value in values { JSValueUnprotect(ctx, value) }
        }
        return try body()
    }

    /// The values waiting for this entry of `selector` on `receiver`, taken (an entry further in,
    /// such as a super call the method makes, gets none).
    func take(receiver: UnsafeMutableRawPointer?, selector: String) -> [JSValueRef] {
        guard let receiver else { return [] }
        let thread = pthread_self()
        return pending.withLock { list in
            guard let index = list.lastIndex(where: { pthread_equal($0.thread, thread) != 0 && $0.receiver == receiver && $0.selector == selector }),
                  !list[index].values.isEmpty else { return [] }
            let values = list[index].values
            list[index] = Pending(thread: thread, receiver: receiver, selector: selector, values: [])
            return values
        }
    }

    /// Whether any call is waiting (a cheap check before `take`).
    var isEmpty: Bool { PEAtomicLoadUInt32(count) == 0 }
}
