import Foundation
import PatchEngine
import BenchFixtures

/// A patch script that overrides every method of a generated class: -m<i> returns i from JS
/// instead of PB_MANY_NATIVE. Used by the apply/revert rows (issue 9, target 5: time linear in the
/// method count) and by the apply/revert cycles of the memory rows. Checked, not assumed: after
/// `apply` every method called natively returns its JS value, after `revert` every IMP is the one
/// the class had before the first patch.
final class ManyMethodsPatch: @unchecked Sendable {
    let count: Int
    let className: String
    let scriptName: String
    private(set) var script = ""
    private var cls: UnsafeMutableRawPointer?
    private var object: UnsafeMutableRawPointer?
    private var nativeIMPs: [UnsafeMutableRawPointer?] = []

    init(count: Int, className: String, scriptName: String) {
        self.count = count; self.className = className; self.scriptName = scriptName
    }

    /// The script: `defineClass('<className>', { m0: function () { return 0; }, ... })`.
    static func script(className: String, count: Int) -> String {
        var text = "defineClass('\(className)', {\n"
        for i in 0..<count { text += "  m\(i): function () { return \(i); },\n" }
        return text + "});\n"
    }

    /// Creates the class (once per process), then applies and reverts the patch once, checking both.
    func prepare() throws {
        if cls != nil { return }
        guard let cls = pb_many_methods_class(className, UInt32(count)) else {
            throw BenchError("cannot make \(className) with \(count) methods")
        }
        guard let object = pb_new(className) else { throw BenchError("cannot instantiate \(className)") }
        nativeIMPs = (0..<count).map { pb_many_imp(cls, UInt32($0)) }
        script = Self.script(className: className, count: count)
        self.cls = cls
        self.object = object
        try apply()
        try checkPatched()
        try revert()
        try checkReverted()
    }

    func apply() throws { try PatchEngine.evaluate(script, name: scriptName) }
    func revert() throws { try PatchEngine.revert(scriptName) }

    /// Methods called natively that did not return their JS value (stops at the first few).
    func checkPatched() throws {
        for i in 0..<count {
            var error: UnsafeMutablePointer<CChar>?
            let value = pb_many_call(object, UInt32(i), &error)
            if let error { defer { free(error) }; throw BenchError("-[\(className) m\(i)] raised \(String(cString: error))") }
            if value != Int32(i) {
                throw BenchError("-[\(className) m\(i)] returned \(value) with the patch applied, expected its JS value \(i)")
            }
        }
    }

    /// How many methods' IMP differs from the one the class had before it was first patched.
    func impsNotRestored() -> Int {
        (0..<count).reduce(0) { $0 + (pb_many_imp(cls, UInt32($1)) == nativeIMPs[$1] ? 0 : 1) }
    }

    /// Every IMP is back, and a native call of each runs the original.
    func checkReverted() throws {
        let changed = impsNotRestored()
        if changed > 0 { throw BenchError("\(changed) of \(count) methods of \(className) kept another IMP after the revert") }
        for i in 0..<count {
            var error: UnsafeMutablePointer<CChar>?
            let value = pb_many_call(object, UInt32(i), &error)
            free(error)
            if value != PB_MANY_NATIVE {
                throw BenchError("-[\(className) m\(i)] returned \(value) after the revert, expected the original's \(PB_MANY_NATIVE)")
            }
        }
    }
}
