import PatchRuntime

/// Swift view of a parsed method or block signature (`PESignature`).
struct ObjCSignature {
    let raw: OpaquePointer

    init(raw: OpaquePointer) { self.raw = raw }

    init(types: String) throws {
        var error: UnsafePointer<CChar>?
        guard let sig = PESignatureParse(types, &error) else {
            throw BridgeError("unsupported type encoding \"\(types)\": \(error.map { String(cString: $0) } ?? "parse error")")
        }
        raw = sig
    }

    var returnType: ObjCType { ObjCType(raw: PESignatureGetReturnType(raw)) }
    var argumentCount: Int { Int(PESignatureGetArgumentCount(raw)) }
    func argument(_ i: Int) -> ObjCType { ObjCType(raw: PESignatureGetArgument(raw, UInt32(i))) }
    var frameSize: Int { PESignatureGetFrameSize(raw) }
    func argumentOffset(_ i: Int) -> Int { PESignatureGetArgumentOffset(raw, UInt32(i)) }
    var encoding: String { String(cString: PESignatureGetEncoding(raw)) }
}
