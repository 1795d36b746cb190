import ArgumentParser
import Foundation
import PatchEngine

extension PatchCtl {
    /// Prints the script as the engine evaluates it, after the `.name(` → `.__c(__pe.name||"name")(` rewrite.
    struct Preprocess: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a patch script after PatchEngine's preprocessor rewrite.",
            discussion: "The output has the same lines as the input. Use - to read standard input.")

        @Argument(help: "The JavaScript patch file.")
        var script: String

        func run() throws {
            let data: Data
            switch CommandSupport.readBounded(script) {
            case .success(let read): data = read
            case .failure(let failure): fail("cannot read \(script): \(failure.description)")
            }
            guard let source = String(data: data, encoding: .utf8) else {
                fail("\(script) is not UTF-8 text")
            }
            FileHandle.standardOutput.write(Data(Preprocessor.rewrite(source).code.utf8))
        }

        private func fail(_ message: String) -> Never {
            FileHandle.standardError.write(Data("patchctl preprocess: \(message)\n".utf8))
            Foundation.exit(1)
        }
    }
}
