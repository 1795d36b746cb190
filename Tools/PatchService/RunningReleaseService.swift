import Foundation
import Hummingbird
import Logging

/// A release service listening on a free port in this process, until `stop()`: for tests, the
/// demo, and embedding. It re-signs the hosted repository's timestamp in the background
/// (`ReleaseService.keepTimestampFresh`). Starting waits (at most `timeout`) until the port is bound.
public final class RunningReleaseService: @unchecked Sendable {
    public let port: Int
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/")! }
    private let task: Task<Void, Error>
    private let renewal: Task<Void, Never>

    public struct StartFailure: Error, CustomStringConvertible {
        public var description: String
    }

    private init(port: Int, task: Task<Void, Error>, renewal: Task<Void, Never>) {
        self.port = port
        self.task = task
        self.renewal = renewal
    }

    public static func start(_ service: ReleaseService, timeout: TimeInterval = 30,
                             logger: Logger = Logger(label: "patchserver")) async throws -> RunningReleaseService {
        try await service.prepareRepository()
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = service.application(host: "127.0.0.1", port: 0, logger: logger) { port in
            continuation.yield(port)
            continuation.finish()
        }
        let task = Task { try await app.run() }
        let port: Int? = try await withThrowingTaskGroup(of: Int?.self) { group in
            group.addTask { for await port in ports { return port }; return nil }
            group.addTask { try await Task.sleep(nanoseconds: UInt64(timeout * 1e9)); return nil }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let port else {
            task.cancel()
            throw StartFailure(description: "the service did not start listening within \(Int(timeout)) s")
        }
        let renewal = Task { await service.keepTimestampFresh(logger: logger) }
        return RunningReleaseService(port: port, task: task, renewal: renewal)
    }

    /// Stops listening; waits at most `timeout` for the server to wind down.
    public func stop(timeout: TimeInterval = 10) async {
        renewal.cancel()
        task.cancel()
        let task = self.task
        await withTaskGroup(of: Void.self) { group in
            group.addTask { _ = await task.result }
            group.addTask { try? await Task.sleep(nanoseconds: UInt64(timeout * 1e9)) }
            await group.next()
            group.cancelAll()
        }
    }
}
