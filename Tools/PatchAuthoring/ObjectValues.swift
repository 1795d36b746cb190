import Foundation

/// How the engine holds Objective-C object values in JS, and what the converted code must do so
/// that they behave as the compiled code's: nil is `false` (any message to it answers `false`;
/// JS `null` would throw), an NSNumber arrives as a JS number (a BOOL one as a boolean), which
/// takes no messages and whose 0 is falsy while the object is not nil, and a zeroed weak box is
/// a JS object although it holds nil.
extension MethodConverter {
    /// Helpers the script defines once, before its classes, when a method needs them.
    static let helpers: [String: String] = [
        // C's test of an object pointer: set unless nil. An NSNumber 0 (a JS 0) is set.
        "$isSet": "var $isSet = function (v) { return v !== false && v !== null && v !== undefined; };",
        // A receiver that may be an NSNumber the engine handed over as a number: the object back.
        "$object": "var $object = function (v) { return typeof v === 'number' ? OCNumber('NSNumber', Number.isInteger(v) ? 'numberWithLongLong:' : 'numberWithDouble:', [v]) "
            + ": v === true ? OCNumber('NSNumber', 'numberWithBool:', [true]) : v; };",
    ]

    mutating func useHelper(_ name: String) -> String {
        if !state.helpers.contains(name) {
            state.helpers.insert(name)
            if name == "$object" { state.extensions.insert("JPNumber") }
        }
        return name
    }

    /// nil of a pointer type: `false` for objects (blocks, classes), `null` for C pointers.
    static func nilValue(_ type: String?) -> String {
        CTypes.isObjectPointer(type) || CTypes.isBlock(type) ? "false" : "null"
    }

    /// Object types whose values may arrive as JS numbers or booleans (NSNumbers).
    static func mayHoldNumber(_ type: String?) -> Bool {
        let t = CTypes.strip(type)
        if ["id", "NSNumber *", "NSValue *", "NSObject *", "NSDecimalNumber *"].contains(t) { return true }
        return t.hasPrefix("id<") || t.hasPrefix("id <") || t.hasPrefix("NSObject<") || t.hasPrefix("NSObject <")
            || t.hasPrefix("__kindof NSNumber") || t.hasPrefix("__kindof NSObject")
    }

    static func isWeak(_ node: ClangNode) -> Bool {
        let n = node.unwrapped
        return (n.type ?? "").contains("__weak") || (n.referencedDecl?.type ?? "").contains("__weak")
    }

    /// C's truth test of an object pointer: whether it is set. A weak reference is asked for its
    /// object (a zeroed weak box answers nil); a value that may be an NSNumber is tested for nil,
    /// not for JS truthiness (an NSNumber 0 is set).
    mutating func isSet(_ node: ClangNode) -> String {
        if Self.isWeak(node) { return "!!\(operand(node)).self()" }
        if Self.mayHoldNumber(node.unwrapped.type) || Self.mayHoldNumber(node.type) {
            return "\(useHelper("$isSet"))(\(expr(node)))"
        }
        return expr(node)
    }

    /// A message's receiver: literals and boxed expressions as the objects they are in
    /// Objective-C; a value that may be an NSNumber turned back into one when the patch runs.
    mutating func receiver(_ node: ClangNode) -> String {
        var n = node.unwrapped
        while n.kind == "OpaqueValueExpr", let inner = n.inner.first { n = inner.unwrapped }
        if n.kind == "ObjCBoxedExpr", let inner = n.inner.first, !CTypes.isObjectPointer(inner.type), !CTypes.isPointer(inner.type),
           let boxing = n.selector {
            // `@(self.priority).hash`: the NSNumber clang's boxing method makes, kept as an object.
            state.extensions.insert("JPNumber")
            return "OCNumber('NSNumber', \(JSNames.string(boxing)), [\(expr(inner))])"
        }
        if Self.mayHoldNumber(n.type) || Self.mayHoldNumber(node.type) {
            return "\(useHelper("$object"))(\(expr(node)))"
        }
        return operand(node, boxed: true)
    }
}
