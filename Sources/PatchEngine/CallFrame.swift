import PatchRuntime

/// Runs `body` with a zeroed frame for `signature`: argument storage laid out by the signature,
/// `arguments[i]` pointing into it, and a return buffer large enough for libffi's widened values.
/// Stack allocated, so a bridged call costs no heap traffic for its frame.
func withCallFrame<R>(_ signature: ObjCSignature,
                      _ body: (UnsafeMutablePointer<PEFrame>) throws -> R) rethrows -> R {
    let count = signature.argumentCount
    let returnSize = max(signature.returnType.size, 16)
    let byteCount = signature.frameSize + returnSize + 16
    return try withUnsafeTemporaryAllocation(byteCount: byteCount, alignment: 16) { storage in
        let base = storage.baseAddress!
        base.initializeMemory(as: UInt8.self, repeating: 0, count: byteCount)
        return try withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: max(count, 1)) { args in
            for i in 0..<count { args[i] = base + signature.argumentOffset(i) }
            let ret = signature.returnType.kind == .void ? nil : base + ((signature.frameSize + 15) & ~15)
            var frame = PEFrame(signature: signature.raw, arguments: args.baseAddress, returnValue: ret)
            return try body(&frame)
        }
    }
}

extension UnsafeMutablePointer where Pointee == PEFrame {
    var signature: ObjCSignature { ObjCSignature(raw: pointee.signature) }
    func argument(_ i: Int) -> UnsafeMutableRawPointer { pointee.arguments[i]! }
    var receiver: UnsafeMutableRawPointer? { argument(0).load(as: UnsafeMutableRawPointer?.self) }
}
