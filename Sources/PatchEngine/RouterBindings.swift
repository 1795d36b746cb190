import CJavaScriptCore
import Foundation
import PatchRouter

/// Routes from patch scripts (`routes.add / replace / remove / route`), e.g. to send a broken deep
/// link to a working screen. Every change belongs to the script's transaction: reverting the script
/// removes the routes it added and puts back the app's routes it replaced or removed.
extension Engine {
    private func router(_ options: JSValueRef) -> Router {
        if let object = JSValueToObject(ctx, options, nil) {
            let scheme = JSC.get(ctx, object, "scheme")
            if JSValueIsString(ctx, scheme) { return Router.routes(forScheme: JSC.toString(ctx, scheme)) }
        }
        return Router.global
    }

    private func priority(_ options: JSValueRef) -> Int {
        guard let object = JSValueToObject(ctx, options, nil) else { return 0 }
        let value = JSC.get(ctx, object, "priority")
        return JSValueIsNumber(ctx, value) ? Int(JSValueToNumber(ctx, value, nil)) : 0
    }

    /// A route handler that runs `function` with the parameters as a JS object.
    private func routeHandler(_ function: JSObjectRef, script: String) -> Router.Handler {
        let record = JSBlockHandle(ctx: ctx, function: function)
        return { [unowned self] parameters in
            let pool = PEPoolPushForRoute()
            defer { PEPoolPopForRoute(pool) }
            do {
                let result = try call(record.function, [swiftToJS(parameters)])
                return JSValueToBoolean(ctx, result)
            } catch {
                report(patchError(error, script: script, context: "route handler"))
                revertIfTimedOut(error, script: script)
                return false
            }
        }
    }

    func routeAdd(_ pattern: String, _ function: JSObjectRef, options: JSValueRef, replacing: Bool) throws -> JSValueRef {
        let router = router(options)
        let script = currentScript()
        let taken = replacing ? router.takeRoutes(pattern: pattern) : nil
        let token: RouteToken
        do {
            token = try router.addRoute(pattern, priority: priority(options), handler: routeHandler(function, script: script))
        } catch {
            if let taken { router.restoreRoutes(taken) }
            throw BridgeError("routes.\(replacing ? "replace" : "add")('\(pattern)'): \(error)")
        }
        transactions.record(.custom(description: "route \(pattern)", undo: {
            router.removeRoute(token)
            if let taken { router.restoreRoutes(taken) }
        }), script: script)
        let tokenObject = JSObjectMake(ctx, nil, nil)!
        addFunction(tokenObject, "remove") { [unowned self] _, _, _ in
            JSValueMakeBoolean(ctx, router.removeRoute(token))
        }
        return tokenObject
    }

    func routeRemove(_ pattern: String, options: JSValueRef) -> JSValueRef {
        let router = router(options)
        let taken = router.takeRoutes(pattern: pattern)
        if !taken.isEmpty {
            transactions.record(.custom(description: "remove route \(pattern)", undo: { router.restoreRoutes(taken) }),
                                script: currentScript())
        }
        return JSValueMakeNumber(ctx, Double(taken.definitions.count))
    }

    func routeURL(_ urlString: String, parameters: JSValueRef) throws -> JSValueRef {
        guard let url = URL(string: urlString) else { throw BridgeError("routes.route: '\(urlString)' is not a URL") }
        var extra: [String: Any] = [:]
        if let object = JSValueToObject(ctx, parameters, nil), !JSValueIsNull(ctx, parameters) {
            for key in JSC.propertyNames(ctx, object) {
                extra[key] = toSwift(JSC.get(ctx, object, key)) ?? NSNull()
            }
        }
        return JSValueMakeBoolean(ctx, Router.routeURL(url, parameters: extra))
    }

    /// Swift values (route parameters) as JS.
    func swiftToJS(_ value: Any?) -> JSValueRef {
        switch value {
        case nil, is NSNull: return JSValueMakeNull(ctx)
        case let s as String: return JSC.makeString(ctx, s)
        case let b as Bool: return JSValueMakeBoolean(ctx, b)
        case let n as Int: return JSValueMakeNumber(ctx, Double(n))
        case let d as Double: return JSValueMakeNumber(ctx, d)
        case let u as URL: return JSC.makeString(ctx, u.absoluteString)
        case let array as [Any]: return JSC.array(ctx, array.map { swiftToJS($0) })
        case let dict as [String: Any]:
            let object = JSObjectMake(ctx, nil, nil)!
            for (k, v) in dict { JSC.set(ctx, object, k, swiftToJS(v)) }
            return object
        case let object as ObjCObject: return box(object.pointer)
        default: return JSC.makeString(ctx, "\(value!)")
        }
    }
}

/// Keeps a JS function alive for as long as a Swift closure holds it.
final class JSBlockHandle: @unchecked Sendable {
    let function: JSObjectRef
    private let ctx: JSContextRef
    init(ctx: JSContextRef, function: JSObjectRef) {
        self.ctx = ctx
        self.function = function
        JSValueProtect(ctx, function)
    }
    deinit { JSValueUnprotect(ctx, function) }
}

import PatchRuntime
private func PEPoolPushForRoute() -> UnsafeMutableRawPointer? { PEPoolPush() }
private func PEPoolPopForRoute(_ pool: UnsafeMutableRawPointer?) { PEPoolPop(pool) }
