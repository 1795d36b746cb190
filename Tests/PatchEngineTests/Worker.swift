import Foundation

/// A call on a new thread (its CPU clock starts at zero): its result, the thread's CPU time, and
/// when it returned (monotonic wall time), for tests that hold threads at PFGate's gates.
final class Worker: @unchecked Sendable {
    let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var finished = false
    private(set) var result: Int32 = 0
    private(set) var cpu = 0.0
    private(set) var finishedAt = DispatchTime.distantFuture

    init(_ call: @escaping @Sendable () -> Int32) {
        let thread = Thread { [self] in
            let value = call()
            let returned = DispatchTime.now()
            var now = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
            lock.lock()
            result = value
            cpu = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
            finishedAt = returned
            finished = true
            lock.unlock()
            done.signal()
        }
        thread.start()
    }

    var isDone: Bool { lock.lock(); defer { lock.unlock() }; return finished }
}
