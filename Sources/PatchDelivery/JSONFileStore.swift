import Foundation
import PatchUpdater
import PatchSupport

/// Loads and saves a Codable value as a JSON file, atomically, read back with a size limit.
struct JSONFileStore<Value: Codable> {
    let url: URL
    /// State files are small; a larger one is refused as unreadable.
    static var sizeLimit: Int64 { 1 << 20 }

    /// The stored value, `nil` when there is none, or an error message when the file is unreadable.
    func load() -> Result<Value?, StoreError> {
        do {
            guard let data = try BoundedFile.contents(of: url, limit: Self.sizeLimit) else { return .success(nil) }
            return .success(try JSONDecoder().decode(Value.self, from: data))
        } catch let refusal as BoundedFile.Refusal {
            return .failure(StoreError(message: refusal.description))
        } catch {
            return .failure(StoreError(message: "\(url.lastPathComponent) does not parse (\(error))"))
        }
    }

    func save(_ value: Value) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try AtomicFile.write(try encoder.encode(value), to: url)
    }

    struct StoreError: Error {
        var message: String
    }
}
