import Foundation
import PatchEngine
import PatchRuntime
import BenchFixtures

/// The subject classes of BenchFixtures (one per kind of treatment, so no row disturbs another's
/// floor) and the treatments: a JS patch, a bare dispatcher slot or Aspects hooks, through either route.
enum Subject: String, CaseIterable {
    /// Never patched: the floor of the native rows.
    case direct = "PBDirect"
    case patchedForwarding = "PBPatchedForwarding"
    case patchedClosure = "PBPatchedClosure"
    case slotForwarding = "PBSlotForwarding"
    case slotClosure = "PBSlotClosure"
    /// -empty hooked with an empty Before and an empty After block (Aspects API) on the class.
    case hookedClosure = "PBHookedClosure"
    case hookedForwarding = "PBHookedForwarding"
    /// The same hooks on the subject's shared instance only.
    case instanceHookedClosure = "PBInstanceHookedClosure"
    case instanceHookedForwarding = "PBInstanceHookedForwarding"
    /// The same hooks on a subclass that inherits -empty.
    case inheritedHookedClosure = "PBInheritedHookedClosure"
    case inheritedHookedForwarding = "PBInheritedHookedForwarding"

    var className: String { rawValue }
}

/// What the JS patch returns from -constant (the native method returns PB_NATIVE_CONSTANT), so a
/// check can tell that a call really ran the patch.
let patchedConstant: Int32 = 7

/// The selectors every subject implements, in the order of `PBCall`.
let subjectSelectors = ["empty", "constant", "takeObject:", "object", "takeRect:"]

/// Prepares subjects on demand and keeps one instance of each for the life of the process.
final class SubjectEnvironment: @unchecked Sendable {
    static let shared = SubjectEnvironment()

    private let lock = NSLock()
    private var instances: [Subject: UnsafeMutableRawPointer] = [:]
    private var hooked: Set<Subject> = []

    /// The subject's shared instance.
    func instance(_ subject: Subject) throws -> UnsafeMutableRawPointer {
        lock.lock(); defer { lock.unlock() }
        if let object = instances[subject] { return object }
        guard let object = pb_new(subject.className) else {
            throw BenchError("class \(subject.className) is missing from BenchFixtures")
        }
        instances[subject] = object
        return object
    }

    /// Applies the JS patch of every subject method through `route` (unless applied) and checks
    /// that native calls now run JS through that route.
    func patch(_ subject: Subject, route: PERoute) throws {
        if !isPatched(subject) {
            let script = """
                defineClass('\(subject.className)', {
                  empty: function() {},
                  constant: function() { return \(patchedConstant); },
                  takeObject: function(object) {},
                  object: function() { return self; },
                  // Records its argument only while a check is on (see checkStructArgument).
                  takeRect: function(rect) { if (globalThis.pbRectCheck) globalThis.pbLastRect = rect; }
                });
                """
            try withDefaultRoute(route) {
                _ = try PatchEngine.evaluate(script, name: "patchbench-\(subject.className).js")
            }
        }
        try checkRoute(subject, route)
        let object = try instance(subject)
        let constant = try callConstant(object)
        guard constant == patchedConstant else {
            throw BenchError("\(subject.className) -constant returned \(constant) after patching, expected \(patchedConstant) from JS")
        }
        guard try callObject(object) == object else {
            throw BenchError("\(subject.className) -object patched to return self returned another object")
        }
    }

    /// Takes every subject method over with a dispatcher slot that has no patch, through `route`,
    /// and checks calls still reach the original (through the forwarding machinery only when
    /// `route` is forwarding).
    func installSlots(_ subject: Subject, route: PERoute) throws {
        guard let cls = PEClassLookup(subject.className) else { throw BenchError("no class \(subject.className)") }
        try withDefaultRoute(route) {
            for selector in subjectSelectors {
                var error: UnsafeMutablePointer<CChar>?
                guard let slot = PESlotInstall(cls, selector, nil, &error) else {
                    defer { free(error) }
                    throw BenchError("PESlotInstall(\(subject.className), \(selector)) failed: \(error.map { String(cString: $0) } ?? "?")")
                }
                guard PESlotGetPatch(slot) == 0 else {
                    throw BenchError("the slot of \(subject.className) \(selector) has a patch; the floor needs none")
                }
            }
        }
        try checkRoute(subject, route)
        let object = try instance(subject)
        let before = PEDispatchForwardedCallCount()
        let constant = try callConstant(object)
        let forwarded = PEDispatchForwardedCallCount() - before
        guard constant == PB_NATIVE_CONSTANT else {
            throw BenchError("\(subject.className) -constant through an empty slot returned \(constant), expected the original's \(PB_NATIVE_CONSTANT)")
        }
        let expected: UInt64 = route == PERouteForwarding ? 1 : 0
        guard forwarded == expected else {
            throw BenchError("\(subject.className) -constant went through -forwardInvocation: \(forwarded) times, expected \(expected)")
        }
    }

    /// Hooks -empty of the subject's class (or, `perInstance`, of its shared instance only) with an
    /// empty Before and an empty After block through `route` (unless hooked), then checks a pass of
    /// calls: each call ran Before once then After once, with the receiver as the info's instance,
    /// through -forwardInvocation: exactly when `route` is forwarding; per instance, another object
    /// of the class runs no hook.
    func hookEmpty(_ subject: Subject, route: PERoute, perInstance: Bool) throws {
        let object = try instance(subject)
        lock.lock()
        let alreadyHooked = hooked.contains(subject)
        lock.unlock()
        if !alreadyHooked {
            var error: UnsafeMutablePointer<CChar>?
            let ok = withDefaultRoute(route) {
                perInstance ? pb_hook_empty(nil, object, &error) : pb_hook_empty(subject.className, nil, &error)
            }
            if !ok {
                defer { free(error) }
                throw BenchError("hooking \(subject.className) -empty failed: \(error.map { String(cString: $0) } ?? "?")")
            }
            lock.lock(); hooked.insert(subject); lock.unlock()
        }
        guard let cls = PEClassLookup(subject.className), let slot = PESlotFind(cls, "empty") else {
            throw BenchError("\(subject.className) -empty has no dispatcher slot after hooking")
        }
        guard PESlotGetRoute(slot) == route else {
            throw BenchError("\(subject.className) -empty uses route \(PESlotGetRoute(slot).rawValue), expected \(route.rawValue)")
        }
        let calls: UInt64 = 100
        let forwardedPerCall: UInt64 = route == PERouteForwarding ? 1 : 0
        let (counts, forwarded) = try countHooks(object, calls: calls, expectedInstance: object)
        guard counts.before == calls, counts.after == calls, counts.outOfOrder == 0, counts.wrongInstance == 0 else {
            throw BenchError("\(calls) calls of hooked \(subject.className) -empty ran Before \(counts.before)×, After \(counts.after)× "
                             + "(\(counts.outOfOrder) out of order, \(counts.wrongInstance) with another instance); expected each once per call, in order")
        }
        guard forwarded == calls * forwardedPerCall else {
            throw BenchError("\(calls) calls of hooked \(subject.className) -empty went through -forwardInvocation: \(forwarded) times, expected \(calls * forwardedPerCall)")
        }
        if perInstance {
            guard let other = pb_new(subject.className) else { throw BenchError("cannot create a second \(subject.className)") }
            defer { pb_release(other) }
            let (otherCounts, otherForwarded) = try countHooks(other, calls: calls, expectedInstance: other)
            guard otherCounts.before == 0, otherCounts.after == 0 else {
                throw BenchError("hooks of one \(subject.className) ran \(otherCounts.before + otherCounts.after) times for another instance")
            }
            guard otherForwarded == calls * forwardedPerCall else {
                throw BenchError("another \(subject.className) went through -forwardInvocation: \(otherForwarded) times in \(calls) calls")
            }
        }
    }

    /// Calls -empty `calls` times while the hook blocks count; also returns how many calls went
    /// through -forwardInvocation:.
    private func countHooks(_ object: UnsafeMutableRawPointer, calls: UInt64,
                            expectedInstance: UnsafeMutableRawPointer) throws -> (PBHookCounts, UInt64) {
        var error: UnsafeMutablePointer<CChar>?
        let forwardedBefore = PEDispatchForwardedCallCount()
        pb_hook_counting_begin(expectedInstance)
        let elapsed = pb_time_calls(object, PBCallEmpty, calls, &error)
        let counts = pb_hook_counting_end()
        let forwarded = PEDispatchForwardedCallCount() - forwardedBefore
        if elapsed < 0 {
            defer { free(error) }
            throw BenchError("hooked -empty raised \(error.map { String(cString: $0) } ?? "?")")
        }
        return (counts, forwarded)
    }

    private func isPatched(_ subject: Subject) -> Bool {
        guard let cls = PEClassLookup(subject.className) else { return false }
        return subjectSelectors.allSatisfy { selector in
            PESlotFind(cls, selector).map { PESlotGetPatch($0) != 0 } ?? false
        }
    }

    private func checkRoute(_ subject: Subject, _ route: PERoute) throws {
        guard let cls = PEClassLookup(subject.className) else { throw BenchError("no class \(subject.className)") }
        for selector in subjectSelectors {
            guard let slot = PESlotFind(cls, selector) else {
                throw BenchError("\(subject.className) \(selector) has no dispatcher slot")
            }
            guard PESlotGetRoute(slot) == route else {
                throw BenchError("\(subject.className) \(selector) uses route \(PESlotGetRoute(slot).rawValue), expected \(route.rawValue)")
            }
        }
    }

    private func callConstant(_ object: UnsafeMutableRawPointer) throws -> Int32 {
        var error: UnsafeMutablePointer<CChar>?
        let value = pb_call_constant(object, &error)
        if let error { defer { free(error) }; throw BenchError("-constant raised \(String(cString: error))") }
        return value
    }

    private func callObject(_ object: UnsafeMutableRawPointer) throws -> UnsafeMutableRawPointer? {
        var error: UnsafeMutablePointer<CChar>?
        let value = pb_call_object(object, &error)
        if let error { defer { free(error) }; throw BenchError("-object raised \(String(cString: error))") }
        return value
    }
}

/// Runs `body` with `route` as the dispatcher's default for new slots, then restores the default.
func withDefaultRoute<T>(_ route: PERoute, _ body: () throws -> T) rethrows -> T {
    let previous = PEGetDefaultRoute()
    PESetDefaultRoute(route)
    defer { PESetDefaultRoute(previous) }
    return try body()
}
