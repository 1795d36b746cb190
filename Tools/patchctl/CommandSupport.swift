import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failure a subcommand reports: printed to standard error as `error: <message>`, exit status 1.
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

enum CommandSupport {
    /// Reads a file, or fails with a message naming it.
    static func read(_ path: String, what: String) throws -> Data {
        do { return try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw CommandFailure("cannot read \(what) \(path): \(reason(error))")
        }
    }

    static func readText(_ path: String, what: String) throws -> String {
        guard let text = String(data: try read(path, what: what), encoding: .utf8) else {
            throw CommandFailure("\(what) \(path) is not UTF-8 text")
        }
        return text
    }

    /// The most useful words of a Foundation error.
    static func reason(_ error: Error) -> String {
        let ns = error as NSError
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if ns.domain == NSCocoaErrorDomain, ns.code == NSFileReadNoSuchFileError { return "no such file" }
        return ns.localizedDescription
    }

    /// Writes to standard error (diagnostics and warnings never go to standard output).
    static func printError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
