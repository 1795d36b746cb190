import Foundation
import PatchSupport

/// JSPatch's naming rule between JS method names and Objective-C selectors: `__` stands for a
/// literal `_`, every other `_` is a `:`, and a trailing `:` is added when the call has more
/// arguments than the name has colons (`setFrame(r)` → `setFrame:`).
public enum SelectorName {
    private static let cache = LockedValue<[String: String]>([:])

    public static func selector(jsName: String, argumentCount: Int) -> String {
        let key = argumentCount == 0 ? jsName : "\(jsName)#\(argumentCount)"
        if let cached = cache.withLock({ $0[key] }) { return cached }
        var out = ""
        out.reserveCapacity(jsName.utf8.count + 1)
        var colons = 0
        var chars = jsName.makeIterator()
        var pending = chars.next()
        while let c = pending {
            pending = chars.next()
            if c == "_" {
                if pending == "_" { out.append("_"); pending = chars.next() }
                else { out.append(":"); colons += 1 }
            } else {
                out.append(c)
            }
        }
        if argumentCount > colons { out.append(":") }
        cache.withLock { $0[key] = out }
        return out
    }

    /// Number of arguments a selector takes.
    public static func argumentCount(_ selector: String) -> Int { selector.filter { $0 == ":" }.count }
}

/// Cocoa's ownership convention for a method's returned object (and, for init, its receiver).
enum OwnershipFamily {
    case none, alloc, new, copy, mutableCopy, initializer

    init(selector: String) {
        let name = selector.drop { $0 == "_" }
        func starts(_ word: String) -> Bool {
            guard name.hasPrefix(word) else { return false }
            let rest = name.dropFirst(word.count)
            guard let next = rest.first else { return true }
            return !next.isLowercase
        }
        if starts("alloc") { self = .alloc }
        else if starts("new") { self = .new }
        else if starts("copy") { self = .copy }
        else if starts("mutableCopy") { self = .mutableCopy }
        else if starts("init") { self = .initializer }
        else { self = .none }
    }

    /// Whether the caller receives a +1 reference.
    var returnsRetained: Bool { self != .none }
}
