import Foundation
import JSPatchFixtures

/// What each assertion site of JSPatchTests.m gave in this process, reported by the native side
/// (`JPFCheck`) or by the Swift half of a test.
final class SiteLog: @unchecked Sendable {
    enum Outcome: Equatable { case passed, failed(String?), skipped(String) }

    static let shared = SiteLog()

    private let lock = NSLock()
    private var results: [(site: String, outcome: Outcome)] = []

    func record(_ site: String, _ outcome: Outcome) {
        lock.lock(); defer { lock.unlock() }
        results.append((site, outcome))
    }

    /// The sites of `test` ("testEngine") recorded so far, in order.
    func sites(of test: String) -> [(site: String, outcome: Outcome)] {
        lock.lock(); defer { lock.unlock() }
        return results.filter { $0.site.hasPrefix(test + ":") }
    }

    var all: [(site: String, outcome: Outcome)] {
        lock.lock(); defer { lock.unlock() }
        return results
    }

    /// The `JPFCheck` the native side reports through; its context is the log.
    static let check: JPFCheck = { context, site, outcome, note in
        let log = Unmanaged<SiteLog>.fromOpaque(context!).takeUnretainedValue()
        let note = note.map { String(cString: $0) }
        switch outcome {
        case JPFPassed: log.record(String(cString: site!), .passed)
        case JPFSkipped: log.record(String(cString: site!), .skipped(note ?? ""))
        default: log.record(String(cString: site!), .failed(note))
        }
    }

    var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
}
