import Foundation

/// `&local` passed for an object out-parameter (`[scanner scanUpToString:@"/" intoString:&s]`,
/// `NSError **`): a cell from the engine's `malloc` holding the local's value, passed in its
/// place, read back with `pval` after the call (an object the callee writes is kept alive until
/// the patch's entry returns), then freed. Scalar out-parameters are refused: `pval` reads objects.
extension MethodConverter {
    /// Registers a cell for each `&local` among `args` (an object local); returns (cell, local) pairs.
    mutating func outParameterCells(_ args: [ClangNode]) -> [(cell: String, local: String)] {
        var cells: [(cell: String, local: String)] = []
        for arg in args {
            let n = arg.unwrapped
            guard n.kind == "UnaryOperator", n.opcode == "&", let target = n.inner.first?.unwrapped, target.kind == "DeclRefExpr",
                  let ref = target.referencedDecl, ref.kind == "VarDecl" || ref.kind == "ParmVarDecl",
                  CTypes.isObjectPointer(target.type), !(ref.type ?? "").contains("__weak") else { continue }
            if let global = unit.globals[ref.name], global.id == ref.id { continue }
            temporaries += 1
            let cell = "$out\(temporaries)"
            outCells[n.id] = cell
            cells.append((cell, declRef(target)))
        }
        return cells
    }

    /// The call with its cells made before and read back after.
    func withOutParameterCells(_ call: String, _ cells: [(cell: String, local: String)]) -> String {
        guard !cells.isEmpty else { return call }
        let names = cells.map(\.cell).joined(separator: ", ")
        let fill = cells.map { "assignPointer(\($0.cell), \($0.local)); " }.joined()
        let read = cells.map { "\($0.local) = pval(\($0.cell)); free(\($0.cell)); " }.joined()
        let sizes = cells.map { _ in "malloc(8)" }.joined(separator: ", ")
        return "(function (\(names)) { \(fill)var $result = \(call); \(read)return $result; })(\(sizes))"
    }
}
