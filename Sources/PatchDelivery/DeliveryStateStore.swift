import Foundation

/// The device state in two copies (`state.json` and `state.backup.json`), so that losing or
/// corrupting one file doesn't lose what protects against rollback and revoked patches. Each save
/// bumps a generation number and writes both copies; loading takes the newer readable copy and
/// says which copy was bad.
struct DeliveryStateStore {
    static let primaryName = "state.json"
    static let backupName = "state.backup.json"

    let primary: JSONFileStore<DeliveryState>
    let backup: JSONFileStore<DeliveryState>

    init(directory: URL) {
        primary = JSONFileStore(url: directory.appendingPathComponent(Self.primaryName))
        backup = JSONFileStore(url: directory.appendingPathComponent(Self.backupName))
    }

    /// What loading found.
    enum Loaded {
        /// Neither copy exists (a new device, or both were deleted).
        case none
        /// Both copies were readable (the newer is used).
        case intact(DeliveryState)
        /// One copy was missing or unreadable; the other one is used.
        case restored(DeliveryState, badFile: String, problem: String)
        /// No copy was readable: the state is lost.
        case lost(problem: String)
    }

    func load() -> Loaded {
        let results = [(Self.primaryName, primary.load()), (Self.backupName, backup.load())]
        var readable: [DeliveryState] = []
        var problems: [(file: String, problem: String)] = []
        for (file, result) in results {
            switch result {
            case .success(let state?): readable.append(state)
            case .success(nil): problems.append((file, "it is missing"))
            case .failure(let error): problems.append((file, error.message))
            }
        }
        switch (readable.count, problems.count) {
        case (2, _):
            return .intact(readable.max { ($0.generation ?? 0) < ($1.generation ?? 0) }!)
        case (1, _):
            return .restored(readable[0], badFile: problems[0].file, problem: problems[0].problem)
        default:
            let failures = problems.filter { $0.problem != "it is missing" }
            if failures.isEmpty { return .none }
            return .lost(problem: failures.map(\.problem).joined(separator: "; "))
        }
    }

    /// Bumps the generation and writes both copies (the backup even if the primary failed).
    func save(_ state: inout DeliveryState) throws {
        state.generation = (state.generation ?? 0) + 1
        var firstError: Error?
        for store in [primary, backup] {
            do { try store.save(state) } catch { firstError = firstError ?? error }
        }
        if let firstError { throw firstError }
    }
}
