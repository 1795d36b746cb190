import Foundation

/// A point in time (monotonic clock) an operation must end by, and how it was set, for messages.
struct Deadline {
    let end: DispatchTime
    let seconds: TimeInterval

    init(seconds: TimeInterval) {
        self.seconds = seconds
        end = .now() + seconds
    }

    var remaining: TimeInterval {
        let now = DispatchTime.now()
        return now >= end ? 0 : TimeInterval(end.uptimeNanoseconds - now.uptimeNanoseconds) / 1e9
    }

    var hasPassed: Bool { DispatchTime.now() >= end }

    var description: String { "\(seconds.formatted()) s deadline" }
}

private extension TimeInterval {
    /// "1" for 1.0, "0.5" for 0.5.
    func formatted() -> String {
        self == rounded() ? String(Int(self)) : String(self)
    }
}
