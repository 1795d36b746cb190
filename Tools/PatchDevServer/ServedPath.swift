#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A request target turned into the real path of a file inside the served folder, or the reason
/// it is refused. Checked twice: by name (no `..`, no `.`, no dotfile, no NUL, no absolute-form
/// target, strict percent-encoding) and then by the real path with every symlink resolved, which
/// must still lie inside the folder's own real path: a name check alone can't see a symlink.
enum ServedPath {
    enum Refusal: Error, Equatable {
        /// Not a path we could read (not origin-form, bad percent-encoding): 400.
        case malformed
        /// A name the server never serves (`..`, `.`, dotfiles, NUL, nothing at all): 404.
        case forbiddenName
        /// Missing, outside the folder once resolved, or not a regular file: 404.
        case notFound
    }

    /// The path part of an origin-form target (`/a/b?query` → `/a/b`), still percent-encoded.
    static func pathPart(of target: String) -> Substring {
        target.prefix { $0 != "?" && $0 != "#" }
    }

    /// The decoded components of `target`; throws for anything the name check refuses.
    static func components(of target: String) throws -> [String] {
        let raw = pathPart(of: target)
        guard raw.hasPrefix("/") else { throw Refusal.malformed }
        guard let decoded = percentDecoded(raw) else { throw Refusal.malformed }
        // Checked after decoding, so `%2e%2e`, `%2F` and `%00` are seen for what they are.
        guard !decoded.contains(0) else { throw Refusal.forbiddenName }
        let parts = decoded.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true)
        guard !parts.isEmpty else { throw Refusal.forbiddenName }
        // `..`, `.` and every dotfile or dot-folder (`.git`, `.env`…) all start with a dot.
        guard !parts.contains(where: { $0.first == UInt8(ascii: ".") }) else { throw Refusal.forbiddenName }
        return try parts.map {
            let name = String(decoding: $0, as: UTF8.self)
            guard name.utf8.elementsEqual($0) else { throw Refusal.malformed }  // not UTF-8
            return name
        }
    }

    /// The real path of the regular file `target` names under `root` (itself a real path).
    /// Blocking (realpath, lstat): call it off the event loop.
    static func resolve(_ target: String, under root: String) throws -> String {
        let parts = try components(of: target)
        let joined = root + "/" + parts.joined(separator: "/")
        guard let real = realPath(joined) else { throw Refusal.notFound }
        let prefix = root.hasSuffix("/") ? root : root + "/"
        guard real.hasPrefix(prefix), real.count > prefix.count else { throw Refusal.notFound }
        // The resolved path must name no dotfile either (a symlink `a.json -> .secret`).
        let inside = real.dropFirst(prefix.count).split(separator: "/")
        guard !inside.contains(where: { $0.hasPrefix(".") }) else { throw Refusal.forbiddenName }
        var info = stat()
        guard lstat(real, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { throw Refusal.notFound }
        return real
    }

    /// `realpath(3)`: the absolute path with every symlink, `.` and `..` resolved, or nil.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Strict percent-decoding to bytes: a `%` must be followed by two hex digits.
    static func percentDecoded(_ text: Substring) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        var bytes = text.utf8.makeIterator()
        while let byte = bytes.next() {
            guard byte == UInt8(ascii: "%") else { out.append(byte); continue }
            guard let high = bytes.next().flatMap(hexValue), let low = bytes.next().flatMap(hexValue) else { return nil }
            out.append(high << 4 | low)
        }
        return out
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
