import Foundation

/// Polls `condition` every 10 ms for up to `timeout` seconds; true as soon as it holds.
public func eventually(_ timeout: TimeInterval = 5, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}
