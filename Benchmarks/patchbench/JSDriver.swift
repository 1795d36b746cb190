import Foundation
import PatchEngine
import BenchFixtures

/// JS → Objective-C loops. Each loop runs entirely inside one `evaluate` (the loop is JS, the
/// calls cross the bridge); the script defining them goes through the preprocessor like any
/// patch, so `o.empty()` is the `o.__c("empty")()` a real patch executes.
enum JSDriver {
    /// A loop of the driver: its key in `PBBench` and the value it returns for `n` iterations
    /// (checked after every run, so a loop that silently stopped calling would be noticed).
    enum Loop: String {
        case empty, constant, takeObject, object
        /// The same loop with no call in it.
        case bare
        /// `o.value()` on an object of a class defined in JS, from a plain JS loop; from a method of
        /// that class on `self`; from a method of that class on an object of another JS-defined class.
        case jsDefined, jsDefinedSelf, jsDefinedOther
        /// Array builtins a patch calls (bounded by runtime.js): `a.indexOf(x)`, `a.slice(7)`.
        case builtinIndexOf, builtinSlice

        func expectedResult(_ n: UInt64) -> Double {
            self == .constant ? Double(n) * Double(PB_NATIVE_CONSTANT) : Double(n)
        }
    }

    static let scriptName = "patchbench-driver.js"

    /// The loops, defined once as a global of the engine's context. The target is an unpatched
    /// PBDirect, so the native floor is the very same method.
    static let setUpScript = """
        var PBBench = (function () {
          var target = require('\(Subject.direct.className)').alloc().init();
          defineClass('PBJSDefined : NSObject', {
            value: function () { return 1; },
            sumSelf: function (n) {
              var sum = 0;
              for (var i = 0; i < n; i++) { sum += self.value(); }
              return sum;
            },
            sumOther_count: function (other, n) {
              var sum = 0;
              for (var i = 0; i < n; i++) { sum += other.value(); }
              return sum;
            }
          });
          defineClass('PBJSDefinedOther : NSObject', { value: function () { return 1; } });
          var defined = PBJSDefined.alloc().init(), other = PBJSDefinedOther.alloc().init();
          return {
            jsDefined: function (n) {
              var o = other, sum = 0;
              for (var i = 0; i < n; i++) { sum += o.value(); }
              return sum;
            },
            jsDefinedSelf: function (n) { return defined.sumSelf(n); },
            jsDefinedOther: function (n) { return defined.sumOther_count(other, n); },
            empty: function (n) {
              var o = target;
              for (var i = 0; i < n; i++) { o.empty(); }
              return n;
            },
            constant: function (n) {
              var o = target, sum = 0;
              for (var i = 0; i < n; i++) { sum += o.constant(); }
              return sum;
            },
            takeObject: function (n) {
              var o = target;
              for (var i = 0; i < n; i++) { o.takeObject(o); }
              return n;
            },
            object: function (n) {
              var o = target, last = null;
              for (var i = 0; i < n; i++) { last = o.object(); }
              return last ? n : -1;
            },
            builtinIndexOf: function (n) {
              var a = [0, 1, 2, 3, 4, 5, 6, 7], sum = 0;
              for (var i = 0; i < n; i++) { sum += a.indexOf(i & 7) >= 0 ? 1 : 0; }
              return sum;
            },
            builtinSlice: function (n) {
              var a = [0, 1, 2, 3, 4, 5, 6, 7], sum = 0;
              for (var i = 0; i < n; i++) { sum += a.slice(7).length; }
              return sum;
            },
            bare: function (n) {
              var sum = 0;
              for (var i = 0; i < n; i++) { sum += i; }
              return sum >= 0 ? n : -1;
            }
          };
        })();
        'ready';
        """

    private static let lock = NSLock()
    nonisolated(unsafe) private static var ready = false

    /// Defines the loops once per process.
    static func prepare() throws {
        lock.lock(); defer { lock.unlock() }
        if ready { return }
        let result = try PatchEngine.evaluate(setUpScript, name: scriptName)
        guard result as? String == "ready" else {
            throw BenchError("the JS driver did not load (completion value \(String(describing: result)))")
        }
        // Methods defined in JS are called a while before a loop over them runs hot, as in an app:
        // entered cold, a long loop is compiled by the optimising tiers (concurrently) while its
        // callees are still tiering up, and in about one process in four that code costs ≈ 9 ns a
        // call instead of ≈ 1.5 for good (never seen with JSC_useConcurrentJIT=false; nothing
        // makes JavaScriptCore compile the loop again). Measured so, a row says which tier won.
        let warmUp = [Loop.jsDefined, .jsDefinedSelf, .jsDefinedOther].map { "PBBench.\($0.rawValue)(500);" }.joined()
        for _ in 0..<200 { _ = try PatchEngine.evaluate(warmUp, name: scriptName) }
        ready = true
    }

    /// Runs one loop of `n` iterations and returns the elapsed nanoseconds of the evaluation.
    static func run(_ loop: Loop, _ n: UInt64) throws -> UInt64 {
        let call = "PBBench['\(loop.rawValue)'](\(n));"
        let start = pb_now_ns()
        let result = try PatchEngine.evaluate(call, name: scriptName)
        let elapsed = pb_now_ns() - start
        guard let value = result as? Double, value == loop.expectedResult(n) else {
            throw BenchError("JS loop \(loop.rawValue)(\(n)) returned \(String(describing: result)), expected \(loop.expectedResult(n))")
        }
        return elapsed
    }
}
