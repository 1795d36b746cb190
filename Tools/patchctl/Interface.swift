import ArgumentParser
import Foundation
import PatchAuthoring
import PatchUpdater

extension PatchCtl {
    /// Writes the app's Objective-C interface, read from its headers by clang, for `patchctl check`.
    struct Interface: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the app's Objective-C interface (from its headers) as JSON for `patchctl check`.",
            discussion: """
                Parses the headers with the toolchain's clang (-Xclang -ast-dump=json -fsyntax-only; $CLANG \
                chooses another) and writes classes, superclasses, adopted protocols, methods with their types \
                and properties. Classes of headers the app's headers import (Foundation's) are included too, \
                marked isAppClass false, so calls to them are checked as well.
                """)

        @Argument(help: ArgumentHelp("The app's headers.", valueName: "HEADER"))
        var headers: [String]

        @Option(name: .customShort("I", allowingJoined: true), parsing: .singleValue, help: ArgumentHelp("Include directory (repeatable).", valueName: "DIR"))
        var includePaths: [String] = []

        @Option(name: .customShort("D", allowingJoined: true), parsing: .singleValue, help: ArgumentHelp("Preprocessor definition (repeatable).", valueName: "NAME[=VALUE]"))
        var definitions: [String] = []

        @Option(name: .shortAndLong, help: ArgumentHelp("File to write (default: standard output).", valueName: "FILE"))
        var out: String?

        func validate() throws {
            guard !headers.isEmpty else { throw ValidationError("give at least one HEADER") }
        }

        func run() throws {
            let reader = ClangInterfaceReader(includePaths: includePaths, extraFlags: definitions.map { "-D" + $0 })
            let interface: ObjCInterface
            do { interface = try reader.read(headers: headers) } catch let failure as ClangInterfaceReader.Failure {
                throw CommandFailure(failure.description)
            }
            let data = try interface.jsonData()
            if let out {
                do { try AtomicFile.write(data, to: URL(fileURLWithPath: out)) } catch {
                    throw CommandFailure("cannot write \(out): \(error)")
                }
                let app = interface.classes.values.filter(\.isAppClass).count
                print("\(app) app classes (\(interface.classes.count) in all), \(interface.protocols.count) protocols -> \(out)")
            } else {
                FileHandle.standardOutput.write(data)
                FileHandle.standardOutput.write(Data("\n".utf8))
            }
        }
    }
}
