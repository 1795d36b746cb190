import ArgumentParser
import Foundation
import PatchAuthoring
import PatchEngine

extension PatchCtl {
    /// Checks scripts' syntax with JavaScriptCore and flags names that look misspelled.
    struct Lint: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check patch scripts: syntax, and misspelled class or selector names.",
            discussion: """
                Syntax is checked by JavaScriptCore through PatchEngine, without running the script; errors are \
                printed as FILE:LINE:COLUMN: error: MESSAGE. The scripts given together are one patch (as \
                `patchctl dev` publishes a folder's scripts): include('x.js') of a name that is not among their file names is an \
                error, since a delivered patch can include only its own scripts. With --classes, class names used in \
                require('A, B') and defineClass('X : Y') and selectors defined or called (addItem_count for \
                addItem:count:) that are not in the list but close to a name in it are reported as warnings. \
                The names file has one name per line ('#' comments): lines starting with '-' or '+', containing \
                ':', or starting with a lowercase letter are selectors; the others are classes. \
                Exit status 1 on any error (or any warning with --warnings-as-errors), 0 otherwise.
                """)

        @Argument(help: ArgumentHelp("Scripts to check: the scripts of one patch.", valueName: "SCRIPT"))
        var scripts: [String]

        @Option(name: .long, help: ArgumentHelp("Known class names and selectors, one per line.", valueName: "FILE"))
        var classes: String?

        @Flag(name: .customLong("warnings-as-errors"), help: "Exit with status 1 when there are warnings.")
        var warningsAsErrors = false

        func validate() throws {
            guard !scripts.isEmpty else { throw ValidationError("give at least one SCRIPT") }
        }

        func run() throws {
            let linter = try classes.map { ScriptLinter(namesFile: try CommandSupport.readText($0, what: "class list")) }
            var errors = 0, warnings = 0
            let names = scripts.map { URL(fileURLWithPath: $0).lastPathComponent }
            for path in scripts {
                let source = try CommandSupport.readText(path, what: "script")
                do {
                    try PatchEngine.checkSyntax(source, name: path)
                } catch let error as PatchError {
                    errors += 1
                    CommandSupport.printError("\(path):\(error.line ?? 1):\(error.column ?? 1): error: \(error.message)")
                    continue
                }
                for e in ScriptLinter.includeErrors(in: source, patchScripts: names) {
                    errors += 1
                    CommandSupport.printError("\(path):\(e.line):\(e.column): error: \(e.message)")
                }
                for w in linter?.warnings(in: source) ?? [] {
                    warnings += 1
                    CommandSupport.printError("\(path):\(w.line):\(w.column): warning: \(w.message)")
                }
            }
            if errors > 0 || (warningsAsErrors && warnings > 0) {
                throw ExitCode.failure
            }
            print("\(scripts.count) script\(scripts.count == 1 ? "" : "s") checked: \(errors) errors, \(warnings) warnings")
        }
    }
}
