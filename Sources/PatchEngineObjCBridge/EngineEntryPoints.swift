import Foundation
import PatchEngine

// The engine's C entry points for the Objective-C API (PatchEngineObjC, PEPatchEngine.h), which
// declares them in its PEBridge.h. Plain C types only, so the same functions serve Apple platforms
// and Linux, where Swift has no @objc. Strings passed in are UTF-8 the caller keeps; strings passed
// out are malloc'd and freed by the caller.

/// Where a failure is written for the Objective-C side (each pointer may be NULL).
public typealias BridgeString = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>

/// Runs `body`; on an error writes what the Objective-C side reads of it (a `PatchError`'s kind,
/// message, script, line and column, 0 when unknown; strings malloc'd) and returns false.
func reportingFailure(_ kind: BridgeString?, _ message: BridgeString?, _ scriptName: BridgeString?,
                      _ line: UnsafeMutablePointer<Int>?, _ column: UnsafeMutablePointer<Int>?,
                      _ body: () throws -> Void) -> Bool {
    do {
        try body()
        return true
    } catch let error as PatchError {
        kind?.pointee = strdup(error.kind.rawValue)
        message?.pointee = strdup(error.message)
        scriptName?.pointee = strdup(error.scriptName)
        line?.pointee = error.line ?? 0
        column?.pointee = error.column ?? 0
    } catch {
        kind?.pointee = strdup("other")
        message?.pointee = strdup("\(error)")
        scriptName?.pointee = nil
        line?.pointee = 0
        column?.pointee = 0
    }
    return false
}

/// Starts the engine now (else the first evaluation does): the JavaScript context and the runtime core.
@_cdecl("PEBridgeStart")
public func bridgeStart() {
    _ = PatchEngine.vmCount
}

/// `PatchEngine.evaluate(script, name:)`; false with the failure written.
@_cdecl("PEBridgeEvaluate")
public func bridgeEvaluate(_ script: UnsafePointer<CChar>, _ name: UnsafePointer<CChar>, _ kind: BridgeString?,
                           _ message: BridgeString?, _ scriptName: BridgeString?,
                           _ line: UnsafeMutablePointer<Int>?, _ column: UnsafeMutablePointer<Int>?) -> Bool {
    reportingFailure(kind, message, scriptName, line, column) {
        try PatchEngine.evaluate(String(cString: script), name: String(cString: name))
    }
}

/// `PatchEngine.evaluate(contentsOf:)`: the patch is named by the file's path.
@_cdecl("PEBridgeEvaluateFile")
public func bridgeEvaluateFile(_ path: UnsafePointer<CChar>, _ kind: BridgeString?, _ message: BridgeString?,
                               _ scriptName: BridgeString?,
                               _ line: UnsafeMutablePointer<Int>?, _ column: UnsafeMutablePointer<Int>?) -> Bool {
    reportingFailure(kind, message, scriptName, line, column) {
        try PatchEngine.evaluate(contentsOf: URL(fileURLWithPath: String(cString: path)))
    }
}

@_cdecl("PEBridgeRevert")
public func bridgeRevert(_ name: UnsafePointer<CChar>, _ kind: BridgeString?, _ message: BridgeString?,
                         _ scriptName: BridgeString?,
                         _ line: UnsafeMutablePointer<Int>?, _ column: UnsafeMutablePointer<Int>?) -> Bool {
    reportingFailure(kind, message, scriptName, line, column) {
        try PatchEngine.revert(String(cString: name))
    }
}

@_cdecl("PEBridgeRevertAll")
public func bridgeRevertAll() { PatchEngine.revertAll() }

/// The applied patch names, joined by newlines (names are the caller's; one with a newline would
/// split: the Objective-C side documents that).
@_cdecl("PEBridgeCopyAppliedNames")
public func bridgeCopyAppliedNames() -> UnsafeMutablePointer<CChar>? {
    strdup(PatchEngine.appliedPatchNames.joined(separator: "\n"))
}

/// The error handler: `callback(context, kind, message, scriptName, line, column)` for each JS
/// error inside a patched method; NULL removes it.
public typealias BridgeErrorCallback = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>, UnsafePointer<CChar>,
                                                       UnsafePointer<CChar>, Int, Int) -> Void
@_cdecl("PEBridgeSetErrorHandler")
public func bridgeSetErrorHandler(_ callback: BridgeErrorCallback?, _ context: UnsafeMutableRawPointer?) {
    guard let callback else { PatchEngine.errorHandler = nil; return }
    let box = UInt(bitPattern: context)
    PatchEngine.errorHandler = { error in
        callback(UnsafeMutableRawPointer(bitPattern: box), error.kind.rawValue, error.message, error.scriptName,
                 error.line ?? 0, error.column ?? 0)
    }
}

/// The log handler (console.log lines); NULL removes it.
public typealias BridgeLineCallback = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>) -> Void
@_cdecl("PEBridgeSetLogHandler")
public func bridgeSetLogHandler(_ callback: BridgeLineCallback?, _ context: UnsafeMutableRawPointer?) {
    guard let callback else { PatchEngine.logHandler = nil; return }
    let box = UInt(bitPattern: context)
    PatchEngine.logHandler = { line in callback(UnsafeMutableRawPointer(bitPattern: box), line) }
}

/// The limits: seconds or bytes, and a negative value for none.
@_cdecl("PEBridgeExecutionTimeLimit")
public func bridgeExecutionTimeLimit() -> Double { PatchEngine.executionTimeLimit ?? -1 }
@_cdecl("PEBridgeSetExecutionTimeLimit")
public func bridgeSetExecutionTimeLimit(_ seconds: Double) { PatchEngine.executionTimeLimit = seconds < 0 ? nil : seconds }
@_cdecl("PEBridgeHeapGrowthLimit")
public func bridgeHeapGrowthLimit() -> Int64 { PatchEngine.heapGrowthLimit.map(Int64.init) ?? -1 }
@_cdecl("PEBridgeSetHeapGrowthLimit")
public func bridgeSetHeapGrowthLimit(_ bytes: Int64) { PatchEngine.heapGrowthLimit = bytes < 0 ? nil : Int(clamping: bytes) }
@_cdecl("PEBridgeIsExecutionTimeLimitAvailable")
public func bridgeIsExecutionTimeLimitAvailable() -> Bool { PatchEngine.isExecutionTimeLimitAvailable }

@_cdecl("PEBridgeLimitsEndByException")
public func bridgeLimitsEndByException() -> Bool { PatchEngine.limitsEndByException }
@_cdecl("PEBridgeRequestLimitsEndByWatchdog")
public func bridgeRequestLimitsEndByWatchdog() -> Bool { PatchEngine.requestLimitEnd(.watchdog) }
