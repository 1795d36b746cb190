import Foundation
import XCTest

/// No C-family file of a target includes, imports or embeds a path above its own target folder:
/// a target reaches another only through the public headers of the targets it depends on, so the
/// manifest's dependencies are the whole module graph (the runtime core once `#embed`ded the
/// engine's scripts from `../PatchEngine/Resources`, which no dependency showed).
final class SourceBoundaryTests: XCTestCase {
    private static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func testNoTargetReachesAPathAboveItsOwnFolder() throws {
        let checked = try SourceBoundary.files(inPackage: Self.packageRoot)
        // The package's C-family targets are all there: a check that found no file would pass anything.
        for target in ["Sources/PatchRuntime", "Sources/CPatchEngine", "Sources/PatchEngineObjC", "Tests/PatchFixtures"] {
            XCTAssertTrue(checked.contains { $0.target == target }, "no file checked in \(target)")
        }
        let found = try SourceBoundary.violations(in: checked)
        XCTAssertEqual(found, [], "paths above their target:\n" + found.joined(separator: "\n"))
    }

    /// The check itself: each upward form is caught, with the file, line and path; paths that stay
    /// inside the target, and dependency headers found through the include path, are not.
    func testTheCheckFindsEveryUpwardForm() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("source-boundary-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let target = root.appendingPathComponent("Sources/Core")
        try FileManager.default.createDirectory(at: target.appendingPathComponent("include"), withIntermediateDirectories: true)
        try """
        #include "../Engine/Resources/x.h"
          #  embed "../../script.js"
        #if __has_embed("../Engine/runtime.js")
        #import <sub/../../../up.h>
        #include "/usr/local/include/absolute.h"
        #include "include/Core.h"
        #include "PEStressPoints.h"
        #import <Foundation/Foundation.h>
        #include "include/../Inside.h"
        // #include "../in/a/comment.h" is not a directive
        """.write(to: target.appendingPathComponent("Core.m"), atomically: true, encoding: .utf8)
        try "#include \"../Private.h\"\n#include \"../../Other/include/Other.h\"\n"
            .write(to: target.appendingPathComponent("include/Core.h"), atomically: true, encoding: .utf8)

        let found = try SourceBoundary.violations(in: SourceBoundary.files(inPackage: root))
        XCTAssertEqual(found, [
            "Sources/Core/Core.m:1: ../Engine/Resources/x.h",
            "Sources/Core/Core.m:2: ../../script.js",
            "Sources/Core/Core.m:3: ../Engine/runtime.js",
            "Sources/Core/Core.m:4: sub/../../../up.h",
            "Sources/Core/Core.m:5: /usr/local/include/absolute.h",
            "Sources/Core/include/Core.h:2: ../../Other/include/Other.h",
        ])
    }
}

/// Finds quoted and bracketed paths of `#include`, `#import`, `#include_next`, `#embed`,
/// `__has_include` and `__has_embed` that leave the including file's target folder (resolved from
/// the including file's folder, as a quoted path is first), or are absolute.
private enum SourceBoundary {
    struct File { let target: String; let path: String; let url: URL }

    /// Every SwiftPM target of the package is a folder two levels down (Sources/X, Tests/X,
    /// Benchmarks/X, Samples/X, Tools/X): its C-family files, with the target each belongs to.
    static func files(inPackage root: URL) throws -> [File] {
        let extensions: Set<String> = ["c", "h", "m", "mm", "cc", "cpp", "hpp", "inc"]
        var files: [File] = []
        for top in ["Sources", "Tests", "Benchmarks", "Samples", "Tools"] {
            let folder = root.appendingPathComponent(top)
            guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { continue }
            for case let url as URL in walker where extensions.contains(url.pathExtension) {
                let relative = url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1)
                let parts = relative.split(separator: "/")
                guard parts.count > 2 else { continue }
                files.append(File(target: parts.prefix(2).joined(separator: "/"), path: String(relative), url: url))
            }
        }
        return files.sorted { $0.path < $1.path }
    }

    static func violations(in files: [File]) throws -> [String] {
        let directive = try NSRegularExpression(pattern: #"^\s*#\s*(?:include|include_next|import|embed)\s*[<"]([^>"]+)[>"]"#)
        let probe = try NSRegularExpression(pattern: #"__has_(?:include|include_next|embed)\s*\(\s*[<"]([^>"]+)[>"]"#)
        var found: [String] = []
        for file in files {
            let text = try String(contentsOf: file.url, encoding: .utf8)
            // The including file's folder, below its target's.
            let folder = Array(file.path.split(separator: "/").dropFirst(2).dropLast().map(String.init))
            for (index, line) in text.components(separatedBy: "\n").enumerated() {
                let range = NSRange(line.startIndex..., in: line)
                let matches = directive.matches(in: line, range: range) + probe.matches(in: line, range: range)
                for match in matches {
                    guard let pathRange = Range(match.range(at: 1), in: line) else { continue }
                    let path = String(line[pathRange])
                    if leavesTarget(path, from: folder) { found.append("\(file.path):\(index + 1): \(path)") }
                }
            }
        }
        return found
    }

    /// Whether `path`, taken from `folder` (components below the target folder), ends outside it.
    private static func leavesTarget(_ path: String, from folder: [String]) -> Bool {
        if path.hasPrefix("/") { return true }
        var depth = folder.count
        for component in path.split(separator: "/") {
            switch component {
            case ".": continue
            case "..":
                depth -= 1
                if depth < 0 { return true }
            default: depth += 1
            }
        }
        return false
    }
}
