import CJavaScriptCore
import Foundation
import PatchRuntime

/// Recognising the engine's boxes, and reading the object behind one, without JavaScriptCore's lock.
///
/// Why: the C API's class checks (`JSValueIsObjectOfClass`) and property reads take the API lock
/// (≈ 15 ns with the lock held, ≈ 60 ns inside a native callback, where JavaScriptCore has dropped
/// it), and every bridged call looks at its receiver and each object argument.
///
/// A box is a plain JS object (see `Engine.box`) whose first property is its *handle*: an object
/// of the engine's `OCObject` class, whose private data is the Objective-C object and whose
/// finalizer releases it. (A box is not itself an object of a class: JavaScriptCore never caches
/// property lookups on such objects, which made every `o.name()` of a script cost ≈ 58 ns before
/// the call was even made.) Every box is made the same way, so all boxes share one structure
/// (JavaScriptCore's hidden class: the 32-bit id at the start of every cell) and keep their handle
/// in the same inline slot. The engine's other objects with private data (weak boxes, pointers,
/// blocks, handles) are `JSCallbackObject`s: `JSObjectGetPrivate` answers for them without a lock,
/// and each keeps its private data and `JSClassRef` side by side in a record it points to
/// (WebKit's `JSCallbackObjectData`), set when it is made and never changed.
///
/// None of these layouts is API, so the engine finds them at start on objects it makes for the
/// purpose, reading through a pipe (a wrong guess reads EFAULT instead of crashing), and uses them
/// only when every probe agrees; otherwise the C API answers, as before (`LayoutShortcuts`
/// decides). A template box stays protected for the process, so the box structure is never
/// collected and its id never reused.
/// What a script may do to a box (add properties, build an object of the same shape around
/// another value) at most sends that object down the C API path or makes it read as no box: the
/// handle slot is only trusted once its value is itself checked to be a handle.
struct BoxBits {
    /// Byte offset, in a `JSCallbackObject`, of its `JSCallbackObjectData *`; nil: not found.
    let dataOffset: Int?
    /// The structure id every box has when made, and the byte offset of its handle slot.
    let boxStructure: UInt32?
    let handleOffset: Int
    /// The structure id every handle has when made (nil: not found). A cell with it is a
    /// `JSCallbackObject`, so its record can be read without `JSObjectGetPrivate`, which finds that
    /// out by walking the cell's class chain three times (≈ 3 % of a JS → Objective-C send). A
    /// script that adds a property to a handle moves it to another structure: the C API answers.
    let handleStructure: UInt32?
    /// The structure id a box has once runtime.js keeps a DirectState with it (DirectStamp), 0
    /// until learnt: on the first call of a JS-defined method from JS (`learnStampedStructure`),
    /// not at engine start. Written once, read by any thread.
    private let stampedBoxStructure: UnsafeMutablePointer<UInt32>

    init(verifyingIn ctx: JSContextRef, bits: JSValueBits, classes: [JSClassRef], handleClass: JSClassRef,
         makeBox: (JSObjectRef) -> JSObjectRef) {
        stampedBoxStructure = .allocate(capacity: 1)
        stampedBoxStructure.initialize(to: 0)
        guard MemoryLayout<UInt>.size == 8, bits.isUsable, classes.count >= 2, let reader = SafeReader() else {
            (dataOffset, boxStructure, handleOffset, handleStructure) = (nil, nil, 0, nil)
            return
        }
        // Two objects of each class, each with private data of its own (never read as anything).
        let markers = UnsafeMutablePointer<UInt8>.allocate(capacity: classes.count * 2)
        defer { markers.deallocate() }
        var probes: [(object: JSObjectRef, data: UnsafeMutableRawPointer, jsClass: JSClassRef)] = []
        for (i, jsClass) in classes.enumerated() {
            for j in 0..<2 {
                let data = UnsafeMutableRawPointer(markers + i * 2 + j)
                probes.append((JSObjectMake(ctx, jsClass, data), data, jsClass))
            }
        }
        defer {
            // Finalizers must not see the markers.
            for probe in probes { JSObjectSetPrivate(probe.object, nil) }
        }
        func cellAddress(_ object: JSObjectRef) -> UInt { UInt(bitPattern: UnsafeRawPointer(object)) }
        dataOffset = stride(from: 16, through: 64, by: 8).first { offset in
            probes.allSatisfy { probe in
                guard JSObjectGetPrivate(probe.object) == probe.data,
                      let record = reader.read(cellAddress(probe.object) + UInt(offset), words: 1)?[0],
                      record != 0, record % 8 == 0,
                      let contents = reader.read(record, words: 2) else { return false }
                return contents[0] == UInt(bitPattern: probe.data)
                    && contents[1] == UInt(bitPattern: UnsafeRawPointer(probe.jsClass))
            }
        }

        // Boxes: two made as the engine makes them share a structure that a plain object with
        // the same prototype doesn't have, and hold their handle in the same slot.
        let handles = probes.filter { $0.jsClass == handleClass }.map(\.object)
        let boxes = handles.map(makeBox)
        func structure(_ object: JSObjectRef) -> UInt32? {
            reader.read(cellAddress(object), words: 1).map { UInt32(truncatingIfNeeded: $0[0]) }
        }
        let plain = JSObjectMake(ctx, nil, nil)!
        let offset = stride(from: 16, through: 64, by: 8).first { offset in
            zip(boxes, handles).allSatisfy { box, handle in
                reader.read(cellAddress(box) + UInt(offset), words: 1)?[0] == cellAddress(handle)
            }
        }
        if dataOffset != nil, handles.count == 2, let offset,
           let id = structure(boxes[0]), structure(boxes[1]) == id, structure(plain) != id {
            // The template: keeps the box structure, its handle's, and their ids alive.
            JSValueProtect(ctx, boxes[0])
            (boxStructure, handleOffset) = (id, offset)
            // Handles share a structure that neither a plain object nor a box has; the record
            // layout (`dataOffset`) was verified on these very handles above.
            if let handleID = structure(handles[0]), structure(handles[1]) == handleID, handleID != 0,
               handleID != id, structure(plain) != handleID {
                handleStructure = handleID
            } else {
                handleStructure = nil
            }
        } else {
            (boxStructure, handleOffset, handleStructure) = (nil, 0, nil)
        }
    }

    /// Learns the structure of a stamped box from `box`, a box the engine made with `handle` and
    /// runtime.js's DirectStamp then stamped (kept protected, as the template of that structure).
    /// Only once, and only when it holds its handle where every box does.
    func learnStampedStructure(of box: JSObjectRef, handle: JSObjectRef, _ ctx: JSContextRef) {
        guard let boxStructure, PEAtomicLoadUInt32(stampedBoxStructure) == 0 else { return }
        let base = UnsafeRawPointer(box)
        let id = base.load(as: UInt32.self)
        guard id != boxStructure, id != 0,
              UInt(bitPattern: (base + handleOffset).load(as: UnsafeRawPointer?.self)) == UInt(bitPattern: UnsafeRawPointer(handle)) else { return }
        JSValueProtect(ctx, box)
        PEAtomicStoreUInt32(stampedBoxStructure, id)
    }

    /// Whether the stamped structure is known (or can't be: boxes aren't read without the C API).
    var knowsStampedStructure: Bool { boxStructure == nil || PEAtomicLoadUInt32(stampedBoxStructure) != 0 }

    /// Objects of the engine's classes can be told apart without a lock.
    var isUsable: Bool { dataOffset != nil }
    /// Boxes can be told apart and opened without a lock.
    var readsBoxes: Bool { boxStructure != nil }

    /// The class `object` was made with. Only for an object whose `JSObjectGetPrivate` is not nil
    /// (a `JSCallbackObject`), and only when `isUsable`.
    @inline(__always) func jsClass(ofPrivateHolder object: JSObjectRef) -> JSClassRef? {
        (record(of: object) + MemoryLayout<UnsafeRawPointer>.size).load(as: JSClassRef?.self)
    }

    /// The private data of `cell` when it is a handle as the engine made it: the structure handles
    /// are made with and `handleClass` in its record. Nil for anything else, including a handle a
    /// script added properties to and one whose private data is gone: the caller asks the C API.
    @inline(__always) func handlePrivateData(_ cell: JSObjectRef, handleClass: JSClassRef) -> UnsafeMutableRawPointer? {
        guard let handleStructure, UnsafeRawPointer(cell).load(as: UInt32.self) == handleStructure,
              jsClass(ofPrivateHolder: cell) == handleClass else { return nil }
        return record(of: cell).load(as: UnsafeMutableRawPointer?.self)
    }

    /// A `JSCallbackObject`'s record (`JSCallbackObjectData`): its private data, then its class.
    @inline(__always) private func record(of object: JSObjectRef) -> UnsafeRawPointer {
        (UnsafeRawPointer(object) + dataOffset.unsafelyUnwrapped).load(as: UnsafeRawPointer.self)
    }

    /// The value in the handle slot of `cell` when `cell` has the structure boxes are made with
    /// (only when `readsBoxes`); nil for any other cell. The value still has to be checked.
    @inline(__always) func handleSlot(of cell: JSObjectRef) -> JSValueRef? {
        let base = UnsafeRawPointer(cell)
        let structure = base.load(as: UInt32.self)
        guard structure == boxStructure.unsafelyUnwrapped
              || (structure == PEAtomicLoadUInt32(stampedBoxStructure) && structure != 0) else { return nil }
        return (base + handleOffset).load(as: JSValueRef?.self)
    }

}

/// Reads memory that may not be mapped, for the checks at start: copied through a pipe, so an
/// unmapped address is an EFAULT from `write` instead of a crash. One pipe for all the reads.
private final class SafeReader {
    private var fds: [Int32] = [0, 0]

    init?() {
        guard pipe(&fds) == 0 else { return nil }
    }

    deinit {
        close(fds[0])
        close(fds[1])
    }

    /// `words` machine words at `address`, or nil where the memory can't be read.
    func read(_ address: UInt, words: Int) -> [UInt]? {
        guard let source = UnsafeRawPointer(bitPattern: address) else { return nil }
        let size = words * MemoryLayout<UInt>.size
        guard write(fds[1], source, size) == size else { return nil }
        var result = [UInt](repeating: 0, count: words)
        let got = result.withUnsafeMutableBytes { Foundation.read(fds[0], $0.baseAddress, size) }
        return got == size ? result : nil
    }
}
