import CJavaScriptCore
import Foundation
import PatchRuntime
import PatchSupport

/// `externConstant('SKCartDidChangeNotification', 'NSString *')`: the value of an exported
/// constant of the app (a string key, a number), read by its symbol when the script runs. Only
/// constants the app lists (`PatchEngine.allowedExternConstants`) can be read, as with
/// `defineCFunction`: downloaded code gets no general reach into the process's symbols.
extension PatchEngine {
    /// Exported constants scripts may read with `externConstant(name, type)` (none by default).
    public static var allowedExternConstants: Set<String> {
        get { allowedExternConstantsSetting.withLock { $0 } }
        set { allowedExternConstantsSetting.withLock { $0 = newValue } }
    }

    private static let allowedExternConstantsSetting = LockedValue(Set<String>())
}

extension Engine {
    func externConstant(_ name: String, type: String) throws -> JSValueRef {
        guard PatchEngine.allowedExternConstants.contains(name) else {
            throw BridgeError("externConstant: \(name) is not in PatchEngine.allowedExternConstants")
        }
        let resolved = TypeNames.resolveTypeList(type, structs: structs)
        var parseError: UnsafePointer<CChar>?
        guard let sig = PESignatureFromTypeList(resolved, false, &parseError) else {
            throw BridgeError("externConstant \(name): \(parseError.map { String(cString: $0) } ?? "bad type") in \"\(type)\"")
        }
        let valueType = ObjCSignature(raw: sig).returnType
        guard valueType.kind != .void else { throw BridgeError("externConstant \(name): a constant has a type, not void") }
        guard let address = PESymbolLookup(name) else {
            throw BridgeError("externConstant: no symbol named \(name) in the process")
        }
        return try toJS(UnsafeRawPointer(address), valueType)
    }
}
