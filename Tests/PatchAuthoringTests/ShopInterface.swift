import Foundation
import PatchAuthoring

/// The sample shop's headers (Samples/ShopKit), read once by clang for every test here.
enum ShopInterface {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let shopKit = repository.appendingPathComponent("Samples/ShopKit")

    static var headers: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: shopKit.path)) ?? []
        return names.filter { $0.hasSuffix(".h") }.sorted().map { shopKit.appendingPathComponent($0).path }
    }

    static let result: Result<ObjCInterface, Error> = Result {
        try ClangInterfaceReader(includePaths: [shopKit.path, shopKit.appendingPathComponent("include").path]).read(headers: headers)
    }

    static func get() throws -> ObjCInterface { try result.get() }
}
