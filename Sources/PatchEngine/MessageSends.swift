import CJavaScriptCore
import Foundation
import PatchRuntime
import PatchSupport

/// The selector numbers of JS → Objective-C sends, and each one's last call site.
///
/// runtime.js turns `o.name(args)` into `N.send(receiver, selectorNumber, args...)`: the number
/// comes from `N.sendSelector(name, argumentCount)` once per name and argument count, so a send
/// does no name → selector conversion and builds no argument array. Sends run on any thread at
/// once (JavaScriptCore drops its lock around native callbacks), so the hot data is in fixed
/// buffers read without a lock: a number's selector is written before the count that publishes
/// it, and its site cache is one word pointing at a call-site record that lives for the process.
final class SendSelectors: @unchecked Sendable {
    /// Distinct (name, argument count) pairs a process may send; scripts use a few thousand.
    static let capacity = 1 << 16

    private let selectors: UnsafeMutablePointer<UnsafeRawPointer?>
    private let sites: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    private let published: UnsafeMutablePointer<UInt32>
    /// Selector name → number, and each number's name (for errors and the general path).
    private let names = LockedValue<(numbers: [String: Int], names: [String])>(([:], []))

    init() {
        // Zeroed pages are only backed by memory once written.
        selectors = calloc(Self.capacity, MemoryLayout<UnsafeRawPointer?>.stride)!.assumingMemoryBound(to: UnsafeRawPointer?.self)
        sites = calloc(Self.capacity, MemoryLayout<UnsafeMutableRawPointer?>.stride)!.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
        published = .allocate(capacity: 1)
        published.initialize(to: 0)
    }

    /// The number of `selector`, made on first use.
    func number(for selector: String) throws -> Int {
        try names.withLock { table in
            if let number = table.numbers[selector] { return number }
            let number = table.names.count
            guard number < Self.capacity else {
                throw BridgeError("more than \(Self.capacity) distinct messages sent from JS")
            }
            table.names.append(selector)
            table.numbers[selector] = number
            selectors[number] = PESelectorRegister(selector)
            PEAtomicStoreUInt32(published, UInt32(number + 1))
            return number
        }
    }

    /// The registered selector of `number`, or nil when no such number was handed out.
    @inline(__always) func selector(_ number: Int) -> UnsafeRawPointer? {
        guard number >= 0, number < Int(PEAtomicLoadUInt32(published)) else { return nil }
        return selectors[number]
    }

    func name(_ number: Int) -> String { names.withLock { $0.names[number] } }

    @inline(__always) func cachedSite(_ number: Int) -> UnsafeMutablePointer<Engine.CallSite>? {
        PEAtomicLoadPointer(sites + number)?.assumingMemoryBound(to: Engine.CallSite.self)
    }

    @inline(__always) func cache(_ site: UnsafeMutablePointer<Engine.CallSite>, for number: Int) {
        PEAtomicStorePointer(sites + number, UnsafeMutableRawPointer(site))
    }
}

extension Engine {
    /// `N.send`: a C callback (no Swift closure box, no argument array).
    static let sendFunction: JSObjectCallAsFunctionCallback = { ctx, _, _, argc, argv, exception in
        Engine.with(ctx!) { engine in
            engine.afterLockDrop {
                if engine.refusedDuringReplay(ctx!, exception) { return JSValueMakeUndefined(ctx) }
                return engine.send(argc, argv, exception)
            }
        }
    }

    /// `N.sendSelector(name, argc)`: the number `send` takes for the selector of a JS name.
    func sendSelectorNumber(jsName: String, argumentCount: Int) throws -> Int {
        try sendSelectors.number(for: SelectorName.selector(jsName: jsName, argumentCount: argumentCount))
    }

    private func send(_ argc: Int, _ argv: UnsafePointer<JSValueRef?>?,
                      _ exception: UnsafeMutablePointer<JSValueRef?>?) -> JSValueRef? {
        do {
            guard argc >= 2, let argv, let receiverValue = argv[0], let numberValue = argv[1] else {
                throw BridgeError("send: a receiver and a selector number are required")
            }
            let number = shortcuts.int32(numberValue, ctx).map(Int.init) ?? -1
            guard sendSelectors.selector(number) != nil else { throw BridgeError("send: no selector \(number)") }
            let args = UnsafeBufferPointer(start: argv + 2, count: argc - 2)
            guard let receiver = unbox(receiverValue) else {
                if shortcuts.isFalse(receiverValue, ctx) || isZeroedWeakBox(receiverValue) {
                    return shortcuts.makeBoolean(false, ctx)   // a message to nil
                }
                throw BridgeError("cannot send \(sendSelectors.name(number)) to \(jsTypeName(receiverValue)): not an Objective-C object")
            }
            let site = try sendSite(number, receiver)
            if site.isRegisterOnly, args.count <= site.argumentCount {
                return try sendInRegisters(receiver, site, args, number: number)
            }
            let selector = sendSelectors.name(number)
            if args.count > site.argumentCount, VariadicMethods.isVariadic(selector) {
                return try invokeVariadic(receiver, selector, site.signature, args)
            }
            return try invoke(receiver, selector, site.signature, args, kind: .send, site: site)
        } catch {
            exception?.pointee = JSC.makeError(ctx, "\(error)")
            return undefinedValue
        }
    }

    /// The call site of selector `number` for the receiver's class: the selector's last one, or
    /// the engine's table (which also keeps classes answering through forwarding uncached).
    @inline(__always)
    private func sendSite(_ number: Int, _ receiver: UnsafeMutableRawPointer) throws -> CallSite {
        let cls = PEObjectGetClass(receiver)
        if let cached = sendSelectors.cachedSite(number), cached.pointee.cls == cls { return cached.pointee }
        let (site, record) = try callSiteRecord(receiver, sendSelectors.name(number))
        if let record { sendSelectors.cache(record, for: number) }
        return site
    }

    /// A send whose arguments and result all fit general-purpose registers: converted straight
    /// into them, the implementation called with no frame and no libffi (`PEMessageSendRegisters`).
    /// Values that aren't boxes, nil, numbers or booleans are converted exactly as a framed call
    /// converts them (`fromJS` / `toJS`).
    private func sendInRegisters(_ receiver: UnsafeMutableRawPointer, _ site: CallSite,
                                 _ args: UnsafeBufferPointer<JSValueRef?>, number: Int) throws -> JSValueRef {
        let signature = site.signature
        let expected = site.argumentCount
        let pool = PEPoolBatchEnter()
        defer { PEPoolBatchExit(pool) }
        func argument(_ i: Int) throws -> UInt {
            let value = i < args.count ? args[i] ?? undefinedValue : undefinedValue
            return try registerValue(of: value, signature.argument(i + 2),
                                     what: "argument \(i + 1) of \(methodDescription(receiver, sendSelectors.name(number)))")
        }
        var registers = (UInt(bitPattern: receiver), UInt(bitPattern: site.selector), UInt(0), UInt(0), UInt(0), UInt(0))
        // Only the arguments the method takes are converted (a call per unused register cost a
        // -empty send ≈ 6 ns); a register-only signature has at most four.
        try withUnsafeMutableBytes(of: &registers) { raw in
            let slots = raw.bindMemory(to: UInt.self)
            for i in 0..<4 where i < expected { slots[i + 2] = try argument(i) }
        }
        if site.family == .initializer { _ = PEObjectRetain(receiver) }   // init consumes its receiver
        var result: UInt = 0
        var error: UnsafeMutablePointer<CChar>?
        let ok = withUnsafeMutableBytes(of: &registers) {
            PEMessageSendRegisters($0.baseAddress!.assumingMemoryBound(to: UInt.self), &result, &error)
        }
        if !ok {
            if site.family == .initializer { PEObjectRelease(receiver) }
            let message = error.map { String(cString: $0) } ?? "unknown error"
            free(error)
            throw BridgeError("\(methodDescription(receiver, sendSelectors.name(number))) raised \(message)")
        }
        switch site.returnKind {
        case .void:
            return undefinedValue
        case .object:
            let object = UnsafeMutableRawPointer(bitPattern: result)
            let value = objectToJS(object)
            if site.family.returnsRetained { PEObjectRelease(object) }   // the box holds its own reference
            return value
        default:
            return try jsValue(ofRegister: result, signature.returnType)
        }
    }
}
