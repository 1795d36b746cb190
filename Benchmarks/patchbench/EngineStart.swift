import Foundation
import CJavaScriptCore
import PatchEngine
import BenchFixtures

/// Engine start-up, which happens once per process and so is measured in fresh processes:
/// the parent spawns `patchbench --start-only <mode>`, the child times the start in-process and
/// prints the nanoseconds on stdout.
enum EngineStart {
    enum Mode: String, CaseIterable {
        /// The engine's first evaluation of an empty script: context, native bindings, runtime.js.
        case engine
        /// The floor: a bare JSGlobalContext evaluating an empty script.
        case bare
        /// A secondary VM (`PatchEngine.prepareVMs(1)`), the runtime and a 20-method patch
        /// replayed into it, after the engine started and applied it.
        case secondary
        /// Its floor: a second bare VM (context group, global context, empty script) in a
        /// process where JavaScriptCore already runs one.
        case bareSecond = "bare-second"

        var summary: String {
            switch self {
            case .engine: return "PatchEngine start: context, bindings, runtime.js (fresh process)"
            case .bare: return "bare JSGlobalContext + empty script (fresh process)"
            case .secondary: return "a secondary VM: context, bindings, runtime.js, a 20-method patch replayed (fresh process)"
            case .bareSecond: return "a second bare context group + global context + empty script (fresh process)"
            }
        }
    }

    /// The patch a secondary VM replays: 20 methods of a class the benchmark's fixtures define.
    static let secondaryPatch = "defineClass('PBDirect', {" + (0..<20).map { "m\($0): function() { return \($0) }" }.joined(separator: ", ") + "})"

    /// Runs in the child: times one start in this (fresh) process.
    static func measureInProcess(_ mode: Mode) throws -> UInt64 {
        pb_prepare_process()   // an app's Foundation is up before it starts the engine
        switch mode {
        case .engine:
            let start = pb_now_ns()
            let result = try PatchEngine.evaluate("", name: "patchbench-start.js")
            let elapsed = pb_now_ns() - start
            guard result == nil else { throw BenchError("an empty script evaluated to \(result!)") }
            return elapsed
        case .secondary:
            _ = try PatchEngine.evaluate(secondaryPatch, name: "patchbench-secondary.js")
            let start = pb_now_ns()
            PatchEngine.prepareVMs(1)
            let elapsed = pb_now_ns() - start
            guard PatchEngine.vmCount == 2 else { throw BenchError("prepareVMs(1) made no VM") }
            return elapsed
        case .bareSecond:
            guard let first = JSGlobalContextCreate(nil) else { throw BenchError("no first context") }
            defer { JSGlobalContextRelease(first) }
            let start = pb_now_ns()
            let group = JSContextGroupCreate()
            let ctx = JSGlobalContextCreateInGroup(group, nil)
            let script = JSStringCreateWithUTF8CString("")
            let value = JSEvaluateScript(ctx, script, nil, nil, 1, nil)
            let elapsed = pb_now_ns() - start
            JSStringRelease(script)
            guard let value, JSValueIsUndefined(ctx, value) else { throw BenchError("a second bare context failed to evaluate an empty script") }
            JSGlobalContextRelease(ctx)
            JSContextGroupRelease(group)
            return elapsed
        case .bare:
            let start = pb_now_ns()
            let ctx = JSGlobalContextCreate(nil)
            let script = JSStringCreateWithUTF8CString("")
            var exception: JSValueRef?
            let value = JSEvaluateScript(ctx, script, nil, nil, 1, &exception)
            let elapsed = pb_now_ns() - start
            JSStringRelease(script)
            guard exception == nil, let value, JSValueIsUndefined(ctx, value) else {
                throw BenchError("a bare context failed to evaluate an empty script")
            }
            JSGlobalContextRelease(ctx)
            return elapsed
        }
    }

    /// Runs in the parent: spawns `executable --start-only <mode>` and returns what it measured.
    static func measureInChild(_ mode: Mode, executable: URL) throws -> UInt64 {
        let process = Process()
        process.executableURL = executable
        process.arguments = ["--start-only", mode.rawValue]
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        do { try process.run() } catch {
            throw BenchError("cannot spawn \(executable.path): \(error)")
        }
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard process.terminationStatus == 0, let nanoseconds = UInt64(text), nanoseconds > 0 else {
            throw BenchError("\(executable.lastPathComponent) --start-only \(mode.rawValue) exited with \(process.terminationStatus), "
                             + "printed \"\(text)\", stderr: \(String(decoding: errors, as: UTF8.self))")
        }
        return nanoseconds
    }
}
