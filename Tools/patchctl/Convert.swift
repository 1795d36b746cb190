import ArgumentParser
import Foundation
import PatchAuthoring
import PatchUpdater

extension PatchCtl {
    /// Converts Objective-C method implementations into a patch script.
    struct Convert: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Convert Objective-C methods (a .m file, parsed by clang) into a patch script.",
            discussion: """
                Parses FILE with the toolchain's clang ($CLANG chooses another) and prints defineClass(...) with \
                the methods given by --method (default: every method of every @implementation in FILE). What \
                can't be converted is reported as FILE:LINE:COLUMN: error: REASON, and the script throws at that \
                place; the exit status is then 1 unless --allow-partial. Warnings name what the converted patch \
                needs (an app C function in PatchEngine.allowedCFunctions). The script ends with a comment mapping its \
                lines to FILE's (`patchctl dev` shows a converted method's runtime error at its Objective-C line).
                """)

        @Argument(help: ArgumentHelp("The Objective-C file.", valueName: "FILE.m"))
        var file: String

        @Option(name: .customLong("method"), parsing: .unconditionalSingleValue, help: ArgumentHelp("A method to convert, as '-[Class selector:]' or '+[Class selector]' (repeatable).", valueName: "METHOD"))
        var methods: [String] = []

        @Option(name: .customShort("I", allowingJoined: true), parsing: .singleValue, help: ArgumentHelp("Include directory (repeatable).", valueName: "DIR"))
        var includePaths: [String] = []

        @Option(name: .customShort("D", allowingJoined: true), parsing: .singleValue, help: ArgumentHelp("Preprocessor definition (repeatable).", valueName: "NAME[=VALUE]"))
        var definitions: [String] = []

        @Flag(name: .customLong("allow-partial"), help: "Exit with status 0 even when some code could not be converted.")
        var allowPartial = false

        @Option(name: .shortAndLong, help: ArgumentHelp("File to write (default: standard output).", valueName: "FILE"))
        var out: String?

        func run() throws {
            var wanted: [ObjCConverter.MethodName]?
            if !methods.isEmpty {
                wanted = try methods.map { text in
                    guard let name = ObjCConverter.MethodName(parsing: text) else {
                        throw ValidationError("--method \(text): write it as '-[Class selector:]' or '+[Class selector]'")
                    }
                    return name
                }
            }
            let reader = ClangInterfaceReader(includePaths: includePaths, extraFlags: definitions.map { "-D" + $0 })
            let result: ObjCConverter.Result
            do { result = try ObjCConverter.convert(file: file, reader: reader, methods: wanted) } catch let failure as ClangInterfaceReader.Failure {
                throw CommandFailure(failure.description)
            }
            for issue in result.issues { CommandSupport.printError(issue.description) }
            if let out {
                do { try AtomicFile.write(Data(result.scriptWithLineMap.utf8), to: URL(fileURLWithPath: out)) } catch {
                    throw CommandFailure("cannot write \(out): \(error)")
                }
            } else {
                FileHandle.standardOutput.write(Data(result.scriptWithLineMap.utf8))
            }
            let errors = result.errors.count
            if errors > 0 {
                let summary = "\(errors) place\(errors == 1 ? "" : "s") not converted (marked in the script: it throws there)"
                if allowPartial { CommandSupport.printError(summary) } else { throw CommandFailure(summary) }
            }
        }
    }
}
