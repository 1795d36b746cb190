import Foundation

/// Calls of variadic methods (the app's, Foundation's). The engine passes extra arguments only to
/// selectors it knows to be variadic — names ending in `Format:`/`format:` and Foundation's
/// nil-terminated lists — and refuses any other call with more arguments than the selector's
/// colons ("takes 1 argument, got 2"). So a call of another variadic method is either written in
/// a form with the same effect, or refused at its place.
extension MethodConverter {
    /// Whether the engine passes extra arguments to `selector` (PatchEngine's `VariadicMethods`).
    static func engineTakesExtraArguments(_ selector: String) -> Bool {
        nilTerminated.contains(selector) || isFormatSelector(selector)
    }

    enum VariadicCall {
        /// Not a call the engine would refuse: converted as usual.
        case plain
        case arguments([String])
        /// The script's text where the call was refused (reported).
        case refused(String)
    }

    /// A call of `selector` when it is variadic and the engine can't pass its extra arguments:
    /// its arguments rewritten, or refused with the reason.
    mutating func variadicCall(_ selector: String, _ args: [ClangNode], _ node: ClangNode) -> VariadicCall {
        guard let declarations = unit.variadicMethods[selector], !Self.engineTakesExtraArguments(selector) else { return .plain }
        let colons = selector.filter { $0 == ":" }.count
        guard colons > 0, args.count >= colons else { return .plain }
        guard declarations.contains(where: { isFormatMethod($0, formatIndex: colons - 1) }) else {
            return .refused(unconverted("-\(selector) is variadic and not a format method: the engine passes extra arguments only to "
                + "selectors ending in Format:/format: and Foundation's nil-terminated lists (call a non-variadic variant, "
                + "or give the method a format attribute, NS_FORMAT_FUNCTION)", node))
        }
        // `[self log:@"… %@", url]` → `self.log(<the formatted text, % doubled>)`: the method
        // formats what it is given, and a format without conversions gives back that very text.
        var converted = args.prefix(colons - 1).map { expr($0) }
        requireClass("NSString")
        let formatted = "NSString.stringWithFormat(\(formatArguments(Array(args.dropFirst(colons - 1))).joined(separator: ", ")))"
        converted.append("\(formatted).stringByReplacingOccurrencesOfString_withString('%', '%%')")
        return .arguments(converted)
    }

    /// A variadic method whose parameter `formatIndex` is a format its variadic arguments fill:
    /// declared with a format attribute, or implemented (in this file) by handing that parameter
    /// and its `va_list` to a `…Format:arguments:` method or `NSLogv`.
    func isFormatMethod(_ decl: ClangNode, formatIndex: Int) -> Bool {
        if decl.inner.contains(where: { $0.kind == "FormatAttr" }) { return true }
        let params = decl.inner.filter { $0.kind == "ParmVarDecl" }
        guard formatIndex < params.count, CTypes.isObjectPointer(params[formatIndex].type),
              let body = decl.inner.first(where: { $0.kind == "CompoundStmt" }) else { return false }
        let format = params[formatIndex].id
        var found = false
        body.walk { n in
            let takesVAList: Bool
            switch n.kind {
            case "ObjCMessageExpr": takesVAList = (n.selector ?? "").lowercased().hasSuffix("format:arguments:") || (n.selector ?? "").hasSuffix("Format:locale:arguments:")
            case "CallExpr": takesVAList = ["NSLogv", "NSLogvv"].contains(n.inner.first?.unwrapped.referencedDecl?.name ?? "")
            default: takesVAList = false
            }
            guard takesVAList else { return }
            if n.inner.contains(where: { $0.unwrapped.kind == "DeclRefExpr" && $0.unwrapped.referencedDecl?.id == format }) { found = true }
        }
        return found
    }
}
