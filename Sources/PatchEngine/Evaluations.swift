import Foundation
import PatchSupport

/// A script's top level being evaluated (or replayed) on one thread: what `include`,
/// `defineClass` and `resourcePath` at a script's top level go by.
struct Evaluation {
    let name: String
    let baseDirectory: URL?
    /// The scripts a delivered patch may `include()`, by name; nil for a script from a file or a string.
    let bundle: [String: String]?
    let thread: pthread_t

    /// An evaluation on the calling thread.
    init(name: String, baseDirectory: URL?, bundle: [String: String]?) {
        (self.name, self.baseDirectory, self.bundle) = (name, baseDirectory, bundle)
        thread = pthread_self()
    }
}

/// The engine's evaluations in progress, and the lock that serialises them: one object for the
/// process (every VM's `Engine.evaluations`).
///
/// Two locks, two disciplines: `serial` is held across a whole evaluation, JS included (so it is
/// a recursive lock of its own: `include()` evaluates again on the same thread), and is what a
/// secondary VM's replay tries before catching up (`Engine.catchUp`); `stack` guards only the
/// list, never across JS, because native callbacks read it while another thread pushes.
final class Evaluations: @unchecked Sendable {
    /// Serialises `Engine.evaluate` (include() nests on the same thread) and replays.
    private let serial = NSRecursiveLock()
    /// The evaluations in progress, innermost last.
    private let stack = LockedValue<[Evaluation]>([])

    /// Runs `body` as the only evaluation of the process (waiting for the one running).
    func serialised<R>(_ body: () throws -> R) rethrows -> R {
        serial.lock()
        defer { serial.unlock() }
        return try body()
    }

    /// Runs `body` serialised as `serialised` does if no other thread is evaluating; false, without
    /// running it, if one is (it may be waiting for the caller).
    func ifIdle(_ body: () -> Void) -> Bool {
        guard serial.try() else { return false }
        defer { serial.unlock() }
        body()
        return true
    }

    /// The innermost evaluation, if it is the calling thread's.
    func current() -> Evaluation? {
        guard let top = stack.withLock({ $0.last }), pthread_equal(top.thread, pthread_self()) != 0 else { return nil }
        return top
    }

    /// Runs `body` with `evaluation` the innermost.
    func within<R>(_ evaluation: Evaluation, _ body: () throws -> R) rethrows -> R {
        stack.withLock { $0.append(evaluation) }
        defer { stack.withLock { _ = $0.removeLast() } }
        return try body()
    }
}
