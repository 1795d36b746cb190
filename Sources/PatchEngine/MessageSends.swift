import CJavaScriptCore
import PatchRuntime

/// The fast path of JS → Objective-C message sends.
///
/// runtime.js turns `o.name(args)` into `N.send(receiver, selectorNumber, args...)`: the number
/// comes from `N.sendSelector(name, argumentCount)` once per name and argument count, so a send
/// does no name → selector conversion, builds no argument array, and finds its (class, selector)
/// call site through a one-entry cache kept per selector. Patches, hooks and reverts are seen
/// because the send is a real message send: nothing about the implementation is cached, only the
/// method's types, which overrides keep.
final class SendSelectors {
    struct Entry {
        let selector: String
        var cachedClass: UnsafeMutableRawPointer?
        var cachedSite: Engine.CallSite?
    }

    /// Read and written only from JS → native calls, which JavaScriptCore's API lock serialises:
    /// that lock is this table's lock.
    fileprivate var entries: [Entry] = []
    fileprivate var numbers: [String: Int] = [:]
}

extension Engine {
    /// `N.send`: a C callback (no Swift closure box, no argument array).
    static let sendFunction: JSObjectCallAsFunctionCallback = { _, _, _, argc, argv, exception in
        Engine.shared.send(argc, argv, exception)
    }

    /// `N.sendSelector(name, argc)`: the number `send` takes for the selector of a JS name.
    func sendSelectorNumber(jsName: String, argumentCount: Int) -> Int {
        let selector = SelectorName.selector(jsName: jsName, argumentCount: argumentCount)
        if let number = sendSelectors.numbers[selector] { return number }
        sendSelectors.entries.append(.init(selector: selector))
        sendSelectors.numbers[selector] = sendSelectors.entries.count - 1
        return sendSelectors.entries.count - 1
    }

    private func send(_ argc: Int, _ argv: UnsafePointer<JSValueRef?>?,
                      _ exception: UnsafeMutablePointer<JSValueRef?>?) -> JSValueRef? {
        do {
            guard argc >= 2, let argv, let receiverValue = argv[0], let numberValue = argv[1] else {
                throw BridgeError("send: a receiver and a selector number are required")
            }
            let number = valueBits.isUsable ? valueBits.int32(numberValue).map(Int.init) ?? -1
                                            : Int(JSValueToNumber(ctx, numberValue, nil))
            guard number >= 0 && number < sendSelectors.entries.count else { throw BridgeError("send: no selector \(number)") }
            let selector = sendSelectors.entries[number].selector
            let args = UnsafeBufferPointer(start: argv + 2, count: argc - 2)
            guard let receiver = unbox(receiverValue) else {
                if (JSValueIsBoolean(ctx, receiverValue) && !JSValueToBoolean(ctx, receiverValue)) || isZeroedWeakBox(receiverValue) {
                    return JSValueMakeBoolean(ctx, false)   // a message to nil
                }
                throw BridgeError("cannot send \(selector) to \(jsTypeName(receiverValue)): not an Objective-C object")
            }
            let site = try sendSite(number, receiver)
            if args.count > site.signature.argumentCount - 2, VariadicMethods.isVariadic(selector) {
                return try invokeVariadic(receiver, selector, site.signature, args)
            }
            return try invoke(receiver, selector, site.signature, args, kind: .send, site: site)
        } catch {
            exception?.pointee = JSC.makeError(ctx, "\(error)")
            return undefinedValue
        }
    }

    /// The call site of selector `number` for the receiver's class: the selector's last class, or
    /// the engine's table (which also keeps classes answering through forwarding uncached).
    @inline(__always)
    private func sendSite(_ number: Int, _ receiver: UnsafeMutableRawPointer) throws -> CallSite {
        let cls = PEObjectGetClass(receiver)
        if let site = sendSelectors.entries[number].cachedSite, sendSelectors.entries[number].cachedClass == cls {
            return site
        }
        let (site, cacheable) = try callSiteAndCacheability(receiver, sendSelectors.entries[number].selector)
        if cacheable {
            sendSelectors.entries[number].cachedClass = cls
            sendSelectors.entries[number].cachedSite = site
        }
        return site
    }
}
