import CJavaScriptCore
import Foundation
import CPatchEngine
import PatchRuntime
import PatchSupport

/// The engine's JavaScript VMs: the main one (`Engine.shared`, where scripts are evaluated) and
/// secondary ones, made when a thread's patched call finds every VM in use by other threads.
///
/// Why: JavaScriptCore drops a VM's API lock around each native callback and takes it back last
/// dropped, first back, across threads. Two threads in one VM wait for each other: a patched call
/// whose native call has returned waits until every thread that called out later is back, and two
/// such calls deadlock when the later one waits for the earlier one (docs/threads.md). A VM used
/// by one thread at a time never makes a thread wait for another.
///
/// How: a thread outside every entry claims a VM no thread is in (`Engine.occupancy` 0 → 1, the
/// main VM first, with its entry counted at once: `claimWithEntryIfFree`), runs its patched call
/// there and gives the VM back; native → JS calls made
/// inside stay in that VM (`PEThreadEngineCurrent`). A secondary VM catches up with the applied
/// scripts before it runs a call (`Replay`). Past `maximum` VMs a thread shares the main VM: the
/// coupling above comes back for it, nothing fails.
final class VMPool: @unchecked Sendable {
    /// VMs the pool makes at most, the main one included: each costs ≈ 1 MB and its start
    /// (docs/threads.md, "A VM per thread running JS").
    static let defaultMaximum = 8
    /// The most `maximum` can be: per-VM tables are this long (`JSMethod`'s functions).
    static let capacity = 32

    private struct State {
        var secondaries: [Engine] = []
        var maximum = VMPool.defaultMaximum
    }
    private let state = LockedValue(State())
    /// Held while a VM is made: serialises making VMs (a thread waiting here needs one anyway).
    /// Guards no value of its own (`state` holds the VMs); held across `Engine.start` of a VM no
    /// other thread can see yet.
    private let making = LockedValue<Void>(())

    /// `Engine.withFreeVM` when the main VM is in use: a secondary VM (made if needed, up to
    /// `maximum`), else the main VM shared.
    func withSecondaryVM<R>(_ main: Engine, _ body: (Engine) -> R) -> R {
        guard let engine = claimSecondary(main) else { return body(main) }
        defer { engine.giveBack() }
        #if DEBUG
        PEStressPoint()   // a revert or an apply may change what the catch-up must replay
        #endif
        engine.catchUp()
        return body(engine)
    }

    /// A secondary VM with this thread counted in it, or nil when all `maximum` are in use.
    private func claimSecondary(_ main: Engine) -> Engine? {
        if let engine = claimExisting() { return engine }
        return making.withLock { _ in
            claimExisting() ?? makeVM(main)   // one may have been given back meanwhile
        }
    }

    /// A new secondary VM with this thread counted in it, or nil at `maximum`. Under `making`.
    private func makeVM(_ main: Engine) -> Engine? {
        let (count, maximum) = state.withLock { ($0.secondaries.count, $0.maximum) }
        guard count + 1 < maximum else { return nil }
        let engine = Engine(main: main, index: count + 1)
        engine.occupancy.pointee = 1   // this thread's, before any other thread can see it
        engine.start()
        #if DEBUG
        if let hook = Self.beforeListingForTests.withLock({ $0 }) { hook() }
        #endif
        // Limits taken once the VM is listed: a limit set meanwhile (`PatchEngine.executionTimeLimit`
        // sets the main VM's, then every listed VM's) is then either taken here or set there; taken
        // before the listing, such a change missed the VM, which kept the old bounds (none, say).
        state.withLock { $0.secondaries.append(engine) }
        engine.takeLimits(from: main)
        return engine
    }

    #if DEBUG
    /// Tests: runs on the thread making a secondary VM, after its start and before it is listed.
    static let beforeListingForTests = LockedValue<(@Sendable () -> Void)?>(nil)
    #endif

    /// Makes secondary VMs until there are `count` (at most `maximum` − 1) and brings every free
    /// one up to the applied scripts, so that threads don't pay for it on their first patched call.
    func prepare(_ count: Int) {
        let main = Engine.shared
        while true {
            // The replay runs outside `making`: a class it looks up may run app code (+initialize)
            // that makes a patched call, which may need a VM.
            guard let engine = making.withLock({ _ in secondaries.count < count ? makeVM(main) : nil }) else { break }
            engine.catchUp()
            engine.giveBack()
        }
        forEachFreeSecondary(withinMaximum: true) { $0.catchUp() }
    }

    /// Runs `body` on each secondary VM no thread is in, claimed for the calling thread meanwhile
    /// (a VM in use is skipped); `withinMaximum`: only those within `maximum`.
    func forEachFreeSecondary(withinMaximum: Bool, _ body: (Engine) -> Void) {
        let (engines, maximum) = state.withLock { ($0.secondaries, $0.maximum) }
        for engine in engines where (!withinMaximum || engine.index < maximum) && engine.claimIfFree() {
            body(engine)
            engine.giveBack()
        }
    }

    /// A free secondary VM within `maximum` (one made before it was lowered stays unused).
    private func claimExisting() -> Engine? {
        let (engines, maximum) = state.withLock { ($0.secondaries, $0.maximum) }
        for engine in engines where engine.index < maximum && engine.claimIfFree() {
            return engine
        }
        return nil
    }

    var secondaries: [Engine] { state.withLock { $0.secondaries } }

    var maximum: Int {
        get { state.withLock { $0.maximum } }
        set { state.withLock { $0.maximum = min(max(1, newValue), VMPool.capacity) } }
    }

    /// The VM of `index` (0: the main one).
    func vm(_ index: Int) -> Engine? {
        index == 0 ? Engine.shared : state.withLock { index - 1 < $0.secondaries.count ? $0.secondaries[index - 1] : nil }
    }

    /// The engine of a VM (by its context group), or nil if it is not one of the pool's.
    func engine(ofGroup group: JSContextGroupRef) -> Engine? {
        if Engine.shared.contextGroup == group { return Engine.shared }
        return secondaries.first { $0.contextGroup == group }
    }
}

extension Engine {
    /// Runs `body` with a VM this thread holds alone, if there is one: the main VM when no thread
    /// is in it, else a secondary one (made if needed, up to `VMPool.maximum`), else the main VM
    /// shared. The usual case (the main VM free) touches no property of the pool: no retain of it
    /// per call.
    @inline(__always) static func withFreeVM<R>(_ body: (Engine) -> R) -> R {
        #if DEBUG
        PEStressPoint()   // another thread may claim or give back a VM meanwhile
        #endif
        let main = Engine.shared
        if main.claimWithEntryIfFree() {
            let outer = PEThreadClaimedEngineSwap(Unmanaged.passUnretained(main).toOpaque())
            defer {
                PEThreadClaimedEngineSwap(outer)
                main.giveBackWithEntry()
            }
            return body(main)
        }
        return main.pool.withSecondaryVM(main, body)
    }

    /// Runs `body` with the engine whose VM `ctx` belongs to: the thread's current one (a native
    /// callback runs inside its VM's entry), else found in the pool. The thread's current engine
    /// is lent without a retain (engines live as long as the process): its retain and release
    /// were ≈ a fifth of a JS → Objective-C send's own time (`N.send`, perf).
    @inline(__always) static func with<R>(_ ctx: JSContextRef, _ body: (Engine) -> R) -> R {
        let group = JSContextGetGroup(ctx)
        if let current = PEThreadEngineCurrent() {
            let engine = Unmanaged<Engine>.fromOpaque(current)
            if engine._withUnsafeGuaranteedRef({ $0.contextGroup == group }) {
                return engine._withUnsafeGuaranteedRef(body)
            }
        }
        return body(group.flatMap { shared.pool.engine(ofGroup: $0) } ?? shared)
    }

    /// Every VM of the process, the main one first.
    var allVMs: [Engine] { [Engine.shared] + pool.secondaries }
}
