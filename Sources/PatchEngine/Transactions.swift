import CJavaScriptCore
import Foundation
import PatchRuntime

/// One runtime change a script made, and enough to undo it.
enum PatchChange {
    /// A JS implementation pushed onto a slot's stack (token of its JSMethod).
    case method(slot: OpaquePointer, token: UInt)
    /// A `_`-prefixed JS-only method (protected previous function, if it replaced one).
    case jsOnlyMethod(className: String, name: String, previous: JSObjectRef?)
    /// A class created by defineClass. Neither runtime can unregister a class that may have
    /// instances, so on revert it stays registered with every JS method removed.
    case classCreated(name: String)
    /// A protocol attached to a class. Neither runtime can detach a protocol; recorded so the
    /// revert reports it.
    case protocolAttached(className: String, protocol: String)
    case structDefined(name: String, previous: StructRegistry.Definition)
    case protocolDefined(name: String, previous: [String: ProtocolRegistry.Method]?)
    /// A change owned by another component (routes, hooks): its undo action.
    case custom(description: String, undo: () -> Void)
}

/// The record of every applied script's runtime changes, and the per-slot stacks that let
/// several scripts patch one method and be reverted in any order.
final class TransactionLog: @unchecked Sendable {
    private let lock = NSRecursiveLock()
    private var changes: [String: [PatchChange]] = [:]
    private var order: [String] = []                 // applied scripts, oldest first
    private var slotStacks: [OpaquePointer: [(script: String, token: UInt)]] = [:]

    func record(_ change: PatchChange, script: String) {
        lock.lock(); defer { lock.unlock() }
        changes[script, default: []].append(change)
    }

    /// Makes `token` the slot's active patch, on top of earlier scripts' patches.
    func pushPatch(slot: OpaquePointer, token: UInt, script: String) {
        lock.lock(); defer { lock.unlock() }
        slotStacks[slot, default: []].append((script, token))
        PESlotSetPatch(slot, token)
        record(.method(slot: slot, token: token), script: script)
    }

    /// Marks `script` applied (it evaluated without error), even if it changed nothing.
    func markApplied(_ script: String) {
        lock.lock(); defer { lock.unlock() }
        if !order.contains(script) { order.append(script) }
        if changes[script] == nil { changes[script] = [] }
    }

    /// How many changes `script` has recorded (a mark to roll back to).
    func mark(_ script: String) -> Int {
        lock.lock(); defer { lock.unlock() }
        return changes[script]?.count ?? 0
    }

    var appliedScripts: [String] {
        lock.lock(); defer { lock.unlock() }
        return order
    }

    func isApplied(_ script: String) -> Bool {
        lock.lock(); defer { lock.unlock() }
        return order.contains(script)
    }

    /// Removes and returns the changes `script` made after `mark`, newest first, restoring the slot
    /// stacks (the part that needs the lock); the caller undoes the rest outside the lock, since some
    /// undos call into JavaScript. `revert` also forgets the script; a rollback of a failed
    /// evaluation keeps what earlier evaluations under the same name applied.
    func takeChanges(_ script: String, after mark: Int = 0, revert: Bool) -> [PatchChange] {
        lock.lock(); defer { lock.unlock() }
        var list = changes[script] ?? []
        let taken = Array(list[min(mark, list.count)...].reversed())
        list.removeSubrange(min(mark, list.count)...)
        if revert || (list.isEmpty && !order.contains(script)) {
            changes[script] = nil
            order.removeAll { $0 == script }
        } else {
            changes[script] = list
        }
        for change in taken {
            guard case let .method(slot, token) = change else { continue }
            var stack = slotStacks[slot] ?? []
            if let index = stack.lastIndex(where: { $0.script == script && $0.token == token }) {
                stack.remove(at: index)
            }
            slotStacks[slot] = stack.isEmpty ? nil : stack
            PESlotSetPatch(slot, stack.last?.token ?? 0)
            if stack.isEmpty { PESlotUninstallIfUnused(slot) }
        }
        return taken
    }
}
