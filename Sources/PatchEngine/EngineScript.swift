import CPatchEngine
import Foundation

/// The engine's own JavaScript (CPatchEngine's Scripts/, compiled into the library with `#embed`,
/// PERuntimeScript.h): runtime.js, every VM's JS half, evaluated by
/// `Engine.start`; direct.js, runtime.js's direct calls, loaded on first use (DirectCalls.swift);
/// jspatch.js, JSPatch's surface, loaded when a script first uses it (JSPatchSurface.swift).
enum EngineScript: CaseIterable {
    case runtime, directCalls, jspatch

    /// Its source URL in the VM (what errors and stack frames name).
    var fileName: String {
        switch self {
        case .runtime: return "runtime.js"
        case .directCalls: return "direct.js"
        case .jspatch: return "jspatch.js"
        }
    }

    var source: String {
        switch self {
        case .runtime: return String(cString: PERuntimeScriptSource())
        case .directCalls: return String(cString: PEDirectCallsScriptSource())
        case .jspatch: return String(cString: PEJSPatchScriptSource())
        }
    }

    /// The engine's scripts' source URLs: an error raised in them on a script's behalf is placed
    /// in the script.
    static let fileNames = Set(allCases.map(\.fileName))
}
