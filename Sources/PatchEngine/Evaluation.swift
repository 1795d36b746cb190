import CJavaScriptCore
import Foundation
import PatchRuntime

/// Evaluating scripts as transactions, reverting them, and mapping JS positions back to the
/// user's source.
extension Engine {
    func evaluate(_ script: String, name: String, baseDirectory: URL?, bundle: [String: String]? = nil) throws -> Any? {
        let preprocessed = try Self.prepared(script, name: name)
        transactions.setSourceMap(preprocessed, for: name, script: name)
        // Evaluations are serialised; include() nests on the same thread.
        return try evaluations.serialised { try evaluateSerialised(preprocessed, name: name, baseDirectory: baseDirectory, bundle: bundle) }
    }

    private func evaluateSerialised(_ preprocessed: Preprocessed, name: String, baseDirectory: URL?,
                                    bundle: [String: String]?) throws -> Any? {
        installScriptExtensions()
        let mark = transactions.mark(name)
        // A script named by an absolute path resolves include()/resourcePath() from its folder.
        let base = baseDirectory ?? (name.hasPrefix("/") ? URL(fileURLWithPath: name).deletingLastPathComponent() : nil)
        let pool = PEPoolPush()
        defer { PEFlushDeferredAutoreleases(); PEPoolPop(pool); drainReleases() }
        return try evaluations.within(Evaluation(name: name, baseDirectory: bundle == nil ? base : nil, bundle: bundle)) {
            try evaluateTopLevel(preprocessed, name: name, base: base, bundle: bundle, mark: mark)
        }
    }

    private func evaluateTopLevel(_ preprocessed: Preprocessed, name: String, base: URL?, bundle: [String: String]?,
                                  mark: Int) throws -> Any? {
        do {
            let value = try evaluateRaw(preprocessed.code, sourceURL: name, topLevel: true)
            // Its getters and proxy traps are the script's code: they run under the limits, and
            // an end there fails the evaluation like any other.
            let completion = try swiftValue(value, of: "the completion value of \(name)")
            transactions.markApplied(name, evaluation: .init(code: preprocessed.code, baseDirectory: bundle == nil ? base : nil, bundle: bundle))
            return completion
        } catch {
            let patchError = evaluationError(error, script: name)   // before the rollback drops the source map
            rollBack(name, to: mark, revert: false)
            // A JS method of another script, called directly from this one, ran away: reverted too.
            if let timeout = error as? ExecutionTimeout {
                if let running = timeout.script, running != name {
                    report(PatchError(kind: timeout.kind, message: timeout.message(for: "JS of \(running), called from the evaluation of \(name),"),
                                      scriptName: running))
                    revertAfterTimeout(running, timeout)
                }
                collectAfterHeapGrowth(timeout)
            }
            throw patchError
        }
    }

    /// `source` as the engine runs it (`Preprocessor.prepare`: check points inserted), or a
    /// `.syntax` error positioned where it names the check points' reserved identifiers.
    static func prepared(_ source: String, name: String) throws -> Preprocessed {
        do { return try Preprocessor.checked(source) } catch let reserved as ReservedNameError {
            throw PatchError(kind: .syntax, message: reserved.message, scriptName: name, line: reserved.line, column: reserved.column)
        }
    }

    /// `include(path)`: evaluates a file relative to the current script, once per file, as part of
    /// the current script's transaction (a revert forgets it, so evaluating the script again
    /// includes the file again).
    func include(_ path: String) throws -> JSValueRef {
        if isReplaying { return try replayInclude(path) }
        if let outer = evaluations.current(), let bundle = outer.bundle {
            return try includeFromBundle(path, bundle: bundle, outer: outer)
        }
        let url = URL(fileURLWithPath: try includedFile(path))
        let outer = evaluations.current()
        let script = outer?.name ?? url.path
        guard transactions.markIncluded(url.path, script: script) else { return JSValueMakeUndefined(ctx) }
        guard let source = try? String(contentsOf: url, encoding: .utf8) else {
            transactions.unmarkIncluded(url.path, script: script)
            throw BridgeError("include(\"\(path)\"): cannot read \(url.path)")
        }
        let preprocessed: Preprocessed
        do { preprocessed = try Self.prepared(source, name: url.path) } catch {
            transactions.unmarkIncluded(url.path, script: script)
            throw error
        }
        transactions.setSourceMap(preprocessed, for: url.path, script: script)
        // An exception in the file keeps its own position (the file's line and column).
        return try evaluations.within(Evaluation(name: script, baseDirectory: url.deletingLastPathComponent(), bundle: nil)) {
            try evaluateRaw(preprocessed.code, sourceURL: url.path, passingExceptions: true)
        }
    }

    /// The file `include(path)` names outside a delivered patch: resolved against the current
    /// script's folder, standardized (the key it is included once under).
    func includedFile(_ path: String) throws -> String {
        URL(fileURLWithPath: try resolvePath(path)).standardizedFileURL.path
    }

    /// The script `include(path)` names inside a delivered patch: its name in the bundle (a
    /// leading `./` ignored).
    static func bundledScript(_ path: String) -> String {
        path.hasPrefix("./") ? String(path.dropFirst(2)) : path
    }

    /// `include(name)` inside a delivered patch: only another script of the same signed bundle, by
    /// its exact name; never a file, so a patch runs nothing its signature does not cover.
    private func includeFromBundle(_ path: String, bundle: [String: String], outer: Evaluation) throws -> JSValueRef {
        let key = Self.bundledScript(path)
        guard let source = bundle[key] else {
            throw BridgeError("include(\"\(path)\"): the patch \(outer.name) carries no script of that name")
        }
        guard transactions.markIncluded(key, script: outer.name) else { return JSValueMakeUndefined(ctx) }
        let preprocessed = try Self.prepared(source, name: key)
        transactions.setSourceMap(preprocessed, for: key, script: outer.name)
        return try evaluations.within(Evaluation(name: outer.name, baseDirectory: nil, bundle: bundle)) {
            try evaluateRaw(preprocessed.code, sourceURL: key, passingExceptions: true)
        }
    }

    /// `resourcePath(path)`: the current script's directory joined with `path`. Refused inside a
    /// delivered patch (its scripts are not files).
    func resolvePath(_ path: String) throws -> String {
        if evaluations.current()?.bundle != nil {
            throw BridgeError("resourcePath(\"\(path)\"): not available in a delivered patch")
        }
        if path.hasPrefix("/") { return path }
        let base = evaluations.current()?.baseDirectory ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        return base.appendingPathComponent(path).path
    }

    /// Undoes every change `script` recorded after `mark`, newest first. In the main VM, whose
    /// values the changes hold; a revert then has the secondary VMs no thread is in take back
    /// their replay of it (a VM in use does when it next catches up).
    func rollBack(_ script: String, to mark: Int = 0, revert: Bool = true) {
        guard index == 0 else { return Engine.shared.rollBack(script, to: mark, revert: revert) }
        for change in transactions.takeChanges(script, after: mark, revert: revert) {
            switch change {
            case let .method(_, token):
                // No slot holds it any more (takeChanges restored the stacks); calls may still run it.
                PEPatchTokenRetire(token)
            case let .jsOnlyMethod(className, name, previous):
                removeJSOnly(className: className, name: name, restoring: previous)
            case .classCreated, .protocolAttached:
                break   // cannot be undone by either runtime; their methods were reverted above
            case let .structDefined(name, previous):
                structs.restore(name: name, to: previous)
            case let .protocolDefined(name, previous):
                protocols.restore(name, to: previous)
            case let .custom(_, undo):
                undo()
            }
        }
        if revert { takeBackRevertedInFreeVMs() }
    }

    /// Which script `js` happened in and where in the user's source of that script (or `script`).
    /// An error raised in runtime.js on a script's behalf (defineClass, hook, include...) is
    /// placed at the script's call, the innermost stack frame outside runtime.js.
    func userLocation(of js: JSException, script: String) -> (scriptName: String, line: Int?, column: Int?) {
        var located = js
        if js.sourceURL.map(EngineScript.fileNames.contains) ?? true,
           let frame = js.innermostFrame(outside: EngineScript.fileNames) {
            located.sourceURL = frame.url; located.line = frame.line; located.column = frame.column
        }
        let scriptName = located.sourceURL.map(EngineScript.fileNames.contains) ?? true ? script : located.sourceURL!
        let position = located.originalPosition(in: transactions.sourceMap(scriptName, script: script))
        return (scriptName, position.line, position.column)
    }

    private func evaluationError(_ error: Error, script: String) -> PatchError {
        if let timeout = error as? ExecutionTimeout {
            return PatchError(kind: timeout.kind, message: timeout.message(for: "evaluation of \(script)"), scriptName: script)
        }
        guard let js = error as? JSException else {
            return PatchError(kind: .evaluation, message: "\(error)", scriptName: script)
        }
        let kind: PatchError.Kind = js.message.hasPrefix("SyntaxError") ? .syntax : .evaluation
        let location = userLocation(of: js, script: script)
        return PatchError(kind: kind, message: js.message, scriptName: location.scriptName,
                          line: location.line, column: location.column)
    }

}
