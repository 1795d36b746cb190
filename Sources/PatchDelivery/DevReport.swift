import Foundation
import PatchEngine
import PatchSupport

/// What a device in a development session tells `patchctl dev` about one version: applied,
/// refused, a syntax or evaluation error (the version was rolled back), a runtime error raised
/// later in a patched method, or a `console.log` line. Small by construction (the message is cut
/// at `maxMessageLength`, the encoded report at `maxEncodedBytes`), so the back-channel fits in
/// one request head of the QA server, which takes no request bodies.
public struct DevReport: Codable, Equatable, Sendable {
    public enum Kind: String, Codable, Sendable {
        case applied
        case refused
        case syntaxError = "syntax-error"
        case evaluationError = "evaluation-error"
        case runtimeError = "runtime-error"
        /// The version's evaluation or a later call into it ran past the execution time limit.
        case timeout
        case log
        /// Reports the device dropped because its queue was full (`message` says how many).
        case dropped
    }

    /// Longest message kept, in characters.
    public static let maxMessageLength = 1000
    /// Largest encoded report (JSON bytes); a longer one has its message cut until it fits.
    public static let maxEncodedBytes = 3000

    public var kind: Kind
    /// The development version the report is about (nil for a log line before any version).
    public var version: Int?
    public var message: String
    /// The script file name (`total.js`), without the engine's `<patchID>@<version>/` prefix.
    public var script: String?
    public var line: Int?
    public var column: Int?

    public init(kind: Kind, version: Int?, message: String, script: String? = nil, line: Int? = nil, column: Int? = nil) {
        self.kind = kind
        self.version = version
        self.message = message.count > Self.maxMessageLength ? String(message.prefix(Self.maxMessageLength)) + "…" : message
        self.script = script.map { $0.count > 200 ? String($0.prefix(200)) : $0 }
        self.line = line
        self.column = column
    }

    /// A report for an engine error; the script name loses its `<patchID>@<version>/` prefix
    /// (whose version is taken when `version` is nil).
    public init(_ error: PatchError, version: Int?) {
        let kind: Kind
        switch error.kind {
        case .syntax: kind = .syntaxError
        case .evaluation: kind = .evaluationError
        case .runtime, .notApplied, .heapGrowth: kind = .runtimeError
        case .timeout: kind = .timeout
        }
        let (script, named) = Self.split(engineName: error.scriptName)
        self.init(kind: kind, version: version ?? named, message: error.message, script: script, line: error.line, column: error.column)
    }

    /// `dev@12/total.js` → (`total.js`, 12); another name is kept whole.
    static func split(engineName: String) -> (script: String, version: Int?) {
        guard let slash = engineName.firstIndex(of: "/"), let at = engineName[..<slash].lastIndex(of: "@") else {
            return (engineName, nil)
        }
        return (String(engineName[engineName.index(after: slash)...]), Int(engineName[engineName.index(after: at)..<slash]))
    }

    /// `script:line:column`, as far as known.
    public var location: String? {
        guard let script else { return nil }
        var text = script
        if let line { text += ":\(line)" }
        if let column { text += ":\(column)" }
        return text
    }

    /// The JSON form, at most `maxEncodedBytes` (the message is cut to fit).
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var report = self
        while true {
            let data = (try? encoder.encode(report)) ?? Data()
            if data.count <= Self.maxEncodedBytes || report.message.isEmpty { return data }
            report.message = String(report.message.prefix(report.message.count / 2)) + "…"
        }
    }

    /// Reads a report; nil for anything larger than `maxEncodedBytes` or not a report.
    public static func decode(_ data: Data) -> DevReport? {
        guard data.count <= maxEncodedBytes, let report = try? JSONDecoder().decode(DevReport.self, from: data) else { return nil }
        // Re-cut: the sender's limits are not trusted.
        return DevReport(kind: report.kind, version: report.version, message: report.message, script: report.script,
                         line: report.line, column: report.column)
    }

    /// One terminal line for `patchctl dev`: `[device] v12 syntax error total.js:3:14: Unexpected …`;
    /// with `origin` (where a converted script's line came from: `Cart.m:42`) after the location,
    /// `… runtime error cart.js:9:20 (Cart.m:42): …`. Device name, script, origin and message are
    /// escaped (no control characters reach the terminal).
    public func formatted(device: String, origin: String? = nil) -> String {
        var text = "[\(LogSafe.escape(device))]"
        if let version { text += " v\(version)" }
        switch kind {
        case .applied: text += " applied"
        case .refused: text += " refused"
        case .syntaxError: text += " syntax error"
        case .evaluationError: text += " evaluation error"
        case .runtimeError: text += " runtime error"
        case .timeout: text += " timeout"
        case .log: text += " log"
        case .dropped: text += " dropped"
        }
        if let location { text += " " + LogSafe.escape(location) }
        if let origin { text += " (" + LogSafe.escape(origin) + ")" }
        if !message.isEmpty { text += ": " + LogSafe.escape(message) }
        return text
    }
}

/// Text that reaches a developer's terminal from a device or a file name, escaped the way
/// PatchDelivery escapes everything from outside a signature (control characters as `\u{…}`,
/// long text cut).
public func devPrintable(_ text: String) -> String { LogSafe.escape(text) }
