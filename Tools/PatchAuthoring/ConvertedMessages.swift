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
            receiver = operand(r, boxed: true)
        case "class":
            let cls = CTypes.strip(node.classType)
            guard !cls.isEmpty else { return unconverted("class message without a class", node) }
            requireClass(cls)
            receiver = cls
        case "super (instance)", "super (class)":
            receiver = (blockDepth > 0 && capturesSelf ? "blockSelf" : "self") + ".super()"
        default:
            return unconverted("message with receiver kind \(node.receiverKind ?? "?")", node)
        }
        if selector.hasSuffix("arguments:"), args.last.map({ CTypes.strip($0.type).contains("va_list") }) == true {
            return unconverted("\(selector) takes a va_list: variadic C arguments can't be forwarded from a patch", node)
        }
        if Self.nilTerminated.contains(selector), let last = args.last, isNullConstant(last) {
            args.removeLast()
        }
        let colons = selector.filter { $0 == ":" }.count
        var converted: [String]
        if colons > 0, Self.isFormatSelector(selector), args.count >= colons {
            let fixed = args.prefix(colons - 1).map { expr($0) }
            converted = fixed + formatArguments(Array(args.dropFirst(colons - 1)))
        } else {
            converted = args.map { argument($0) }
        }
        return "\(receiver).\(JSNames.methodName(selector))(\(converted.joined(separator: ", ")))"
    }

    /// An argument: literals stay plain (the engine converts JS strings and arrays where an
    /// object is taken), blocks carry their types.
    mutating func argument(_ node: ClangNode) -> String {
        expr(node)
    }
}
