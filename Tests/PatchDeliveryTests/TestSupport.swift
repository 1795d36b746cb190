import Foundation
import PatchDelivery
import XCTest

/// A fresh temporary directory, removed by `tearDown` of the test that made it.
func makeTemporaryDirectory(_ test: XCTestCase) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("patchdelivery-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url
}

/// Records every script the loader hands over, in order, and behaves like the engine:
/// a script containing `throw` fails (and leaves nothing applied), reverting an unknown name fails.
final class RecordingApplier: PatchApplying {
    enum Call: Equatable {
        case apply(String)
        case revert(String)
    }

    private(set) var calls: [Call] = []
    private(set) var live: [String] = []
    private(set) var sources: [String: String] = [:]

    private(set) var bundles: [String: [String: String]] = [:]

    func apply(script: String, name: String, bundle: [String: String]) throws {
        calls.append(.apply(name))
        bundles[name] = bundle
        if script.contains("throw") {
            throw RecordedFailure(message: "\(name): script threw")
        }
        live.append(name)
        sources[name] = script
    }

    func revert(name: String) throws {
        calls.append(.revert(name))
        guard let i = live.firstIndex(of: name) else { throw RecordedFailure(message: "\(name) is not applied") }
        live.remove(at: i)
    }

    var appliedNames: [String] { calls.compactMap { if case .apply(let n) = $0 { return n } else { return nil } } }

    struct RecordedFailure: Error, CustomStringConvertible { var message: String; var description: String { message } }
}

/// A value handed between threads in tests.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
