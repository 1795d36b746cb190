import Foundation
import XCTest
@testable import PatchEngine

/// The switch that turns JavaScriptCore's layout shortcuts off (`LayoutShortcuts`): on by default
/// where the layouts match, all off with `PATCHENGINE_NO_LAYOUT_SHORTCUTS=1`, and the same
/// answers either way. (`make test` runs the whole engine suite once with the switch too.)
final class LayoutShortcutsTests: PatchTestCase {
    static let workloadLine = "layout-shortcuts: "

    /// Sends, nil, booleans, numbers at the edges of their types, boxes and a weak box: the values
    /// the shortcuts read and make.
    static let workload = """
    (function () {
      require('NSObject,NSMutableString,NSNumber,NSArray');
      var o = NSObject.alloc().init(), s = NSMutableString.stringWithString('abc'), w = __weak(o);
      return JSON.stringify([o.isEqual(o), o.isEqual(s), o.isEqual(null), s.length(), s.characterAtIndex(2),
        null === false, nil_value(), NSNumber.numberWithLongLong(-9007199254740991), NSNumber.numberWithInt(-2147483648),
        NSNumber.numberWithUnsignedInt(4294967295), NSNumber.numberWithDouble(-0.5), NSNumber.numberWithBool(1),
        w.isEqual(o), s.stringByAppendingString('d').toJS(), s.substringFromIndex(1).toJS(),
        o.hash() === o.hash(), NSArray.arrayWithObject(o).firstObject().isEqual(o)]);
      function nil_value() { var nothing = null; return String(NSArray.array().firstObject()); }
    })()
    """

    func testTheSwitchTurnsEveryShortcutOffAndTheAnswersStayTheSame() throws {
        let shortcuts = Engine.shared.shortcuts
        let result = try XCTUnwrap(try apply(Self.workload) as? String)
        if LayoutShortcuts.turnedOff {
            // A run with the switch (a child of this test, or make test's run of the suite).
            XCTAssertNil(shortcuts.values)
            XCTAssertNil(shortcuts.objects)
            XCTAssertNil(shortcuts.boxes)
            print(Self.workloadLine + result)
            fflush(stdout)
            return
        }
        // This JavaScriptCore's layouts match: every shortcut is on by default.
        XCTAssertNotNil(shortcuts.values)
        XCTAssertNotNil(shortcuts.objects)
        XCTAssertNotNil(shortcuts.boxes)
        XCTAssertNotNil(shortcuts.boxes?.handleStructure, "handles are opened through JSObjectGetPrivate")
        guard ChildTestProcess.isSupported else { throw XCTSkip("re-running the test binary is set up for Linux's XCTest runner only") }
        let child = try ChildTestProcess.run("PatchEngineTests.LayoutShortcutsTests/testTheSwitchTurnsEveryShortcutOffAndTheAnswersStayTheSame",
                                             environment: [LayoutShortcuts.switchVariable: "1"])
        XCTAssertEqual(child.status, 0, child.output.suffix(2000).description)
        XCTAssertEqual(child.line(Self.workloadLine), result, "the C API path answers differently")
    }
}
