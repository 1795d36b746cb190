import Foundation
import PatchAuthoring
import XCTest

/// The map `patchctl convert` ends a script with: every statement's JS line leads back to its
/// Objective-C line, inside blocks, switch cases, else branches and statement expressions too;
/// a map that no longer fits its script (lines added above it, or tampered with) is not used.
final class ConvertedLineMapTests: XCTestCase {
    static let source = """
        #import <Foundation/Foundation.h>

        @interface LMTarget : NSObject
        - (NSInteger)pick:(NSInteger)kind items:(NSArray *)items;
        @end

        @implementation LMTarget
        - (NSInteger)pick:(NSInteger)kind items:(NSArray *)items {
            NSInteger total = 0;
            switch (kind) {
            case 1:
                total = MIN(kind, 4);
                break;
            default:
                total = ({ NSInteger twice = kind * 2; twice; });
            }
            if (kind > 3) {
                total = 3;
            } else {
                [items enumerateObjectsUsingBlock:^(id item, NSUInteger index, BOOL *stop) {
                    NSLog(@"%@", item);
                }];
            }
            return total;
        }
        @end

        """

    func convert() throws -> ObjCConverter.Result {
        let directory = try FileManager.default.url(for: .itemReplacementDirectory, in: .userDomainMask,
                                                    appropriateFor: FileManager.default.temporaryDirectory, create: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("LMTarget.m")
        try Data(Self.source.utf8).write(to: file)
        return try ObjCConverter.convert(file: file.path, reader: ClangInterfaceReader())
    }

    func testEveryStatementLeadsBackToItsObjectiveCLine() throws {
        let result = try convert()
        XCTAssertEqual(result.errors, [])
        XCTAssertFalse(result.script.contains("\u{1}"), "no mark left in the script")
        let lines = result.script.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        func origin(of text: String) -> Int? {
            guard let index = lines.firstIndex(where: { $0.contains(text) }) else { XCTFail("no line with \(text):\n\(result.script)"); return nil }
            XCTAssertTrue(result.lineMap.origin(ofLine: index + 1)?.file.hasSuffix("/LMTarget.m") ?? false)
            return result.lineMap.origin(ofLine: index + 1)?.line
        }
        XCTAssertEqual(origin(of: "pick_items: function"), 8)
        XCTAssertEqual(origin(of: "var total = 0;"), 9)
        XCTAssertEqual(origin(of: "switch (kind)"), 10)
        XCTAssertEqual(origin(of: "total = ((kind < 4)"), 12, "a statement in a case")
        XCTAssertEqual(origin(of: "total = (function"), 15, "a statement holding a statement expression (its own marks taken out)")
        XCTAssertEqual(origin(of: "total = 3;"), 18)
        XCTAssertEqual(origin(of: "enumerateObjectsUsingBlock"), 20)
        XCTAssertEqual(origin(of: "console.log"), 21, "a statement inside a block")
        XCTAssertEqual(origin(of: "return total;"), 24)
        // Outside the methods: no origin.
        XCTAssertNil(result.lineMap.origin(ofLine: 1))
        XCTAssertNil(result.lineMap.origin(ofLine: lines.count - 1), "the line closing defineClass")

        // What convert writes reads back as the same map.
        let written = result.scriptWithLineMap
        XCTAssertEqual(ConvertedLineMap(readingScript: written), result.lineMap)
        XCTAssertEqual(ConvertedLineMap(readingScript: written + "\n\n"), result.lineMap, "blank lines after it")
        XCTAssertEqual(ConvertedLineMap(readingScript: written.replacingOccurrences(of: "return total;", with: "return total + 1;")),
                       result.lineMap, "an edit within a line keeps the map")
    }

    func testAMapThatNoLongerFitsItsScriptIsNotUsed() throws {
        let result = try convert()
        let written = result.scriptWithLineMap
        XCTAssertNil(ConvertedLineMap(readingScript: result.script), "no map")
        XCTAssertNil(ConvertedLineMap(readingScript: "var added = 1;\n" + written), "a line added above")
        XCTAssertNil(ConvertedLineMap(readingScript: written.replacingOccurrences(of: "    var total = 0;\n", with: "")), "a line removed")
        XCTAssertNil(ConvertedLineMap(readingScript: written + "var after = 1;\n"), "the map is not the last line")
        let comment = result.lineMap.comment
        let prefix = String(comment[..<comment.firstIndex(of: "{")!])
        let lineCount = result.script.filter { $0 == "\n" }.count
        for (body, why) in [
            ("{\"files\":[\"A.m\"],\"lines\":\(lineCount),\"map\":[[5,0,9],[4,0,8]]}", "rows out of order"),
            ("{\"files\":[\"A.m\"],\"lines\":\(lineCount),\"map\":[[4,1,8]]}", "a file index out of range"),
            ("{\"files\":[\"A.m\"],\"lines\":\(lineCount),\"map\":[[4,0,0]]}", "line 0"),
            ("{\"files\":[\"A.m\"],\"lines\":\(lineCount),\"map\":[[4,0]]}", "a short row"),
            ("{\"files\":[\"A.m\"],\"lines\":\(lineCount),\"map\":[[\(lineCount + 5),0,8]]}", "a row past the script"),
            ("{\"files\":[\"A.m\"],\"lines\":\(lineCount)", "not JSON"),
        ] {
            XCTAssertNil(ConvertedLineMap(readingScript: result.script + prefix + body + "\n"), why)
        }
        XCTAssertEqual(ConvertedLineMap(readingScript: result.script + prefix + "{\"files\":[\"A.m\"],\"lines\":\(lineCount),\"map\":[[4,0,8]]}\n")?
                        .origin(ofLine: 5)?.description, "A.m:8:0", "a well-formed map is read")
    }
}
