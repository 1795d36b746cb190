import Foundation

/// Message sends: `[receiver sel:a b:c]` → `receiver.sel_b(a, c)`, `super` → `self.super()`.
extension MethodConverter {
    /// Foundation's nil-terminated variadic selectors: the engine adds the terminator itself.
    static let nilTerminated: Set<String> = [
        "arrayWithObjects:", "initWithObjects:", "setWithObjects:", "dictionaryWithObjectsAndKeys:",
        "initWithObjectsAndKeys:", "orderedSetWithObjects:",
    ]

    static func isFormatSelector(_ selector: String) -> Bool {
        selector.hasSuffix("Format:") || selector.hasSuffix("format:")
    }

    mutating func message(_ node: ClangNode) -> String {
        guard let selector = node.selector else { return unconverted("message without a selector", node) }
        var args = node.inner
        let receiver: String
        switch node.receiverKind {
        case "instance":
            guard !args.isEmpty else { return unconverted("message without a receiver", node) }
            let r = args.removeFirst()
            // Memory management: the engine owns what JS holds (boxes retain, results are
            // autoreleased), so retain/autorelease give the object and release does nothing.
            if selector == "retain" || selector == "autorelease" { return expr(r, boxed: true) }
            if selector == "release" { return "undefined" }
            if let number = numberAccessor(selector, r) { return number }
            if let block = messageToBlock(selector, r, node) { return block }
            receiver = self.receiver(r)
        case "class":
            let cls = CTypes.strip(node.classType)
            guard !cls.isEmpty else { return unconverted("class message without a class", node) }
            requireClass(cls)
            receiver = cls
        case "super (instance)", "super (class)":
            receiver = (blockDepth > 0 && capturesSelf ? "$blockSelf" : "self") + ".super()"
        default:
            return unconverted("message with receiver kind \(node.receiverKind ?? "?")", node)
        }
        if selector.hasSuffix("arguments:"), args.last.map({ CTypes.strip($0.type).contains("va_list") }) == true {
            return unconverted("\(selector) takes a va_list: variadic C arguments can't be forwarded from a patch", node)
        }
        let colons = selector.filter { $0 == ":" }.count
        // The engine adds the terminator only to a call with extra arguments: a list of one
        // keeps its nil (`false`), or the method would read past the last argument.
        if Self.nilTerminated.contains(selector), let last = args.last, isNullConstant(last), args.count - 1 > colons {
            args.removeLast()
        }
        let cells = outParameterCells(args)
        var converted: [String]
        switch variadicCall(selector, args, node) {
        case .refused(let text): return text
        case .arguments(let rewritten): converted = rewritten
        case .plain:
            if colons > 0, Self.isFormatSelector(selector), args.count >= colons {
                let fixed = args.prefix(colons - 1).map { expr($0) }
                converted = fixed + formatArguments(Array(args.dropFirst(colons - 1)))
            } else {
                converted = args.map { argument($0) }
            }
        }
        return withOutParameterCells("\(receiver).\(JSNames.methodName(selector))(\(converted.joined(separator: ", ")))", cells)
    }

    /// A message to a block: on the GCC runtime a block is no object, and in the patch it is a JS
    /// function. Copying (retaining) gives the block itself (the engine copies blocks to the heap
    /// when they cross); anything else is refused.
    mutating func messageToBlock(_ selector: String, _ receiver: ClangNode, _ node: ClangNode) -> String? {
        guard CTypes.isBlock(receiver.unwrapped.type) || CTypes.isBlock(receiver.type) || CTypes.isBlock(receiver.unwrapped.desugaredType)
            || receiver.unwrapped.kind == "BlockExpr" else { return nil }
        if selector == "copy" { return expr(receiver, boxed: true) }
        return unconverted("-\(selector) sent to a block (a block is a JS function in a patch; only copy, retain, autorelease and release convert)", node)
    }

    /// NSNumber's value accessors. The engine hands every NSNumber to JS as a number (a BOOL as a
    /// boolean), so `[n integerValue]` is computed in JS. For an `id` receiver (an NSString also
    /// answers `integerValue`) the choice is made when the patch runs.
    mutating func numberAccessor(_ selector: String, _ receiver: ClangNode) -> String? {
        let integers: Set<String> = ["integerValue", "intValue", "longValue", "longLongValue", "shortValue", "charValue",
                                     "unsignedIntegerValue", "unsignedIntValue", "unsignedLongValue", "unsignedLongLongValue",
                                     "unsignedShortValue", "unsignedCharValue"]
        let conversion: (String) -> String
        switch selector {
        case _ where integers.contains(selector): conversion = { "Math.trunc(Number(\($0)))" }
        case "doubleValue", "floatValue": conversion = { "Number(\($0))" }
        case "boolValue": conversion = { "Boolean(\($0))" }
        case "stringValue": conversion = { "String(Number(\($0)))" }
        default: return nil
        }
        let type = CTypes.strip(receiver.unwrapped.type)
        if type == "NSNumber *" || type == "NSNumber" {
            return conversion(expr(receiver))
        }
        guard type == "id" || type.hasPrefix("id<") || type.hasPrefix("id <") else { return nil }
        temporaries += 1
        let v = "$value\(temporaries)"
        return "(function (\(v)) { return typeof \(v) === 'number' || typeof \(v) === 'boolean' ? \(conversion(v)) : \(v).\(JSNames.methodName(selector))(); })(\(expr(receiver)))"
    }

    /// An argument: literals stay plain (the engine converts JS strings and arrays where an
    /// object is taken), blocks carry their types.
    mutating func argument(_ node: ClangNode) -> String {
        expr(node)
    }
}
