import Foundation
import PatchSupport

/// Strict mode, for QA builds and tests: a JS exception inside a patched method stops the process
/// with the error (its script, line and column) instead of being reported and answered by the
/// original implementation, so a converted method that fails can't pass a QA run unnoticed.
extension PatchEngine {
    /// Off by default (production: report, fall back to the original, keep the app running).
    /// Set before evaluating patches in QA builds and tests.
    public static var strictMode: Bool {
        get { strictModeSetting.withLock { $0 } }
        set { strictModeSetting.withLock { $0 = newValue } }
    }

    private static let strictModeSetting = LockedValue(false)
}

extension Engine {
    /// After `error` was reported: in strict mode, the process stops with it.
    func stopIfStrict(_ error: PatchError) {
        guard PatchEngine.strictMode else { return }
        let message = "PatchEngine strict mode: a patched method threw: \(error)"
        FileHandle.standardError.write(Data((message + "\n").utf8))
        fatalError(message)
    }
}
