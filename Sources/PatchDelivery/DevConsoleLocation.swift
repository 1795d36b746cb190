import Foundation
import PatchEngine
import PatchSupport

/// Where a `console.log` line was written, for the development session's reports.
/// `PatchEngine.logHandler` receives only the text, so while a session runs, `console.log` is
/// wrapped (once per process) to put the caller's stack frame in front of the text between two
/// U+0001 marks; the session's log handler takes it off again before anyone else sees the line.
/// The wrapper adds the mark only while a session has switched it on, so the app's own handler
/// never sees one after the session stops.
enum DevConsoleLocation {
    static let mark: Character = "\u{1}"

    private static let wrapper = """
        (function (global) {
          if (global.console.log.__patchDevLocating !== undefined) return;
          var plain = global.console.log;
          var located = function () {
            var args = Array.prototype.slice.call(arguments);
            if (global.__patchDevLocate === true) {
              var frame = '';
              try { throw new Error('where'); } catch (e) { frame = String(e.stack || '').split('\\n')[1] || ''; }
              args.unshift('\\u0001' + frame + '\\u0001');
            }
            return plain.apply(global.console, args);
          };
          located.__patchDevLocating = true;
          global.console.log = located;
        })(this);
        """

    /// Whether the wrapper is in, and how many switches were made (each script gets its own name).
    private struct State {
        var installed = false
        var switches = 0
    }
    /// Held across the evaluations too: two sessions switching at once must not both install the
    /// wrapper. The engine never calls back into this while evaluating these two scripts.
    private static let state = LockedValue(State())

    /// Installs the wrapper (the first time) and switches the marks on or off. Call on the queue
    /// that owns the engine.
    static func set(on: Bool) {
        state.withLock { state in
            if on && !state.installed {
                // (A successful evaluate returns nil here: the wrapper's completion value is undefined.)
                do {
                    _ = try PatchEngine.evaluate(wrapper, name: "patchdelivery-dev/console-location.js")
                    state.installed = true
                } catch {
                    state.installed = false
                }
            }
            guard state.installed else { return }
            state.switches += 1
            _ = try? PatchEngine.evaluate("this.__patchDevLocate = \(on ? "true" : "false");",
                                          name: "patchdelivery-dev/console-location-\(state.switches).js")
        }
    }

    /// Splits a marked line into its caller's location (`dev@12/a.js:3:5`, as the engine names the
    /// script) and the text; an unmarked line comes back whole.
    static func split(_ line: String) -> (script: String?, line: Int?, column: Int?, text: String) {
        guard line.first == mark, let end = line.dropFirst().firstIndex(of: mark) else { return (nil, nil, nil, line) }
        let frame = line[line.index(after: line.startIndex)..<end]
        var text = line[line.index(after: end)...]
        if text.first == " " { text = text.dropFirst() }
        // "functionName@name:line:column" ("@name…" when anonymous); the script name may hold '@'.
        guard let at = frame.firstIndex(of: "@") else { return (nil, nil, nil, String(text)) }
        let parts = frame[frame.index(after: at)...].split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count >= 3, let row = Int(parts[parts.count - 2]), let column = Int(parts[parts.count - 1]) else {
            return (nil, nil, nil, String(text))
        }
        return (parts.dropLast(2).joined(separator: ":"), row, column, String(text))
    }
}
