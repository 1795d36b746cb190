import ArgumentParser
import Foundation
import PatchEngine

extension PatchCtl {
    /// Prints the script as the engine evaluates it, after the `.name(` → `.__c("name")(` rewrite.
    struct Preprocess: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a patch script after PatchEngine's preprocessor rewrite.",
            discussion: "The output has the same lines as the input. Use - to read standard input.")

        @Argument(help: "The JavaScript patch file.")
        var script: String

        func run() throws {
            let data = script == "-" ? FileHandle.standardInput.readDataToEndOfFile() : readFile(script)
            guard let source = String(data: data, encoding: .utf8) else {
                fail("\(script) is not UTF-8 text")
            }
            FileHandle.standardOutput.write(Data(Preprocessor.rewrite(source).code.utf8))
        }

        /// Reads with POSIX calls so the message names the real cause ("No such file or directory").
        private func readFile(_ path: String) -> Data {
            let fd = open(path, O_RDONLY)
            guard fd >= 0 else { fail("cannot read \(path): \(String(cString: strerror(errno)))") }
            defer { close(fd) }
            var info = stat()
            if fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
                fail("cannot read \(path): \(String(cString: strerror(EISDIR)))")
            }
            var data = Data()
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count == 0 { return data }
                if count < 0 {
                    if errno == EINTR { continue }
                    fail("cannot read \(path): \(String(cString: strerror(errno)))")
                }
                data.append(contentsOf: buffer[0..<count])
            }
        }

        private func fail(_ message: String) -> Never {
            FileHandle.standardError.write(Data("patchctl preprocess: \(message)\n".utf8))
            Foundation.exit(1)
        }
    }
}
