import ArgumentParser
import Foundation
import PatchAuthoring
import PatchEngine

extension PatchCtl {
    /// Checks patch scripts against the app's interface (`patchctl interface`).
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check patch scripts against the app's Objective-C interface.",
            discussion: """
                Reports, as FILE:LINE:COLUMN: error|warning: MESSAGE (or a JSON array with --json): syntax \
                errors; defineClass of a class the interface doesn't know without a superclass; an override of \
                a selector the class doesn't have, with its likely intended spelling; calls whose name maps to \
                no known selector or whose argument count doesn't match the selector's colons; ORIGfoo where \
                foo isn't overridden; require of unknown classes; methods the engine refuses (memory \
                management). Exit status 1 when there are errors (or warnings, with --warnings-as-errors).
                """)

        @Argument(help: ArgumentHelp("Scripts to check.", valueName: "SCRIPT"))
        var scripts: [String]

        @Option(name: .long, help: ArgumentHelp("The app's interface, from `patchctl interface`.", valueName: "IFACE.json"))
        var interface: String

        @Option(name: .customLong("implementation"), parsing: .singleValue,
                help: ArgumentHelp("An implementation file whose class extensions and private declarations the scripts may call (repeatable; parsed with -I/-D).", valueName: "FILE.m"))
        var implementations: [String] = []

        @Option(name: .customShort("I", allowingJoined: true), parsing: .singleValue, help: ArgumentHelp("Include directory for --implementation (repeatable).", valueName: "DIR"))
        var includePaths: [String] = []

        @Option(name: .customShort("D", allowingJoined: true), parsing: .singleValue, help: ArgumentHelp("Preprocessor definition for --implementation (repeatable).", valueName: "NAME[=VALUE]"))
        var definitions: [String] = []

        @Flag(name: .long, help: "Print the findings as JSON (an array of {file, severity, line, column, message}).")
        var json = false

        @Flag(name: .customLong("warnings-as-errors"), help: "Exit with status 1 when there are warnings.")
        var warningsAsErrors = false

        func validate() throws {
            guard !scripts.isEmpty else { throw ValidationError("give at least one SCRIPT") }
        }

        /// One script's findings, syntax errors included.
        struct Finding: Encodable {
            var file: String
            var severity: PatchChecker.Severity
            var line: Int
            var column: Int
            var message: String
        }

        func run() throws {
            var appInterface = try Self.loadInterface(interface)
            if !implementations.isEmpty {
                let reader = ClangInterfaceReader(includePaths: includePaths, extraFlags: definitions.map { "-D" + $0 })
                do { appInterface.merge(try reader.read(implementations: implementations)) } catch let failure as ClangInterfaceReader.Failure {
                    throw CommandFailure(failure.description)
                }
            }
            let checker = PatchChecker(interface: appInterface)
            var findings: [Finding] = []
            for path in scripts {
                let source = try CommandSupport.readText(path, what: "script")
                findings += Self.check(source, file: path, with: checker)
            }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                FileHandle.standardOutput.write(try encoder.encode(findings))
                FileHandle.standardOutput.write(Data("\n".utf8))
            } else {
                for f in findings { CommandSupport.printError("\(f.file):\(f.line):\(f.column): \(f.severity.rawValue): \(f.message)") }
            }
            let errors = findings.filter { $0.severity == .error }.count, warnings = findings.count - errors
            if !json {
                print("\(scripts.count) script\(scripts.count == 1 ? "" : "s") checked: \(errors) errors, \(warnings) warnings")
            }
            if errors > 0 || (warningsAsErrors && warnings > 0) { throw ExitCode.failure }
        }

        /// Syntax first (JavaScriptCore, through the engine); the interface checks when it parses.
        static func check(_ source: String, file: String, with checker: PatchChecker) -> [Finding] {
            do {
                try PatchEngine.checkSyntax(source, name: file)
            } catch let error as PatchError {
                return [Finding(file: file, severity: .error, line: error.line ?? 1, column: error.column ?? 1, message: error.message)]
            } catch {
                return [Finding(file: file, severity: .error, line: 1, column: 1, message: "\(error)")]
            }
            return checker.check(source).map {
                Finding(file: file, severity: $0.severity, line: $0.line, column: $0.column, message: $0.message)
            }
        }

        static func loadInterface(_ path: String) throws -> ObjCInterface {
            do { return try ObjCInterface(json: try CommandSupport.read(path, what: "interface")) } catch let failure as CommandFailure {
                throw failure
            } catch {
                throw CommandFailure("\(path) is not an interface from `patchctl interface`: \(error)")
            }
        }
    }
}
