import Foundation
import PatchSupport

/// Async work (the updater's) waited for from an ordinary thread, with a deadline: what
/// `PatchClient` and `DevelopmentSession` share. Never call it from Swift concurrency's threads
/// (it blocks one while the work needs them).
enum BlockingWait {
    /// Runs `work` on Swift concurrency's threads and waits for it until `deadline`; nil after
    /// (the task is cancelled).
    static func run<T>(until deadline: Date, _ work: @escaping @Sendable () async -> T) -> T? {
        // Handed from the task to this thread; `T` needn't be Sendable, so the box is declared so.
        let box = UncheckedBox(LockedValue<T?>(nil))
        let done = DispatchSemaphore(value: 0)
        let task = Task.detached {
            let value = await work()
            box.value.withLock { $0 = value }
            done.signal()
        }
        let remaining = max(0, deadline.timeIntervalSinceNow)
        guard done.wait(timeout: .now() + remaining) == .success else {
            task.cancel()
            return nil
        }
        return box.value.withLock { $0 }
    }
}

/// Carries a value whose type is not declared Sendable into a task (here: a locked box).
private struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
