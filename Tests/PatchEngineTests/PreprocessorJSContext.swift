import CJavaScriptCore

/// A bare JavaScriptCore context for the preprocessor tests, with a plain-JS `__c`
/// dispatcher on Object.prototype (no Objective-C): `obj.__c("m")` is `obj.m` bound to `obj`.
/// `__pe`, where the engine keeps its name records, is empty here: every site passes the name.
final class PreprocessorJSContext {
    /// The outcome of evaluating a script: its completion value as JSON, or the exception.
    enum Outcome: Equatable, CustomStringConvertible {
        case value(String)
        case exception(message: String, line: Int?, column: Int?)

        var description: String {
            switch self {
            case .value(let json): return "value \(json)"
            case .exception(let message, let line, let column):
                return "exception \(message) at \(line.map(String.init) ?? "?"):\(column.map(String.init) ?? "?")"
            }
        }
    }

    /// Strict mode so that a primitive receiver reaches the method unboxed, exactly as in a
    /// direct call; non-enumerable so `for…in` never sees it.
    static let dispatcher = """
        Object.defineProperty(Object.prototype, '__c', {
            value: function (name) {
                'use strict';
                var f = this[name];
                return typeof f === 'function' ? f.bind(this) : undefined;
            },
            enumerable: false, configurable: true, writable: true
        });
        """

    private let context: JSGlobalContextRef

    init(withDispatcher: Bool = true) {
        context = JSGlobalContextCreate(nil)
        guard case .value = evaluate("Object.defineProperty(this, '__pe', { value: Object.create(null) }); 0") else {
            fatalError("__pe did not evaluate")
        }
        if withDispatcher {
            guard case .value = evaluate(Self.dispatcher) else { fatalError("dispatcher did not evaluate") }
        }
    }

    deinit { JSGlobalContextRelease(context) }

    /// Evaluates `script` (starting at line 1) and returns its completion value as JSON
    /// (`undefined` for values JSON cannot express) or the exception with its position.
    func evaluate(_ script: String) -> Outcome {
        let source = JSStringCreateWithUTF8CString(script)
        defer { JSStringRelease(source) }
        var exception: JSValueRef?
        let result = JSEvaluateScript(context, source, nil, nil, 1, &exception)
        if let exception {
            return describeException(exception)
        }
        var jsonException: JSValueRef?
        guard let json = JSValueCreateJSONString(context, result, 0, &jsonException) else {
            if let jsonException { return describeException(jsonException) }
            return .value("undefined")
        }
        defer { JSStringRelease(json) }
        return .value(string(json))
    }

    private func describeException(_ exception: JSValueRef) -> Outcome {
        let message = stringValue(exception)
        guard let object = JSValueToObject(context, exception, nil) else {
            return .exception(message: message, line: nil, column: nil)
        }
        return .exception(message: message, line: intProperty(object, "line"), column: intProperty(object, "column"))
    }

    private func intProperty(_ object: JSObjectRef, _ name: String) -> Int? {
        let key = JSStringCreateWithUTF8CString(name)
        defer { JSStringRelease(key) }
        guard let value = JSObjectGetProperty(context, object, key, nil), JSValueIsNumber(context, value) else { return nil }
        return Int(JSValueToNumber(context, value, nil))
    }

    private func stringValue(_ value: JSValueRef) -> String {
        guard let s = JSValueToStringCopy(context, value, nil) else { return "?" }
        defer { JSStringRelease(s) }
        return string(s)
    }

    private func string(_ s: JSStringRef) -> String {
        let size = JSStringGetMaximumUTF8CStringSize(s)
        var buffer = [CChar](repeating: 0, count: size)
        JSStringGetUTF8CString(s, &buffer, size)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
