import CJavaScriptCore
import CPatchEngine
import Foundation
import PatchRuntime
import PatchSupport

/// The execution time limit and the heap growth limit of one VM (the engine's context group),
/// applied per thread entry, and the recognition of the terminations they cause.
///
/// An entry into JS costs them one store: the outermost entry of a thread resets the VM's
/// check-point counter (`counter`, `__peTick[0]` to scripts). The preprocessor puts a check point
/// at the start of every loop body and every function body of every script (`Preprocessor.prepare`):
/// a decrement of that counter, which calls `tock` (`__peTock`) when it reaches zero. So an entry
/// that runs `ticksToFirstCheck` check points reaches its first tock; short entries (a patched
/// call) never do. Where the watchdog's end was asked for (`PatchEngine.LimitEnd.watchdog`),
/// JavaScriptCore's watchdog exists (made and cleared at start) but has no limit set between
/// checks, so JavaScriptCore's entry reads no clock (`Watchdog::enteredVM` only tests
/// `hasTimeLimit()`): the ≈ 0.75 µs its per-entry clock read and timer cost is gone.
///
/// At its first tock (on the running thread) the engine reads the thread's CPU clock: the entry's
/// time counts from there (`PEThreadEntryClock`), like its heap growth, and the entry is measured
/// by the limits' monitor (`LimitMonitor`) until it ends: the monitor nudges it to its next tock
/// when its time is due and when the process grew past the heap budget, and each tock judges the
/// entry by its own thread's clock (`timeLeft`). Past a bound, with the watchdog, the engine asks
/// JavaScriptCore to end the entry (`requestEnd`): JavaScriptCore's watchdog armed with a negative
/// limit (`endLimit`), its callback saying yes only for that entry and parking the watchdog
/// (`park`), and JavaScriptCore throws its uncatchable "JavaScript execution terminated." there.
/// That is the only arming of the watchdog: nothing periodic runs through it, so none of its
/// timers can fire while its trap handling runs (docs/limits.md, "The watchdog only ends"). The
/// thread's outermost `endEntry` clears the watchdog when an end armed it and ends the measure
/// (one branch on the hot path).
///
/// A termination inside a nested entry also ends the JS around it on that thread (seen with
/// WebKitGTK 2.50: the enclosing evaluation gets the same termination exception as soon as it
/// resumes); the thread stays marked until its outermost entry ends. JavaScriptCore keeps a
/// termination in force until the VM's outermost entry ends: JS another thread runs meanwhile is
/// ended too, without being asked about (`Termination.otherThreads`); that thread's script is not
/// blamed for it. An innocent entry is never ended by the engine's callback: it says yes only for
/// the entry that is past its own bound.
///
/// By default (`PatchEngine.LimitEnd.exception`; always where JavaScriptCore's watchdog functions
/// are missing, as in an App Store build: they are private) no watchdog is made, and the limits end
/// an entry with an exception instead (`endsByThrowing`): the tock marks
/// the thread's entry ended, sets the counter to 0 and throws "JavaScript execution terminated.";
/// every later check point of that entry throws it again, so a script that catches it gets no
/// further than its next loop turn or function call, and the entry counts as ended whatever its
/// JS returns (`termination(of:)`, `Engine.settled`). JS can't be stopped from outside there; a
/// check point is where every loop and call meets the limits (docs/limits.md, "The end: an
/// exception by default").
final class ExecutionTimeLimit: @unchecked Sendable {
    private let group: JSContextGroupRef
    private let setFunction: PEJSSetExecutionTimeLimitFunction?
    private let clearFunction: PEJSClearExecutionTimeLimitFunction?
    /// What any thread may read or set: the limit the app set (nil: off), and JavaScriptCore's
    /// termination exception, once seen (the VM throws the same value every time; scripts never
    /// get hold of it: it can't be caught).
    private struct Settings {
        var limit: TimeInterval?
        var terminationValue: JSValueRef?
    }
    private let settings = LockedValue(Settings())
    /// The heap growth limit, checked at the same checks.
    let heapGrowth = HeapGrowthLimit()
    /// The VM's check-point counter: native memory, which scripts see as `__peTick[0]` (an
    /// `Int32Array` over it, `installCheckPoints`), and after it the threshold the check points
    /// compare it with (`__peTick[1]`), which the monitor raises to nudge (`PECheckPointsNudge`).
    /// One per VM, for the VM's life.
    let counter: UnsafeMutablePointer<Int32>
    /// The number of the last outermost entry begun in the VM (`PEThreadEntryBegin`), which
    /// `LimitMonitor` watches: a stamp that stays while an entry is open is an entry that runs long.
    private let stamp: UnsafeMutablePointer<UInt64>
    /// Guarded by the API lock (`set`, `arm` and `tock` take it; entries hold it):
    /// the time limit in force (0: off), whether the heap limit is on, what an entry's counter
    /// starts at. Without JavaScriptCore's API lock functions (the App Store configuration) an
    /// entry on another thread reads them before or after a change (`arm` writes each whole);
    /// entries open then take the new bounds at their next check point (`nudge`).
    private var armedLimit: TimeInterval = 0
    private var heapOn = false
    @exclusivity(unchecked) private var entryTicks: Int32 = .max
    /// Whether JavaScriptCore's watchdog has a limit now (an end was asked for).
    @exclusivity(unchecked) private var watchdogArmed = false
    /// How many entries of this VM the monitor measures (threads sharing the VM each have theirs).
    /// Changed atomically: without JavaScriptCore's API lock functions (the App Store
    /// configuration) the threads sharing a VM begin, tock and end their entries at once, and a
    /// count that lost a change left a measure behind its entry (or skipped one's end).
    private let measures: UnsafeMutablePointer<Int>
    /// The entry the engine last asked JavaScriptCore's watchdog to end.
    private var endRequested: UInt64 = 0
    /// Whether the last end's timer has not been handled yet (the callback clears it), and when it
    /// was armed (uptime).
    private var endArmPending = false
    private var endArmedAt: TimeInterval = 0
    /// What ended an entry, for its error, per entry: the heap growth it was ended for, and the
    /// script of the method running when its end was first thrown (`endsByThrowing`: the ended JS
    /// then runs its `finally` blocks, runtime.js's among them, which forget the method). Per
    /// entry, since threads sharing the VM can be ended one after another before the first reports
    /// (one slot for the VM gave the first the second's: its heap growth reported as a timeout).
    /// Kept until the entry's outermost end (`outermostEntryEnded`; an ended entry is measured).
    /// Behind a lock of its own: without JavaScriptCore's API lock functions (the App Store
    /// configuration) two threads' tocks in a shared VM can run at once. Touched only when an
    /// entry is ended, or a measured one ends.
    private struct Ends {
        var heap: [UInt64: HeapGrowthExceeded] = [:]
        var thrown: [UInt64: String?] = [:]
        /// More entries than threads can have open at once: records left by an entry that never
        /// reached its outermost end here are dropped (its error then names no running method).
        static let capacity = 256
        mutating func makeRoom() {
            if heap.count >= Self.capacity { heap.removeAll() }
            if thrown.count >= Self.capacity { thrown.removeAll() }
        }
        mutating func forget(_ entry: UInt64) {
            heap[entry] = nil
            thrown[entry] = nil
        }
    }
    private let ends = LockedValue(Ends())

    /// The text of JavaScriptCore's termination exception.
    static let terminationMessage = "JavaScript execution terminated."
    /// Check points an entry runs before its first tock. A tight loop runs them in ≈ 0.1–0.3 ms;
    /// an entry of a few calls never reaches it, so a patched call costs no tock.
    static let ticksToFirstCheck: Int32 = 100_000
    /// The watchdog's limit when the engine asks JavaScriptCore to end an entry: negative, so the
    /// timer fires at once and its CPU deadline lies before every thread's CPU clock. JavaScriptCore
    /// compares that deadline with the clock of whichever thread's JS takes the trap and, when the
    /// clock is short of it, re-arms the timer for the difference from inside its trap handling
    /// (with a limit of 0, another thread of a shared VM taking the trap could be short of the
    /// asker's clock). A negative delay fires at once with GLib's timers (measured: the limit
    /// suites); libdispatch's `dispatch_after` runs a time already past at once (not measured).
    static let endLimit: TimeInterval = -1000
    /// The watchdog's limit once an end's timer has been handled (`park`): out of reach, the
    /// callback kept. A limit left at `endLimit` would start an immediate timer at every entry that
    /// finds the VM empty (JavaScriptCore starts the watchdog's timer there while a limit is set).
    static let parkedLimit: TimeInterval = 1e6
    /// The shortest wait before an entry's next time check (seconds).
    static let shortestStep: TimeInterval = 0.001
    /// How long an end's timer may stay unhandled before the end is armed again (seconds).
    static let endRetry: TimeInterval = 0.1

    /// The VM's occupancy word (`Engine.occupancy`): how many threads have an entry open in it.
    private let occupancy: UnsafeMutablePointer<Int>

    init(group: JSContextGroupRef, occupancy: UnsafeMutablePointer<Int>) {
        self.group = group
        self.occupancy = occupancy
        // The process's choice (`PatchEngine.LimitEnd`); with the exception, no watchdog is made and
        // its functions are never called.
        endsByThrowing = LimitEndChoice.inForce == .exception
        setFunction = endsByThrowing ? nil : JSCPrivateFunctions.setExecutionTimeLimit
        clearFunction = endsByThrowing ? nil : JSCPrivateFunctions.clearExecutionTimeLimit
        counter = UnsafeMutablePointer<Int32>.allocate(capacity: 2)
        counter.initialize(to: .max)
        (counter + 1).initialize(to: Int32(PE_CHECK_POINTS_THRESHOLD))
        stamp = UnsafeMutablePointer<UInt64>.allocate(capacity: 1)
        stamp.initialize(to: 0)
        measures = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        measures.initialize(to: 0)
        ranLong = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        ranLong.initialize(to: 0)
        // The watchdog is made now, before any entry into the VM, whatever the bounds: JavaScriptCore
        // marks a VM as entered (`Watchdog::enteredVM`, what lets a limit set inside an entry start
        // the timer) only at an outermost entry made while the watchdog exists. Made later, inside
        // an entry another thread has open (bounds turned on while a thread is in a native call),
        // a tock's arming there would start no timer and the runaway would never be ended.
        if let clearFunction {
            setWatchdog(Self.parkedLimit)
            clearFunction(group)
        }
        LimitMonitor.shared.watch(self)
    }

    /// Whether an entry past a bound is ended by a catchable exception at each of its check points
    /// (`PatchEngine.LimitEnd.exception`, the default) rather than by JavaScriptCore's uncatchable
    /// termination (`.watchdog`).
    let endsByThrowing: Bool

    /// The limit in force; nil when off or unavailable.
    var seconds: TimeInterval? { settings.withLock { $0.limit } }

    /// Sets the limit for every later entry into JS (nil, a non-positive or non-finite value: off).
    /// Call with JavaScriptCore's API lock held (`APILock`); it waits while another thread runs JS.
    func set(_ seconds: TimeInterval?) {
        let value = seconds.flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
        settings.withLock { $0.limit = value }
        arm()
    }

    /// Takes the bounds set (`limit`, `heapGrowth`) into use. API lock held. (JavaScriptCore's
    /// watchdog was made with the VM, `init`: arming it from inside an entry finds it there.)
    func arm() {
        armedLimit = settings.withLock { $0.limit } ?? 0
        heapOn = heapGrowth.bytes != nil
        let on = armedLimit > 0 || heapOn
        entryTicks = on ? Self.ticksToFirstCheck : .max
        // Entries open now (other threads', in native calls: this thread holds the API lock) take
        // the new bounds at their next check point: their due times were set under the old ones.
        nudge()
    }

    /// The `Int32Array` scripts count down (`__peTick`), over `counter`.
    func makeCounterArray(_ ctx: JSContextRef) -> JSObjectRef? {
        JSObjectMakeTypedArrayWithBytesNoCopy(ctx, kJSTypedArrayTypeInt32Array, counter, 8, nil, nil, nil)
    }

    /// Before an entry into JS, with the API lock held until the matching `endEntry`: a thread's
    /// outermost entry starts the countdown to its first tock (and clears a watchdog left armed
    /// by threads that left together: `disarmIfAlone`). After an entry that ran long, the next one
    /// arms the watchdog at its start instead (`armAtStart`).
    /// `armingAtStart`: a script's top level (an evaluation), which is armed at its start like an
    /// entry after a long one (`armAtStart`): evaluations are few and cost far more than the
    /// watchdog's start (≈ 1 µs), and a script's top-level loop then never meets a tock.
    @inline(__always) func beginEntry(armingAtStart: Bool = false) {
        let entry = PEThreadEntryBegin()
        guard entry != 0 else { return }
        if isShared { return joinSharedVM() }
        PECheckPointsStamp(stamp, entry)
        // A nudge left for the last entry (it ended before its next check point) is not this one's.
        PECheckPointsClearNudge(counter)
        if watchdogArmed { disarmIfAlone() }
        if lastEntryRanLong || armingAtStart { armAtStart(entry) } else { PECheckPointsSet(counter, entryTicks) }
    }

    /// After the entry's JS returned, still under the API lock: the thread's outermost entry
    /// clears JavaScriptCore's watchdog if an end armed it, and ends its measure.
    @inline(__always) func endEntry() {
        if PEThreadEntryEnd() && (watchdogArmed || lastEntryRanLong || PEAtomicLoadLong(measures) > 0) { outermostEntryEnded() }
    }

    /// Whether the VM's last outermost entry ran long: it reached its first tock, or, armed at its
    /// start, ran as many check points. A hint, written by whichever thread ended last; an atomic
    /// word for the same reason as `measures`.
    private let ranLong: UnsafeMutablePointer<Int>
    private var lastEntryRanLong: Bool {
        @inline(__always) get { PEAtomicLoadLong(ranLong) != 0 }
        set { PEAtomicStoreLong(ranLong, newValue ? 1 : 0) }
    }

    /// How many entries of this VM the monitor measures now (for tests: none once every entry ended).
    var openMeasures: Int { PEAtomicLoadLong(measures) }

    /// Measures `entry` (this thread's) from its start and sets the countdown as far as it goes.
    /// Why: an entry's first tock comes inside a loop JavaScriptCore has optimised without
    /// ever seeing the call-out taken; it leaves that code (an "InadequateCoverage" exit) and
    /// compiles the loop again with the call-out in it, and a loop that may call out keeps no load
    /// hoisted: JS calling a JS-defined method in a loop, 3.8–4.2 ns a call with the check points
    /// and no tock, 8–9 ns once a tock had happened in it (`make bench`). A VM whose entries run
    /// long (a patched method with a long loop, called again and again) meets the tock once; its
    /// next entries pay a clock read and the monitor's registration instead (≈ 1 µs, against
    /// ≥ 0.1 ms of JS).
    private func armAtStart(_ entry: UInt64) {
        guard armedLimit > 0 || heapOn else {
            lastEntryRanLong = false
            PECheckPointsSet(counter, entryTicks)
            return
        }
        PECheckPointsSet(counter, .max)
        startMeasure(entry, PEThreadEntryClockCurrent()!, PEThreadCPUTime(), armedAtStart: true)
    }

    /// `entry` (this thread's) is measured from `now` (its CPU time): the clock's start, and the
    /// monitor's watch (its heap baseline is read there, not here: ≈ 10 µs a footprint read).
    private func startMeasure(_ entry: UInt64, _ clock: UnsafeMutablePointer<PEThreadEntryClock>, _ now: TimeInterval, armedAtStart: Bool) {
        if clock.pointee.registered { LimitMonitor.shared.forget(self, entry: clock.pointee.entry) } else { PEAtomicAddLong(measures, 1) }
        clock.pointee = PEThreadEntryClock(entry: entry, start: now, armedAtStart: armedAtStart, registered: true)
        LimitMonitor.shared.measure(self, entry: entry, due: due(inCPU: armedLimit > 0 ? armedLimit : .infinity))
    }

    /// The uptime by which `seconds` of this thread's CPU time can have passed at the earliest.
    private func due(inCPU seconds: TimeInterval) -> TimeInterval {
        seconds.isFinite ? LimitMonitor.uptime + max(seconds, Self.shortestStep) : .infinity
    }

    /// Whether another thread has an entry open in this VM too (`occupancy` counts this thread's
    /// from before the API lock): threads outnumbering the pool's VMs, or a method run in the main
    /// VM because the thread's own has not replayed it. Their JS takes turns at lock drops (native
    /// calls, the tocks). JavaScriptCore's watchdog has one CPU deadline per VM, taken from the
    /// clock of the thread that armed it last, and judges whichever thread runs JS when it fires:
    /// armed by one thread, it lets another run until that one's clock passes the deadline.
    @inline(__always) var isShared: Bool { PEAtomicLoadLong(occupancy) >= 2 * PEVMOpenEntry }

    /// An outermost entry into a VM another thread is in: no arming at its start, and the countdown
    /// lowered to `entryTicks` at most, never raised (as `armAtStart` would): the thread whose
    /// entry is open is then checked again within that many check points, and its tock arms the
    /// watchdog with its own clock. Nor a new stamp: `LimitMonitor` keeps watching the entry that
    /// has been open since the VM was last entered alone.
    private func joinSharedVM() {
        if PECheckPointsGet(counter) > entryTicks { PECheckPointsSet(counter, entryTicks) }
    }

    /// The thread's outermost entry ended: whether it ran long, its measure ended, the watchdog
    /// cleared.
    private func outermostEntryEnded() {
        let clock = PEThreadEntryClockCurrent()!
        let measured = clock.pointee.registered
        if clock.pointee.armedAtStart {
            // Only this VM's JS counts the countdown down from where `armAtStart` set it.
            lastEntryRanLong = Int64(Int32.max) - Int64(PECheckPointsGet(counter)) >= Int64(Self.ticksToFirstCheck)
            clock.pointee.armedAtStart = false
        } else {
            lastEntryRanLong = measured
        }
        if measured {
            let entry = clock.pointee.entry
            ends.withLock { $0.forget(entry) }
            LimitMonitor.shared.forget(self, entry: entry)
            clock.pointee.registered = false
            PEAtomicAddLong(measures, -1)
        }
        if watchdogArmed { disarmIfAlone() }
    }

    /// Clears the watchdog's limit, but only while no other thread has an entry open in the VM
    /// (this thread's is counted until after `endEntry`). Clearing also drops the callback, and a
    /// timer already dispatched still fires: inside an entry still open, JavaScriptCore then ends
    /// whatever JS runs without asking (seen: innocent threads ended while a runaway was being
    /// ended). Once the VM's outermost entry has ended, JavaScriptCore forgets the timer's deadline.
    private func disarmIfAlone() {
        guard PEAtomicLoadLong(occupancy) < 2 * PEVMOpenEntry else { return }
        clearFunction?(group)
        watchdogArmed = false
    }

    /// `__peTock()`: the counter reached zero on this thread, inside its entry. Under the API lock
    /// (the binding takes it: JavaScriptCore drops it around native callbacks). The entry's first
    /// tock starts its measure (`startMeasure`); later ones come when the monitor nudges it (its
    /// time due, the heap past its budget) and judge it. The countdown is then set as far as it
    /// goes (≈ 2 billion check points), so the JS's optimised code keeps never taking the call: a
    /// tock every few milliseconds made a JS-defined method call from a loop 3 → 9 ns (the compiled
    /// loop then calls out, which clobbers what it had hoisted). In a VM shared by threads it is set
    /// to `ticksToFirstCheck`: each thread running JS there reaches its own first tock.
    ///
    /// Returns true when the running JS must throw the end (`endsByThrowing`): this entry is past a
    /// bound, now or at an earlier tock; the counter is then left at 0, so its next check point
    /// comes back here.
    func tock() -> Bool {
        // Taken: a nudge the monitor writes from here on brings the next check point back.
        PECheckPointsClearNudge(counter)
        if endsByThrowing && PEThreadEntryWasTerminated() {
            PECheckPointsSet(counter, 0)
            return true
        }
        PECheckPointsSet(counter, isShared ? Self.ticksToFirstCheck : .max)
        let entry = PEThreadEntryCurrent()
        guard entry != 0, armedLimit > 0 || heapOn else { return false }
        if entry == endRequested {
            // Armed again only when the last arming's timer was handled without ending it (the
            // callback ran for another thread's entry) or never came: two of its timers pending
            // could fire one while JavaScriptCore handles the other.
            if !endArmPending || LimitMonitor.uptime - endArmedAt > Self.endRetry { armEnd() }
            return false
        }
        let clock = PEThreadEntryClockCurrent()!
        let now = PEThreadCPUTime()
        if clock.pointee.entry != entry || !clock.pointee.registered {
            startMeasure(entry, clock, now, armedAtStart: false)
            return false
        }
        guard let left = timeLeft(entry, clock, now) else { return requestEnd(entry) }
        LimitMonitor.shared.reschedule(self, entry: entry, due: due(inCPU: left))
        return false
    }

    /// A check of `entry`, this thread's, `now` CPU seconds: nil when it is past a bound (the
    /// heap's recorded in `ends`), else the CPU time it has left (infinity: no time limit).
    private func timeLeft(_ entry: UInt64, _ clock: UnsafeMutablePointer<PEThreadEntryClock>, _ now: TimeInterval) -> TimeInterval? {
        let spent = now - clock.pointee.start
        if armedLimit > 0 && armedLimit - spent <= armedLimit * 1e-9 { return nil }
        if heapOn, let exceeded = LimitMonitor.shared.heapExceeded(self, entry: entry) {
            ends.withLock { $0.makeRoom(); $0.heap[entry] = exceeded }
            return nil
        }
        return armedLimit > 0 ? armedLimit - spent : .infinity
    }

    /// Asks JavaScriptCore to end `entry` (this thread's) at once. Should the end not come (its
    /// trap handled on another thread of a shared VM), the monitor keeps nudging the entry, whose
    /// next tock arms it again.
    /// Without the watchdog (`endsByThrowing`) the entry is marked ended here and its JS throws.
    private func requestEnd(_ entry: UInt64) -> Bool {
        if endsByThrowing {
            PEThreadEntryMarkTerminated()
            PECheckPointsSet(counter, 0)
            return true
        }
        endRequested = entry
        LimitMonitor.shared.reschedule(self, entry: entry, due: LimitMonitor.uptime)
        armEnd()
        return false
    }

    /// Arms JavaScriptCore's watchdog to end the entry asked for, from inside it, on its thread.
    private func armEnd() {
        guard setFunction != nil else { return }
        watchdogArmed = true
        endArmPending = true
        endArmedAt = LimitMonitor.uptime
        #if DEBUG
        Self.armings.withLock { $0 += 1 }
        if Self.armingsToLose.withLock({ count in count > 0 ? { count -= 1; return true }() : false }) { return }
        #endif
        setWatchdog(Self.endLimit)
    }

    /// Parks the watchdog (`parkedLimit`), from its callback. Its timer then fires in 11 days at
    /// the earliest (a stale timer then: JavaScriptCore ignores it), and an entry alone in the VM
    /// clears it (`disarmIfAlone`).
    private func park() { setWatchdog(Self.parkedLimit) }

    /// JavaScriptCore's watchdog set to `seconds`, with the engine's callback.
    private func setWatchdog(_ seconds: TimeInterval) {
        setFunction?(group, seconds, Self.callback, Unmanaged.passUnretained(self).toOpaque())
    }

    #if DEBUG
    /// Tests: how many of the next armings to drop, as if JavaScriptCore never fired their timer
    /// (the monitor keeps nudging the entry until an arming ends it), and how many there were.
    static let armingsToLose = LockedValue(0)
    static let armings = LockedValue(0)
    /// How many times JavaScriptCore's watchdog fired into the callback.
    static let fires = LockedValue(0)
    #endif

    /// For `LimitMonitor`, on its own thread: whether a thread has an entry open in the VM (and
    /// whether several: `isShared`), the last outermost entry begun, whether a bound is on, and the
    /// nudge: the check points' threshold raised past the counter, so the running entry's next
    /// check point calls the tock (a relaxed store, no lock).
    var hasOpenEntry: Bool { PEAtomicLoadLong(occupancy) >= PEVMOpenEntry }
    var stampedEntry: UInt64 { PECheckPointsStampGet(stamp) }
    var boundsOn: Bool { seconds != nil || heapGrowth.bytes != nil }
    func nudge() { PECheckPointsNudge(counter) }

    /// Runs on the thread running JS once JavaScriptCore's watchdog fired (API lock held): yes
    /// only for the entry the engine asked to end. Any other entry (another thread's in a shared VM,
    /// which runs JS when the timer fires; the asker's entry over) goes on, nudged,
    /// so the asker's next check point arms the end again. Either way the watchdog is parked: no
    /// timer that could fire soon is started from here, where one started inside JavaScriptCore's
    /// trap handling can fire while that handling runs (docs/limits.md).
    private static let callback: PEJSShouldTerminateCallback = { _, context in
        let limit = Unmanaged<ExecutionTimeLimit>.fromOpaque(context!).takeUnretainedValue()
        let entry = PEThreadEntryCurrent()
        #if DEBUG
        fires.withLock { $0 += 1 }
        #endif
        limit.endArmPending = false
        limit.park()
        guard entry != 0, entry == limit.endRequested else {
            limit.nudge()
            return false
        }
        PEThreadEntryMarkTerminated()
        return true
    }

    /// How an exception returned by an entry into JS relates to the time limit.
    enum Termination: Equatable {
        /// Not a termination: the script's own exception.
        case none
        /// The limit ended this thread's entry (or JS nested in it).
        case timeout
        /// JavaScriptCore ended this thread's JS while ending another thread's runaway.
        case otherThreads
        /// The heap growth limit ended this thread's entry.
        case heapGrowth(HeapGrowthExceeded)
    }

    /// Classifies `value` (`exception`), just returned to this thread by an entry into JS, under
    /// the API lock.
    func termination(of value: JSValueRef, _ exception: JSException, ctx: JSContextRef) -> Termination {
        // Thrown by a check point, or the script's own exception from the JS its end ran through
        // (a `catch` that threw something else): the entry was ended either way.
        if endsByThrowing { return PEThreadEntryWasTerminated() ? endOfThisEntry : .none }
        guard exception.message == Self.terminationMessage else { return .none }
        let known = settings.withLock { settings -> JSValueRef? in
            let known = settings.terminationValue
            if known == nil, PEThreadEntryWasTerminated() { settings.terminationValue = value; JSValueProtect(ctx, value) }
            return known
        }
        if PEThreadEntryWasTerminated() { return endOfThisEntry }
        // Only the VM's own termination value; a script's `throw` of that text is its own error.
        return known == nil || known == value ? .otherThreads : .none
    }

    /// Records `script()` as the running method's at the first throw of this thread's entry's end.
    /// runtime.js's per-call context is the VM's, not the thread's: while another thread has an
    /// entry open in the VM its JS may run during the tock (JavaScriptCore drops its lock around
    /// native callbacks) and the context be that thread's method. Then nothing is recorded, and
    /// the entry's own script (the patched method's, the evaluation's) is blamed: `make stress`
    /// saw the innocent script of four threads' calls reverted instead of a fifth's runaway.
    func recordThrownEnd(script: () -> String?) {
        let entry = PEThreadEntryCurrent()
        guard ends.withLock({ $0.thrown[entry] == nil }) else { return }
        var running: String?
        if !isShared {
            running = script()
            if isShared { running = nil }
        }
        ends.withLock { $0.makeRoom(); $0.thrown[entry] = .some(running) }
    }

    /// What `recordThrownEnd` recorded for this thread's entry; nil if it was not ended by throwing.
    var scriptOfThrownEnd: String?? {
        let entry = PEThreadEntryCurrent()
        return ends.withLock { $0.thrown[entry] }
    }

    /// Which bound ended this thread's entry, once it was ended (`PEThreadEntryWasTerminated`).
    /// Under the API lock.
    var endOfThisEntry: Termination {
        let entry = PEThreadEntryCurrent()
        if let exceeded = ends.withLock({ $0.heap[entry] }) { return .heapGrowth(exceeded) }
        return .timeout
    }
}

/// JavaScriptCore ended a thread's JS while it terminated a runaway script on another thread.
struct ExecutionEndedForAnotherThread: Error, CustomStringConvertible {
    var description: String {
        "ended by JavaScriptCore while it terminated a runaway script on another thread"
    }
}

/// A script ran past the execution time limit, or grew memory past the heap growth limit
/// (`heapGrowth`), and was terminated.
struct ExecutionTimeout: Error, CustomStringConvertible {
    let limit: TimeInterval
    /// The script of the innermost JS method running when it was ended (a termination skips the
    /// method wrappers' `finally`, so runtime.js's per-call context still names it): a method
    /// called directly from JS may belong to another script than the entry's. nil: not a method's.
    var script: String?
    /// Set when the heap growth limit ended it.
    var heapGrowth: HeapGrowthExceeded?

    /// "2.0", "0.2", "0.25": seconds as a person writes them.
    var formattedLimit: String {
        let tenths = String(format: "%.1f", limit)
        return Double(tenths) == limit ? tenths : String(format: "%g", limit)
    }

    /// "<what> exceeded the 2.0 s execution time limit", or the heap growth's message.
    func message(for what: String) -> String {
        heapGrowth?.message(for: what) ?? "\(what) exceeded the \(formattedLimit) s execution time limit"
    }

    var kind: PatchError.Kind { heapGrowth == nil ? .timeout : .heapGrowth }

    /// Why its script is reverted, for the log.
    var bound: String { heapGrowth == nil ? "it ran past the execution time limit" : "it grew memory past the heap growth limit" }

    var description: String { message(for: "JavaScript") }
}
