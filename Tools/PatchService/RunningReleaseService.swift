import Foundation
import Hummingbird
import Logging

/// A release service listening on a free port in this process, until `stop()`: for tests, the
/// demo, and embedding. Starting waits (at most `timeout`) until the port is bound.
public final class RunningReleaseService: @unchecked Sendable {
    public let port: Int
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/")! }
    private let task: Task<Void, Error>

    public struct StartFailure: Error, CustomStringConvertible {
        public var description: String
    }

    private init(port: Int, task: Task<Void, Error>) {
        self.port = port
        self.task = task
    }

    public static func start(_ service: ReleaseService, timeout: TimeInterval = 30,
                             logger: Logger = Logger(label: "patchserver")) async throws -> RunningReleaseService {
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
        return RunningReleaseService(port: port, task: task)
    }

    /// Stops listening; waits at most `timeout` for the server to wind down.
    public func stop(timeout: TimeInterval = 10) async {
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
