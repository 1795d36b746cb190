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
            receiver = operand(r, boxed: true)
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
