import Foundation
import PatchEngine
import PatchRuntime
import BenchFixtures

/// The subject classes of BenchFixtures (one per kind of treatment, so no row disturbs another's
/// floor) and the treatments: a JS patch or a bare dispatcher slot, through either route.
enum Subject: String, CaseIterable {
    /// Never patched: the floor of the native rows.
    case direct = "PBDirect"
    case patchedForwarding = "PBPatchedForwarding"
    case patchedClosure = "PBPatchedClosure"
    case slotForwarding = "PBSlotForwarding"
    case slotClosure = "PBSlotClosure"

    var className: String { rawValue }
}

/// What the JS patch returns from -constant (the native method returns PB_NATIVE_CONSTANT), so a
/// check can tell that a call really ran the patch.
let patchedConstant: Int32 = 7

/// The selectors every subject implements, in the order of `PBCall`.
let subjectSelectors = ["empty", "constant", "takeObject:", "object"]

/// Prepares subjects on demand and keeps one instance of each for the life of the process.
final class SubjectEnvironment: @unchecked Sendable {
    static let shared = SubjectEnvironment()

    private let lock = NSLock()
    private var instances: [Subject: UnsafeMutableRawPointer] = [:]

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
                  object: function() { return self; }
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
