import Foundation

/// Loads and saves a Codable value as a JSON file, atomically.
struct JSONFileStore<Value: Codable> {
    let url: URL

    /// The stored value, `nil` when there is none, or an error message when the file is unreadable.
    func load() -> Result<Value?, StoreError> {
        guard FileManager.default.fileExists(atPath: url.path) else { return .success(nil) }
        do {
            let data = try Data(contentsOf: url)
            return .success(try JSONDecoder().decode(Value.self, from: data))
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
