import Foundation

/// Async work (the updater's) waited for from an ordinary thread, with a deadline: what
/// `PatchClient` and `DevelopmentSession` share. Never call it from Swift concurrency's threads
/// (it blocks one while the work needs them).
enum BlockingWait {
    /// Runs `work` on Swift concurrency's threads and waits for it until `deadline`; nil after
    /// (the task is cancelled).
    static func run<T>(until deadline: Date, _ work: @escaping @Sendable () async -> T) -> T? {
        let box = WaitBox<T>()
        let done = DispatchSemaphore(value: 0)
        let task = Task.detached {
            box.set(await work())
            done.signal()
        }
        let remaining = max(0, deadline.timeIntervalSinceNow)
        guard done.wait(timeout: .now() + remaining) == .success else {
            task.cancel()
            return nil
        }
        return box.get()
    }
}

/// A value handed from a task to the thread waiting for it.
private final class WaitBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: T?
    func set(_ v: T) { lock.lock(); value = v; lock.unlock() }
    func get() -> T? { lock.lock(); defer { lock.unlock() }; return value }
}
