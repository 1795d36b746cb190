import CJavaScriptCore
import Foundation
import PatchRuntime
import PatchSupport

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

/// The record of every applied script's runtime changes and per-script state, and the per-slot
/// stacks that let several scripts patch one method and be reverted in any order. A revert
/// forgets everything the script had: its changes, the files it included (so evaluating it again
/// includes them again) and its source maps.
final class TransactionLog: @unchecked Sendable {
    /// One script's transaction.
    struct Script {
        var changes: [PatchChange] = []
        /// Files (or bundle scripts) the script included → how many changes it had recorded then,
        /// so rolling back a failed evaluation forgets the includes it made.
        var includes: [String: Int] = [:]
        /// Source maps of the script and the files it included, by source URL, for error positions.
        var sourceMaps: [String: Preprocessed] = [:]
        /// Each evaluation that applied it, oldest first: what a secondary VM replays (`Replay`).
        var evaluations: [AppliedEvaluation] = []
        /// Changes with every evaluation that applies it (numbered in the whole log).
        var application = 0
    }

    /// What an evaluation ran, to run it again in a secondary VM.
    struct AppliedEvaluation {
        let code: String
        let baseDirectory: URL?
        let bundle: [String: String]?
    }

    /// One applied script as a secondary VM replays it: its evaluations and the JS methods they
    /// installed, in the order they installed them.
    struct History {
        let script: String
        let application: Int
        let evaluations: [AppliedEvaluation]
        let methods: [(slot: OpaquePointer, token: UInt)]
    }

    private struct State {
        var scripts: [String: Script] = [:]
        var order: [String] = []                 // applied scripts, oldest first
        var slotStacks: [OpaquePointer: [(script: String, token: UInt)]] = [:]
        /// Counts applications and reverts: a secondary VM compares it with the one it caught up to.
        var generation = 0
    }

    private let state = LockedValue(State())

    func record(_ change: PatchChange, script: String) {
        state.withLock { $0.scripts[script, default: Script()].changes.append(change) }
    }

    /// Makes `token` the slot's active patch, on top of earlier scripts' patches.
    func pushPatch(slot: OpaquePointer, token: UInt, script: String) {
        state.withLock { state in
            state.slotStacks[slot, default: []].append((script, token))
            PESlotSetPatch(slot, token)
            state.scripts[script, default: Script()].changes.append(.method(slot: slot, token: token))
        }
    }

    /// Marks `script` applied (it evaluated without error), even if it changed nothing;
    /// `evaluation` is what it ran.
    func markApplied(_ script: String, evaluation: AppliedEvaluation) {
        state.withLock { state in
            if !state.order.contains(script) { state.order.append(script) }
            state.generation += 1
            state.scripts[script, default: Script()].evaluations.append(evaluation)
            state.scripts[script]!.application = state.generation
        }
    }

    /// Changes whenever a script is applied or reverted.
    var generation: Int { state.withLock { $0.generation } }

    /// The applied scripts, oldest first, as a secondary VM replays them.
    func history() -> [History] {
        state.withLock { state in
            state.order.compactMap { name in
                guard let record = state.scripts[name] else { return nil }
                let methods = record.changes.compactMap { change -> (slot: OpaquePointer, token: UInt)? in
                    if case let .method(slot, token) = change { return (slot, token) }
                    return nil
                }
                return History(script: name, application: record.application, evaluations: record.evaluations, methods: methods)
            }
        }
    }

    /// Records that `script` includes `file` (a path, or a bundle script's key); false when it
    /// already did, in this evaluation or an earlier one not reverted since.
    func markIncluded(_ file: String, script: String) -> Bool {
        state.withLock { state in
            var record = state.scripts[script] ?? Script()
            guard record.includes[file] == nil else { return false }
            record.includes[file] = record.changes.count
            state.scripts[script] = record
            return true
        }
    }

    /// Forgets an include that could not be read.
    func unmarkIncluded(_ file: String, script: String) {
        _ = state.withLock { $0.scripts[script]?.includes.removeValue(forKey: file) }
    }

    /// Keeps the source map of `sourceURL` (the script itself or a file it includes).
    func setSourceMap(_ map: Preprocessed, for sourceURL: String, script: String) {
        state.withLock { $0.scripts[script, default: Script()].sourceMaps[sourceURL] = map }
    }

    /// The source map of `sourceURL` within `script`'s transaction.
    func sourceMap(_ sourceURL: String, script: String) -> Preprocessed? {
        state.withLock { $0.scripts[script]?.sourceMaps[sourceURL] }
    }

    /// How many changes `script` has recorded (a mark to roll back to).
    func mark(_ script: String) -> Int {
        state.withLock { $0.scripts[script]?.changes.count ?? 0 }
    }

    var appliedScripts: [String] {
        state.withLock { $0.order }
    }

    func isApplied(_ script: String) -> Bool {
        state.withLock { $0.order.contains(script) }
    }

    /// Removes and returns the changes `script` made after `mark`, newest first, restoring the slot
    /// stacks (the part that needs the lock); the caller undoes the rest outside the lock, since some
    /// undos call into JavaScript. `revert` also forgets the script; a rollback of a failed
    /// evaluation keeps what earlier evaluations under the same name applied.
    func takeChanges(_ script: String, after mark: Int = 0, revert: Bool) -> [PatchChange] {
        state.withLock { state in
            var record = state.scripts[script] ?? Script()
            let start = min(mark, record.changes.count)
            let taken = Array(record.changes[start...].reversed())
            record.changes.removeSubrange(start...)
            record.includes = record.includes.filter { $0.value < start }
            if revert || (record.changes.isEmpty && !state.order.contains(script)) {
                if state.order.contains(script) { state.generation += 1 }
                state.scripts[script] = nil
                state.order.removeAll { $0 == script }
            } else {
                state.scripts[script] = record
            }
            for change in taken {
                guard case let .method(slot, token) = change else { continue }
                var stack = state.slotStacks[slot] ?? []
                if let index = stack.lastIndex(where: { $0.script == script && $0.token == token }) {
                    stack.remove(at: index)
                }
                state.slotStacks[slot] = stack.isEmpty ? nil : stack
                PESlotSetPatch(slot, stack.last?.token ?? 0)
                if stack.isEmpty { PESlotUninstallIfUnused(slot) }
            }
            return taken
        }
    }
}
