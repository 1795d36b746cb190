import Foundation

/// A value that can only be read or changed with its lock held: the lock and the state it guards
/// are one object, so no code path can touch the state without the lock or forget to unlock.
///
/// The lock is not recursive: `body` must not call back into the same `LockedValue`, and must not
/// run code that may wait for another thread that needs it (JavaScript, a message to a foreign
/// object).
public final class LockedValue<Value> {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    @inline(__always)
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}

/// Shared across threads only when what it guards may be.
extension LockedValue: @unchecked Sendable where Value: Sendable {}
