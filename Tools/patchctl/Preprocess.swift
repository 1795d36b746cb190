import ArgumentParser
import Foundation
import PatchEngine

extension PatchCtl {
    /// Prints the script as the engine evaluates it, after the `.name(` → `.__c("name")(` rewrite.
    struct Preprocess: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a patch script after PatchEngine's preprocessor rewrite.")

        @Argument(help: "The JavaScript patch file.")
        var script: String

        func run() throws {
            throw ValidationError("not implemented yet")
        }
    }
}
