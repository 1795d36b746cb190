import CJavaScriptCore

/// Small conveniences over JavaScriptCore's C API (the same on Linux and Apple platforms).
enum JSC {
    static func string(_ s: String) -> JSStringRef { JSStringCreateWithUTF8CString(s) }

    static func swiftString(_ js: JSStringRef) -> String {
        let max = JSStringGetMaximumUTF8CStringSize(js)
        var buffer = [CChar](repeating: 0, count: max)
        let n = JSStringGetUTF8CString(js, &buffer, max)
        return buffer.withUnsafeBufferPointer { ptr in
            String(decoding: UnsafeRawBufferPointer(start: ptr.baseAddress, count: Swift.max(0, n - 1)), as: UTF8.self)
        }
    }

    static func makeString(_ ctx: JSContextRef, _ s: String) -> JSValueRef {
        let js = string(s); defer { JSStringRelease(js) }
        return JSValueMakeString(ctx, js)
    }

    static func toString(_ ctx: JSContextRef, _ value: JSValueRef?) -> String {
        guard let value else { return "undefined" }
        guard let js = JSValueToStringCopy(ctx, value, nil) else { return "?" }
        defer { JSStringRelease(js) }
        return swiftString(js)
    }

    /// `object[name]`; undefined when the read threw (a getter's exception, or JavaScriptCore
    /// ending the script: it then answers NULL to the C API). Where the exception matters, `read`.
    /// The exception is not described here: `JSException` reads its properties through this, and
    /// a thrown value whose getters throw again would recurse without end.
    static func get(_ ctx: JSContextRef, _ object: JSObjectRef, _ name: String) -> JSValueRef {
        let js = string(name); defer { JSStringRelease(js) }
        return JSObjectGetProperty(ctx, object, js, nil) ?? JSValueMakeUndefined(ctx)
    }

    /// `object[name]`, or the exception its read threw.
    static func read(_ ctx: JSContextRef, _ object: JSObjectRef, _ name: String) throws -> JSValueRef {
        let js = string(name); defer { JSStringRelease(js) }
        var exception: JSValueRef?
        return try checked(ctx, JSObjectGetProperty(ctx, object, js, &exception), exception)
    }

    /// `object[index]`, or the exception its read threw.
    static func read(_ ctx: JSContextRef, _ object: JSObjectRef, _ index: Int) throws -> JSValueRef {
        var exception: JSValueRef?
        return try checked(ctx, JSObjectGetPropertyAtIndex(ctx, object, UInt32(index), &exception), exception)
    }

    private static func checked(_ ctx: JSContextRef, _ value: JSValueRef?, _ exception: JSValueRef?) throws -> JSValueRef {
        if let exception { throw JSException(ctx: ctx, value: exception) }
        guard let value else { throw BridgeError("JavaScriptCore answered no value (the script is being ended)") }
        return value
    }

    static func has(_ ctx: JSContextRef, _ object: JSObjectRef, _ name: String) -> Bool {
        let js = string(name); defer { JSStringRelease(js) }
        return JSObjectHasProperty(ctx, object, js)
    }

    static func set(_ ctx: JSContextRef, _ object: JSObjectRef, _ name: String, _ value: JSValueRef?,
                    attributes: JSPropertyAttributes = JSPropertyAttributes(kJSPropertyAttributeNone)) {
        let js = string(name); defer { JSStringRelease(js) }
        JSObjectSetProperty(ctx, object, js, value, attributes, nil)
    }

    /// Builds a JS Error with `message` (what native failures become inside JS).
    static func makeError(_ ctx: JSContextRef, _ message: String) -> JSValueRef {
        var arg: JSValueRef? = makeString(ctx, message)
        return JSObjectMakeError(ctx, 1, &arg, nil)
    }

    static func array(_ ctx: JSContextRef, _ values: [JSValueRef?]) -> JSObjectRef {
        values.withUnsafeBufferPointer { buf in
            JSObjectMakeArray(ctx, values.count, buf.baseAddress, nil)
        }
    }

    static func isArray(_ ctx: JSContextRef, _ v: JSValueRef) -> Bool { JSValueIsArray(ctx, v) }

    private static let lengthName = JSStringCreateWithUTF8CString("length")

    /// An array-like's `length` as a count: 0 when it is no positive number, at most 2^32 − 1.
    /// A script sets any value (`{length: NaN}`, `{length: 1e300}`), and `Int(_: Double)` traps on
    /// those: passing such an object where an array was expected crashed the app.
    static func arrayLength(_ ctx: JSContextRef, _ object: JSObjectRef) -> Int {
        let length = JSValueToNumber(ctx, JSObjectGetProperty(ctx, object, lengthName, nil), nil)
        guard length.isFinite, length >= 1 else { return 0 }
        return Int(min(length, 4_294_967_295))
    }

    /// The same, refused past `limit`: a script's array can be 2^32 − 1 long (`a.length =
    /// 4294967295`), and a native loop over it is one no time limit ends.
    static func arrayLength(_ ctx: JSContextRef, _ object: JSObjectRef, atMost limit: Int, _ what: @autoclosure () -> String) throws -> Int {
        let count = arrayLength(ctx, object)
        guard count <= limit else { throw BridgeError("\(what()) has \(count) elements, more than the \(limit) allowed") }
        return count
    }

    static func propertyNames(_ ctx: JSContextRef, _ object: JSObjectRef) -> [String] {
        let names = JSObjectCopyPropertyNames(ctx, object)
        defer { JSPropertyNameArrayRelease(names) }
        return (0..<JSPropertyNameArrayGetCount(names)).map { swiftString(JSPropertyNameArrayGetNameAtIndex(names, $0)) }
    }
}

/// A JavaScript exception caught at the boundary, with its position in the evaluated code.
struct JSException: Error {
    var message: String
    var line: Int?
    var column: Int?
    var sourceURL: String?
    var stack: String?

    init(ctx: JSContextRef, value: JSValueRef) {
        // Messages quote rewritten code (`o.__c(__pe.x||"x") is not a function`): show the user's `o.x`.
        message = Preprocessor.restoreCalls(in: Self.text(ctx, value))
        if let object = JSValueToObject(ctx, value, nil), !JSValueIsString(ctx, value) {
            let line = JSC.get(ctx, object, "line"), column = JSC.get(ctx, object, "column")
            if JSValueIsNumber(ctx, line) { self.line = Int(JSValueToNumber(ctx, line, nil)) }
            if JSValueIsNumber(ctx, column) { self.column = Int(JSValueToNumber(ctx, column, nil)) }
            let url = JSC.get(ctx, object, "sourceURL")
            if JSValueIsString(ctx, url) { sourceURL = JSC.toString(ctx, url) }
            let stack = JSC.get(ctx, object, "stack")
            if JSValueIsString(ctx, stack) { self.stack = JSC.toString(ctx, stack) }
        }
    }
}

extension JSException {
    /// The exception as text. Its toString runs JS, which fails where the stack is exhausted (a
    /// stack overflow caught deep in JS → Objective-C → JS recursion): then the error's `name`
    /// and `message` properties, which are plain data, read without running JS.
    static func text(_ ctx: JSContextRef, _ value: JSValueRef) -> String {
        var exception: JSValueRef?
        if let js = JSValueToStringCopy(ctx, value, &exception) {
            defer { JSStringRelease(js) }
            return JSC.swiftString(js)
        }
        if let object = JSValueToObject(ctx, value, nil) {
            let name = JSC.get(ctx, object, "name"), message = JSC.get(ctx, object, "message")
            if JSValueIsString(ctx, message) {
                let prefix = JSValueIsString(ctx, name) ? JSC.toString(ctx, name) + ": " : ""
                return prefix + JSC.toString(ctx, message)
            }
        }
        return "an exception that cannot be shown as text"
    }

    /// The innermost frame of the JS stack trace that lies outside `excluded` (the engine's own
    /// runtime.js): where an error raised on a script's behalf happened in that script.
    /// JavaScriptCore writes frames as `function@url:line:column`.
    func innermostFrame(outside excluded: Set<String>) -> (url: String, line: Int, column: Int)? {
        guard let stack else { return nil }
        for frame in stack.split(separator: "\n") {
            let location = frame.lastIndex(of: "@").map { frame[frame.index(after: $0)...] } ?? frame[...]
            let parts = location.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count >= 3, let line = Int(parts[parts.count - 2]), let column = Int(parts[parts.count - 1]) else { continue }
            let url = parts[..<(parts.count - 2)].joined(separator: ":")
            if url.isEmpty || excluded.contains(url) { continue }
            return (url, line, column)
        }
        return nil
    }

    /// Where the error is in the user's source: JavaScriptCore's position in the rewritten code
    /// (a syntax error's missing column located from its message), mapped back through `map`.
    func originalPosition(in map: Preprocessed?) -> (line: Int?, column: Int?) {
        guard let line else { return (nil, column) }
        var column = self.column
        if column == nil, message.hasPrefix("SyntaxError"), let code = map?.code {
            column = SyntaxErrorColumn.locate(message: message, line: line, in: code)
        }
        guard let column, let map else { return (line, column) }
        let original = map.originalPosition(line: line, column: column)
        return (original.line, original.column)
    }
}

/// Carries a value the compiler can't prove Sendable across a dispatch; the caller guarantees safety.
struct UncheckedSendable<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
