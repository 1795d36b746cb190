import Foundation

/// What a block captures. Objective-C copies a captured variable into the block when the block
/// is made (`__block` variables excepted, which are shared); a JS closure shares it. A variable
/// the method changes after a block captured it is therefore passed into the block's function
/// by value. A `__weak` parameter is held weakly from the method's start, as a `__weak` local is.
extension MethodConverter {
    /// `p = __weak(p);` for each `__weak` parameter.
    func weakParameterLines(_ params: [ClangNode], names: [String], depth: Int) -> [String] {
        zip(params, names).compactMap { param, name in
            (param.type ?? "").contains("__weak") ? indent(depth) + "\(name) = __weak(\(name));" : nil
        }
    }

    /// The variables a block copies (not `__block`, not statics) that the method assigns somewhere: their values must be copied when the block is made.
    func capturedByValue(_ blockDecl: ClangNode) -> [ClangNode.Reference] {
        guard let body = methodBody else { return [] }
        var statics = Set<String>()
        body.walk { n in if n.kind == "VarDecl", n.storageClass == "static" { statics.insert(n.id) } }
        // clang lists what a block captures, and whether by reference (`__block`).
        let used = blockDecl.inner.filter { $0.kind == "Capture" && !$0.isByReference }.compactMap(\.capturedVariable)
            .filter { ($0.kind == "VarDecl" || $0.kind == "ParmVarDecl") && !statics.contains($0.id) }
        guard !used.isEmpty else { return [] }
        var written = Set<String>()
        body.walk { n in
            let target: ClangNode?
            switch n.kind {
            case "BinaryOperator" where n.opcode == "=": target = n.inner.first
            case "CompoundAssignOperator": target = n.inner.first
            case "UnaryOperator" where n.opcode == "++" || n.opcode == "--": target = n.inner.first
            default: target = nil
            }
            if let t = target?.unwrapped, t.kind == "DeclRefExpr", let id = t.referencedDecl?.id { written.insert(id) }
        }
        return used.filter { written.contains($0.id) }
    }
}
