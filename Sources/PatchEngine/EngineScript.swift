import Foundation
import PatchRuntime

/// The engine's own JavaScript (Resources/): runtime.js, every VM's JS half, evaluated by
/// `Engine.start`; direct.js, runtime.js's direct calls, loaded on first use (DirectCalls.swift);
/// jspatch.js, JSPatch's surface, loaded when a script first uses it (JSPatchSurface.swift).
/// Each is compiled into the library where the compiler can embed it (PERuntimeScript.h), else
/// read from the package's resources.
enum EngineScript: CaseIterable {
    case runtime, directCalls, jspatch

    /// Its source URL in the VM (what errors and stack frames name), and its resource's name.
    var fileName: String {
        switch self {
        case .runtime: return "runtime.js"
        case .directCalls: return "direct.js"
        case .jspatch: return "jspatch.js"
        }
    }

    var source: String {
        let embedded: UnsafePointer<CChar>?
        switch self {
        case .runtime: embedded = PERuntimeScriptSource()
        case .directCalls: embedded = PEDirectCallsScriptSource()
        case .jspatch: embedded = PEJSPatchScriptSource()
        }
        if let embedded { return String(cString: embedded) }
        let name = String(fileName.dropLast(3))
        guard let url = Bundle.module.url(forResource: name, withExtension: "js"),
              let source = try? String(contentsOf: url, encoding: .utf8) else {
            fatalError("PatchEngine: \(fileName) is missing from the package resources")
        }
        return source
    }

    /// The engine's scripts' source URLs: an error raised in them on a script's behalf is placed
    /// in the script.
    static let fileNames = Set(allCases.map(\.fileName))
}
