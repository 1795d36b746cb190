import Foundation
import PatchRuntime
import PatchSupport

/// Protocols declared from JS with `defineProtocol`. GCC's Objective-C runtime cannot create
/// protocols at run time, so on every platform these live here: defineClass consults them for the
/// types of methods a listed protocol declares. (They are not visible to `conformsToProtocol:`.)
final class ProtocolRegistry: @unchecked Sendable {
    struct Method { let types: String; let isInstance: Bool }
    private let protocols = LockedValue<[String: [String: Method]]>([:])

    func define(_ name: String, methods: [String: Method]) -> [String: Method]? {
        protocols.withLock { protocols in
            let previous = protocols[name]
            protocols[name] = methods
            return previous
        }
    }

    func restore(_ name: String, to previous: [String: Method]?) {
        protocols.withLock { $0[name] = previous }
    }

    func contains(_ name: String) -> Bool {
        protocols.withLock { $0[name] != nil }
    }

    func types(protocol name: String, selector: String, instance: Bool) -> String? {
        protocols.withLock { protocols in
            guard let method = protocols[name]?[selector], method.isInstance == instance else { return nil }
            return method.types
        }
    }
}
